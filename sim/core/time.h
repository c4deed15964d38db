// Simulated time: a signed 64-bit count of nanoseconds (DESIGN.md, "Time").
// There is no floating-point clock; seconds appear only at the edges (YAML, output).
#ifndef KVROUTE_SIM_CORE_TIME_H_
#define KVROUTE_SIM_CORE_TIME_H_

#include <cmath>
#include <cstdint>
#include <limits>

namespace kvroute::sim {

using Time = int64_t;

inline constexpr Time kNanosPerSecond = 1'000'000'000;
inline constexpr Time kNever = std::numeric_limits<Time>::max();

// Rounds to the nearest nanosecond. REQUIRES: |seconds| < 9.2e9.
inline Time FromSeconds(double seconds) { return static_cast<Time>(std::llround(seconds * 1e9)); }

inline double ToSeconds(Time t) { return static_cast<double>(t) * 1e-9; }

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_CORE_TIME_H_
