#include "models/json_line.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace kvroute::models {
namespace {

// Deeper nesting than any length or trace file needs is refused rather than
// followed: a line of a million '[' must not exhaust the stack.
constexpr int kMaxDepth = 64;

bool Blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

void AppendUtf8(uint32_t code, std::string* out) {
  if (code < 0x80) {
    *out += static_cast<char>(code);
  } else if (code < 0x800) {
    *out += static_cast<char>(0xC0 | (code >> 6));
    *out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    *out += static_cast<char>(0xE0 | (code >> 12));
    *out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (code >> 18));
    *out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

}  // namespace

void JsonLine::SkipBlanks() {
  while (pos_ < s_.size() && Blank(s_[pos_])) ++pos_;
}

bool JsonLine::Peek(char c) {
  SkipBlanks();
  return pos_ < s_.size() && s_[pos_] == c;
}

void JsonLine::Expect(char c, const std::string& field) {
  if (!Peek(c)) throw JsonLineError(field, std::string("expected '") + c + "'");
  ++pos_;
}

std::string JsonLine::Key() {
  Expect('"', "");
  const size_t end = s_.find('"', pos_);
  if (end == std::string_view::npos) throw JsonLineError("", "unterminated string");
  std::string key(s_.substr(pos_, end - pos_));
  pos_ = end + 1;
  Expect(':', key);
  return key;
}

double JsonLine::Number(const std::string& field) {
  SkipBlanks();
  double value = 0;
  auto [ptr, ec] = std::from_chars(s_.data() + pos_, s_.data() + s_.size(), value);
  if (ec == std::errc::result_out_of_range) throw JsonLineError(field, "number out of range");
  if (ec != std::errc() || !std::isfinite(value)) throw JsonLineError(field, "expected a number");
  pos_ = static_cast<size_t>(ptr - s_.data());
  return value;
}

uint64_t JsonLine::Whole(const std::string& field, uint64_t min, uint64_t max) {
  const double v = Number(field);
  if (v < static_cast<double>(min) || v != std::floor(v) || v > static_cast<double>(max)) {
    char text[64];
    std::snprintf(text, sizeof text, "%.17g", v);
    throw JsonLineError(field, "expected a whole number in [" + std::to_string(min) + ", " +
                                   std::to_string(max) + "], got " + text);
  }
  return static_cast<uint64_t>(v);
}

std::string_view JsonLine::NumberText(const std::string& field) {
  SkipBlanks();
  const size_t start = pos_;
  while (pos_ < s_.size() && !Blank(s_[pos_]) && s_[pos_] != ',' && s_[pos_] != '}' &&
         s_[pos_] != ']') {
    ++pos_;
  }
  if (pos_ == start) throw JsonLineError(field, "expected a number");
  return s_.substr(start, pos_ - start);
}

uint32_t JsonLine::Hex4(const std::string& field) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i, ++pos_) {
    const char c = pos_ < s_.size() ? s_[pos_] : '\0';
    const int digit = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                             : -1;
    if (digit < 0) throw JsonLineError(field, "expected four hex digits after \\u");
    value = value * 16 + static_cast<uint32_t>(digit);
  }
  return value;
}

std::string JsonLine::String(const std::string& field) {
  Expect('"', field);
  std::string text;
  while (pos_ < s_.size() && s_[pos_] != '"') {
    const char c = s_[pos_++];
    if (c != '\\') {
      text += c;
      continue;
    }
    if (pos_ >= s_.size()) break;
    const char e = s_[pos_++];
    switch (e) {
      case '"':
      case '\\':
      case '/':
        text += e;
        break;
      case 'b':
        text += '\b';
        break;
      case 'f':
        text += '\f';
        break;
      case 'n':
        text += '\n';
        break;
      case 'r':
        text += '\r';
        break;
      case 't':
        text += '\t';
        break;
      case 'u': {
        uint32_t code = Hex4(field);
        if (code >= 0xD800 && code < 0xDC00 && s_.substr(pos_, 2) == "\\u") {
          pos_ += 2;
          const uint32_t low = Hex4(field);
          if (low < 0xDC00 || low >= 0xE000) throw JsonLineError(field, "unpaired surrogate");
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        } else if (code >= 0xD800 && code < 0xE000) {
          throw JsonLineError(field, "unpaired surrogate");
        }
        AppendUtf8(code, &text);
        break;
      }
      default:
        throw JsonLineError(field, std::string("unknown escape \\") + e);
    }
  }
  if (pos_ >= s_.size()) throw JsonLineError(field, "unterminated string");
  ++pos_;
  return text;
}

void JsonLine::SkipString(const std::string& field) {
  Expect('"', field);
  while (pos_ < s_.size() && s_[pos_] != '"') pos_ += s_[pos_] == '\\' ? 2 : 1;
  if (pos_ >= s_.size()) throw JsonLineError(field, "unterminated string");
  ++pos_;
}

void JsonLine::SkipValue(const std::string& field) {
  SkipBlanks();
  if (pos_ >= s_.size()) throw JsonLineError(field, "expected a value");
  const char c = s_[pos_];
  if (c == '"') return SkipString(field);
  if (c != '[' && c != '{') {
    for (std::string_view word : {"true", "false", "null"}) {
      if (s_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return;
      }
    }
    // Most skipped values are whole numbers (a Mooncake trace's hash_ids, ~24
    // a line): a run of at most 300 digits is always a finite number, and
    // Number would stop where the run stops, so it is passed over without a
    // conversion. Anything else is converted, to be checked as Number checks.
    size_t end = pos_ + (c == '-');
    const size_t digits_start = end;
    while (end < s_.size() && s_[end] >= '0' && s_[end] <= '9') ++end;
    const size_t digits = end - digits_start;
    const bool more = end < s_.size() && (s_[end] == '.' || s_[end] == 'e' || s_[end] == 'E');
    if (digits > 0 && digits <= 300 && !more) {
      pos_ = end;
      return;
    }
    Number(field);
    return;
  }
  if (++depth_ > kMaxDepth) throw JsonLineError(field, "nested too deeply");
  const char close = c == '[' ? ']' : '}';
  ++pos_;
  if (!Peek(close)) {
    for (;;) {
      if (c == '{') {
        SkipString(field);
        Expect(':', field);
      }
      SkipValue(field);
      if (Peek(close)) break;
      Expect(',', field);
    }
  }
  ++pos_;
  --depth_;
}

bool JsonLine::AtEnd() {
  SkipBlanks();
  return pos_ == s_.size();
}

}  // namespace kvroute::models
