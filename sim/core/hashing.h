// Hash and mixing functions shared by the random streams, the prefix cache and
// the consistent-hash rings. All are fixed functions of their inputs, so hashes
// (and therefore runs) are identical on every platform.
#ifndef KVROUTE_SIM_CORE_HASHING_H_
#define KVROUTE_SIM_CORE_HASHING_H_

#include <cstdint>
#include <string_view>

namespace kvroute::sim {

// The SplitMix64 finalizer (Steele, Lea, Flood 2014): a bijection on 64 bits
// with full avalanche.
inline uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline uint64_t Combine(uint64_t a, uint64_t b) {
  return Mix64(a ^ Mix64(b + 0x632be59bd9b4e019ULL));
}

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
// index reserves for "empty".
inline uint64_t ChainBlockHash(uint64_t previous, uint64_t content) {
  uint64_t h = Combine(previous, content);
  return h == 0 ? 1 : h;
}

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_CORE_HASHING_H_
