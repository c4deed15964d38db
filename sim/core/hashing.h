// Hash and mixing functions shared by the random streams, the prefix cache and
// the consistent-hash rings. All are fixed functions of their inputs, so hashes
// (and therefore runs) are identical on every platform.
#ifndef KVROUTE_SIM_CORE_HASHING_H_
#define KVROUTE_SIM_CORE_HASHING_H_

#include <cstdint>
#include <string_view>

namespace kvroute::sim {

// The SplitMix64 finalizer (Steele, Lea, Flood 2014): a bijection on 64 bits
// with full avalanche. Its constants are named for the vectorised copy in
// models/whole_block_hashes.cc, which must compute the same function.
inline constexpr uint64_t kMix64Gamma = 0x9e3779b97f4a7c15ULL;
inline constexpr uint64_t kMix64Multiplier1 = 0xbf58476d1ce4e5b9ULL;
inline constexpr uint64_t kMix64Multiplier2 = 0x94d049bb133111ebULL;
inline uint64_t Mix64(uint64_t x) {
  x += kMix64Gamma;
  x = (x ^ (x >> 30)) * kMix64Multiplier1;
  x = (x ^ (x >> 27)) * kMix64Multiplier2;
  return x ^ (x >> 31);
}

// Combine(a, b) = Mix64(a ^ PremixRight(b)). PremixRight is the half that
// does not depend on `a`: a chain of Combines can premix its right-hand
// inputs ahead of the chain.
inline constexpr uint64_t kCombineOffset = 0x632be59bd9b4e019ULL;
inline uint64_t PremixRight(uint64_t b) { return Mix64(b + kCombineOffset); }
inline uint64_t Combine(uint64_t a, uint64_t b) { return Mix64(a ^ PremixRight(b)); }

// FNV-1a over the bytes of a string.
inline uint64_t HashString(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// Chained block hash (DESIGN.md, "Requests"): block j's hash depends on the hash
// of block j-1 and the content of block j, so two prompts share a block only if
// they share the whole prefix up to it. Never returns 0, which the cache's hash
// index reserves for "empty". ChainPremixed takes PremixRight(content),
// made ahead of the chain.
//
// A hash of 0 (one in 2^64) is replaced by a call, not a conditional move:
// the branch is predicted and leaves the chain's latency, which bounds long
// prompts' hashing (models/whole_block_hashes.h), one instruction shorter.
[[gnu::cold, gnu::noinline]] inline uint64_t ReplaceZeroHash() { return 1; }
inline uint64_t ChainPremixed(uint64_t previous, uint64_t premixed_content) {
  const uint64_t h = Mix64(previous ^ premixed_content);
  if (h == 0) [[unlikely]]
    return ReplaceZeroHash();
  return h;
}
inline uint64_t ChainBlockHash(uint64_t previous, uint64_t content) {
  return ChainPremixed(previous, PremixRight(content));
}

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_CORE_HASHING_H_
