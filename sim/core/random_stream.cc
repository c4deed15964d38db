#include "sim/core/random_stream.h"

#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <cassert>
#include <cmath>

#include "sim/core/hashing.h"

namespace kvroute::sim {

uint64_t DeriveStreamSeed(uint64_t seed, std::string_view name, uint64_t index) {
  // Three rounds of SplitMix64 keep streams with adjacent seeds or indices
  // unrelated (ns-3's "run number" idea, with a name instead of a number).
  return Mix64(Mix64(Mix64(seed) ^ HashString(name)) ^ Mix64(index + 0x5851f42d4c957f2dULL));
}

RandomStream::RandomStream(uint64_t seed, std::string_view name, uint64_t index)
    : engine_seed_(DeriveStreamSeed(seed, name, index)), engine_(engine_seed_) {}

double RandomStream::Uniform() {
  // 53 high bits: exact, platform-independent, never 1.0.
  return static_cast<double>(engine_() >> 11) * 0x1.0p-53;
}

uint64_t RandomStream::UniformInt(uint64_t n) {
  assert(n > 0);
  boost::random::uniform_int_distribution<uint64_t> dist(0, n - 1);
  return dist(engine_);
}

double RandomStream::Exponential(double rate) {
  assert(rate > 0);
  // Inversion keeps the draw count fixed at one engine output per variate.
  return -std::log1p(-Uniform()) / rate;
}

double RandomStream::Normal() {
  boost::random::normal_distribution<double> dist(0.0, 1.0);
  return dist(engine_);
}

}  // namespace kvroute::sim
