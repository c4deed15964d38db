// Named random streams (DESIGN.md, "Randomness"). Every random draw in kvroute
// comes from a stream derived from (scenario seed, stream name, index), so
// adding a draw in one component never shifts the draws of another, and the
// request stream does not depend on the routing policy.
#ifndef KVROUTE_SIM_CORE_RANDOM_STREAM_H_
#define KVROUTE_SIM_CORE_RANDOM_STREAM_H_

#include <boost/random/mersenne_twister.hpp>
#include <cstdint>
#include <string_view>

namespace kvroute::sim {

class RandomStream {
 public:
  // The engine seed is Mix(seed, HashString(name), index); see random_stream.cc.
  RandomStream(uint64_t seed, std::string_view name, uint64_t index = 0);

  // The raw 64-bit output of the engine (mt19937_64).
  uint64_t NextU64() { return engine_(); }

  // Uniform on [0, 1), 53 random bits.
  double Uniform();

  // Uniform integer on [0, n). REQUIRES: n > 0.
  uint64_t UniformInt(uint64_t n);

  // Exponential with the given rate (mean 1/rate). REQUIRES: rate > 0.
  double Exponential(double rate);

  // Standard normal.
  double Normal();

  // The 64-bit seed this stream's engine was started from.
  uint64_t engine_seed() const { return engine_seed_; }

 private:
  uint64_t engine_seed_;
  boost::random::mt19937_64 engine_;
};

// The mixing function behind stream seeds, exposed for tests.
uint64_t DeriveStreamSeed(uint64_t seed, std::string_view name, uint64_t index);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_CORE_RANDOM_STREAM_H_
