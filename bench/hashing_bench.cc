// Hashing a long prompt's unique tokens: 1,000 whole blocks of one segment,
// one block at a time (range 0) and eight at a time (range 1, where the CPU
// has AVX-512). Items are blocks: the rate is blocks hashed per second.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "models/whole_block_hashes.h"

namespace kvroute::models {
namespace {

void BM_HashWholeBlocks(benchmark::State& state) {
  const bool wide = state.range(0) == 1;
  if (wide && !WideBlockHashing()) {
    state.SkipWithError("this CPU has no AVX-512F and DQ");
    return;
  }
  constexpr uint32_t kBlocks = 1000;
  std::vector<uint64_t> out(kBlocks);
  uint64_t salt = 1;
  for (auto _ : state) {
    const uint64_t last = wide ? HashWholeBlocksWide(7, ++salt, 3072, 16, kBlocks, out.data())
                               : HashWholeBlocksOneByOne(7, ++salt, 3072, 16, kBlocks, out.data());
    benchmark::DoNotOptimize(last);
  }
  state.SetItemsProcessed(state.iterations() * kBlocks);
}
BENCHMARK(BM_HashWholeBlocks)->Arg(0)->Arg(1);

}  // namespace
}  // namespace kvroute::models
