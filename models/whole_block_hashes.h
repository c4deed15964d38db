// The chained hashes of a run of whole blocks inside one prompt segment: the
// loop in which a long prompt spends its hashing (BlockHasher::Append,
// prompt_blocks.h).
//
// Block b of the run holds the segment's tokens [offset_b, offset_b +
// block_size) with offset_b = offset + b·block_size; its content is
// Combine(0, Combine(salt, offset_b << 32 | block_size)) and its hash
// ChainBlockHash(hash of block b - 1, content) (sim/core/hashing.h), the first
// block's predecessor being `chain`.
//
// Of the six SplitMix64 finalizers per block, five make the content and do not
// depend on the chain. One block at a time, the CPU's multipliers are the
// bottleneck; with AVX-512 the vector unit makes the contents of eight blocks
// at a time while the scalar chain runs through the eight before, and only the
// chain's own finalizer is left per block, latency-bound (docs/PERFORMANCE.md,
// "Wide block hashing"). The hashes are the same either way: the same 64-bit
// integer arithmetic, lane by lane.
#ifndef KVROUTE_MODELS_WHOLE_BLOCK_HASHES_H_
#define KVROUTE_MODELS_WHOLE_BLOCK_HASHES_H_

#include <cstdint>

namespace kvroute::models {

// Writes the hashes of `count` whole blocks to out[0, count) and returns the
// last (`chain` if count is 0), eight blocks at a time where the CPU allows.
// REQUIRES: offset + count·block_size fits in 32 bits (a segment's tokens do).
uint64_t HashWholeBlocks(uint64_t chain, uint64_t salt, uint32_t offset, uint32_t block_size,
                         uint32_t count, uint64_t* out);

// The two ways, for tests and benchmarks: one block at a time, and eight at
// a time. HashWholeBlocksWide REQUIRES WideBlockHashing().
uint64_t HashWholeBlocksOneByOne(uint64_t chain, uint64_t salt, uint32_t offset,
                                 uint32_t block_size, uint32_t count, uint64_t* out);
uint64_t HashWholeBlocksWide(uint64_t chain, uint64_t salt, uint32_t offset, uint32_t block_size,
                             uint32_t count, uint64_t* out);
// Whether this build and CPU can hash eight blocks at a time (x86-64 with
// AVX-512F and DQ).
bool WideBlockHashing();

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_WHOLE_BLOCK_HASHES_H_
