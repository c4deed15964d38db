#include "sim/core/input_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace kvroute::sim {
namespace {

constexpr std::array kKinds{kScenarioInput, kProfileInput, kTraceInput, kGapsInput,
                            kRatesInput,    kClientsInput, kPlanInput,  kResultsInput};

std::string NotRegular(const std::string& path, const InputKind& kind, mode_t mode) {
  const char* type = S_ISDIR(mode)    ? "a directory"
                     : S_ISCHR(mode)  ? "a character device"
                     : S_ISBLK(mode)  ? "a block device"
                     : S_ISFIFO(mode) ? "a FIFO"
                     : S_ISSOCK(mode) ? "a socket"
                                      : "not a regular file";
  return path + ": is " + type + ", not a " + kind.what + " (kvroute reads regular files only)";
}

std::string TooLarge(const std::string& path, const InputKind& kind, double bytes) {
  return path + ": " + FormatBytes(bytes) + " is more than the " +
         FormatBytes(static_cast<double>(kind.max_bytes)) + " a " + kind.what + " may have";
}

}  // namespace

std::span<const InputKind> InputKinds() { return kKinds; }

std::string FormatBytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  size_t unit = 0;
  while (bytes >= 1024 && unit + 1 < std::size(units)) {
    bytes /= 1024;
    ++unit;
  }
  char text[32];
  if (unit == 0 || bytes == std::floor(bytes)) {
    std::snprintf(text, sizeof text, "%.0f %s", bytes, units[unit]);
  } else {
    std::snprintf(text, sizeof text, "%.1f %s", bytes, units[unit]);
  }
  return text;
}

uint64_t CheckInputFile(const std::string& path, const InputKind& kind) {
  if (path.empty()) throw InputFileError(std::string("empty path given for a ") + kind.what);
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) throw InputFileError(path + ": no such " + kind.what);
    throw InputFileError(path + ": cannot read " + kind.what + ": " + std::strerror(errno));
  }
  if (!S_ISREG(info.st_mode)) throw InputFileError(NotRegular(path, kind, info.st_mode));
  const auto size = static_cast<uint64_t>(info.st_size);
  if (size > kind.max_bytes) throw InputFileError(TooLarge(path, kind, static_cast<double>(size)));
  if (::access(path.c_str(), R_OK) != 0) {
    throw InputFileError(path + ": cannot read " + kind.what + ": " + std::strerror(errno));
  }
  return size;
}

std::string ReadInputFile(const std::string& path, const InputKind& kind) {
  CheckInputFile(path, kind);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputFileError(path + ": cannot open " + kind.what);
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > kind.max_bytes) {
      throw InputFileError(TooLarge(path, kind, static_cast<double>(text.size())));
    }
  }
  if (in.bad()) throw InputFileError(path + ": read error in " + kind.what);
  return text;
}

}  // namespace kvroute::sim
