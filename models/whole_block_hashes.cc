#include "models/whole_block_hashes.h"

#include "sim/core/hashing.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KVROUTE_WIDE_BLOCK_HASHING 1
#endif

namespace kvroute::models {
namespace {

// The content of the block starting at token `offset` of the segment, premixed
// for the chain (sim::PremixRight).
uint64_t PremixedContent(uint64_t salt, uint32_t offset, uint32_t block_size) {
  const uint64_t where = (static_cast<uint64_t>(offset) << 32) | block_size;
  return sim::PremixRight(sim::Combine(0, sim::Combine(salt, where)));
}

// Fewer blocks than one vector's worth: the wide way would hash them one by
// one too.
constexpr uint32_t kWideMinBlocks = 8;

#ifdef KVROUTE_WIDE_BLOCK_HASHING
#define KVROUTE_WIDE_TARGET __attribute__((target("avx512f,avx512dq")))
using Lanes = uint64_t __attribute__((vector_size(64)));  // eight blocks

// sim/core/hashing.h's functions, lane by lane.
KVROUTE_WIDE_TARGET inline Lanes Mix64(Lanes x) {
  x += sim::kMix64Gamma;
  x = (x ^ (x >> 30)) * sim::kMix64Multiplier1;
  x = (x ^ (x >> 27)) * sim::kMix64Multiplier2;
  return x ^ (x >> 31);
}

KVROUTE_WIDE_TARGET inline Lanes PremixRight(Lanes b) { return Mix64(b + sim::kCombineOffset); }

KVROUTE_WIDE_TARGET inline Lanes Combine(Lanes a, Lanes b) { return Mix64(a ^ PremixRight(b)); }

// Blocks eight at a time: the premixed contents of the next eight are made
// in the vector unit while the scalar chain runs through the last eight, its
// latency the loop's only bound. Returns how many blocks it hashed (count
// rounded down to a multiple of eight). Shifting a 64-bit lane left by 32
// drops its high half as the 32-bit offset of the one-by-one loop would.
KVROUTE_WIDE_TARGET uint32_t HashEights(uint64_t* chain, uint64_t salt, uint32_t offset,
                                        uint32_t block_size, uint32_t count, uint64_t* out) {
  const Lanes lane = {0, 1, 2, 3, 4, 5, 6, 7};
  const Lanes salts = Lanes{} + salt;
  uint64_t h = *chain;
  uint32_t b = 0;
  for (; b + 8 <= count; b += 8) {
    const Lanes offsets = (static_cast<uint64_t>(offset) + (lane + b) * block_size);
    const Lanes where = (offsets << 32) | block_size;
    const Lanes content = Combine(Lanes{}, Combine(salts, where));
    const Lanes premixed = PremixRight(content);
    for (uint32_t i = 0; i < 8; ++i) {
      h = sim::ChainPremixed(h, premixed[i]);
      out[b + i] = h;
    }
  }
  *chain = h;
  return b;
}

bool DetectWide() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
}
#endif

}  // namespace

bool WideBlockHashing() {
#ifdef KVROUTE_WIDE_BLOCK_HASHING
  static const bool wide = DetectWide();
  return wide;
#else
  return false;
#endif
}

uint64_t HashWholeBlocksOneByOne(uint64_t chain, uint64_t salt, uint32_t offset,
                                 uint32_t block_size, uint32_t count, uint64_t* out) {
  // Written without branches but the loop's, so that consecutive blocks'
  // contents, which do not depend on the chain, overlap.
  for (uint32_t b = 0; b < count; ++b, offset += block_size) {
    chain = sim::ChainPremixed(chain, PremixedContent(salt, offset, block_size));
    out[b] = chain;
  }
  return chain;
}

uint64_t HashWholeBlocksWide(uint64_t chain, uint64_t salt, uint32_t offset, uint32_t block_size,
                             uint32_t count, uint64_t* out) {
#ifdef KVROUTE_WIDE_BLOCK_HASHING
  const uint32_t done = HashEights(&chain, salt, offset, block_size, count, out);
  return HashWholeBlocksOneByOne(chain, salt, offset + done * block_size, block_size, count - done,
                                 out + done);
#else
  return HashWholeBlocksOneByOne(chain, salt, offset, block_size, count, out);
#endif
}

uint64_t HashWholeBlocks(uint64_t chain, uint64_t salt, uint32_t offset, uint32_t block_size,
                         uint32_t count, uint64_t* out) {
  if (count >= kWideMinBlocks && WideBlockHashing()) {
    return HashWholeBlocksWide(chain, salt, offset, block_size, count, out);
  }
  return HashWholeBlocksOneByOne(chain, salt, offset, block_size, count, out);
}

}  // namespace kvroute::models
