// Files kvroute reads — scenarios, profiles, traces, rates, previous plans —
// are checked before they are read: a regular file (a directory, a device such
// as /dev/zero or a FIFO would hang or mislead a reader), no larger than a
// limit per kind of file, so that no input can make kvroute read forever.
#ifndef KVROUTE_SIM_CORE_INPUT_FILE_H_
#define KVROUTE_SIM_CORE_INPUT_FILE_H_

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

namespace kvroute::sim {

class InputFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct InputKind {
  const char* what;    // "scenario file", in messages
  uint64_t max_bytes;  // larger files are refused
};

// Far above what any real input of its kind needs; the Mooncake conversation
// trace is 3 MB, a scenario a few KB.
inline constexpr InputKind kScenarioInput{"scenario file", uint64_t{16} << 20};
inline constexpr InputKind kProfileInput{"profile file", uint64_t{1} << 20};
inline constexpr InputKind kTraceInput{"trace file", uint64_t{8} << 30};
inline constexpr InputKind kGapsInput{"gaps file", uint64_t{1} << 30};
inline constexpr InputKind kRatesInput{"rates file", uint64_t{1} << 30};
inline constexpr InputKind kClientsInput{"clients file", uint64_t{1} << 30};
inline constexpr InputKind kPlanInput{"plan file", uint64_t{1} << 30};
inline constexpr InputKind kResultsInput{"results file", uint64_t{1} << 40};

// Every kind, for the limits table of the docs.
std::span<const InputKind> InputKinds();

// Throws InputFileError naming `path` unless it is a readable regular file of
// at most kind.max_bytes. Returns its size in bytes.
uint64_t CheckInputFile(const std::string& path, const InputKind& kind);

// The whole file, after CheckInputFile; reading stops with an error past the
// limit even if the file grows meanwhile.
std::string ReadInputFile(const std::string& path, const InputKind& kind);

// "1.5 GiB", "16 MiB", "512 B"
std::string FormatBytes(double bytes);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_CORE_INPUT_FILE_H_
