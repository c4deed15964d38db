#include "sim/core/file_names.h"

#include <cstdint>
#include <cstdio>

namespace kvroute::sim {

bool IsUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<uint8_t>(text[i]);
    size_t extra = 0;
    uint32_t code = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      extra = 1;
      code = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
      code = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3;
      code = c & 0x07;
    } else {
      return false;
    }
    if (i + extra >= text.size()) return false;  // truncated sequence
    for (size_t k = 1; k <= extra; ++k) {
      const auto next = static_cast<uint8_t>(text[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      code = (code << 6) | (next & 0x3F);
    }
    // Overlong encodings, surrogates and code points past U+10FFFF.
    constexpr uint32_t kMinimum[] = {0, 0x80, 0x800, 0x10000};
    if (code < kMinimum[extra] || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) {
      return false;
    }
    i += extra + 1;
  }
  return true;
}

std::string EscapeForMessage(std::string_view text) {
  const bool utf8 = IsUtf8(text);
  std::string out;
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F || (!utf8 && byte >= 0x80)) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out;
}

std::string FileNameProblem(std::string_view name) {
  if (name.empty()) return "is empty";
  if (name.front() == '.') return "starts with '.', which would make a hidden file";
  for (char c : name) {
    if (c == '/') return "contains '/'";
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      return "contains a control character";
    }
  }
  if (!IsUtf8(name)) return "is not valid UTF-8";
  return "";
}

}  // namespace kvroute::sim
