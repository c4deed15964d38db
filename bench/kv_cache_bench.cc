// The prefix cache on its hot path: admit a request whose prompt shares a
// system prompt with earlier ones, register its blocks, release it.
#include <benchmark/benchmark.h>

#include <vector>

#include "models/kv_cache.h"
#include "sim/core/hashing.h"
#include "sim/core/random_stream.h"

namespace kvroute::models {
namespace {

// Quickstart-like prompts: 1024 shared tokens (64 blocks) of one of `keys`
// system prompts, then 256 unique tokens (16 blocks).
void BM_AdmitRegisterRelease(benchmark::State& state) {
  const uint32_t keys = static_cast<uint32_t>(state.range(0));
  KvCache cache(24766);
  sim::RandomStream rng(1, "bench.kv_cache");
  std::vector<uint64_t> chain;
  KvHandle handle;
  uint64_t id = 0;
  for (auto _ : state) {
    uint64_t key = rng.UniformInt(keys);
    chain.clear();
    uint64_t h = 1;
    for (uint32_t j = 0; j < 80; ++j) {
      h = sim::ChainBlockHash(h,
                              j < 64 ? sim::Combine(key, j) : sim::Combine(id + (1ULL << 40), j));
      chain.push_back(h);
    }
    ++id;
    if (!cache.Admit(chain, 90, 79, &handle)) state.SkipWithError("admission failed");
    cache.Register(chain, 80, &handle);
    cache.Release(&handle);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["hit_blocks_per_request"] =
      static_cast<double>(cache.counters().hit_blocks) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_AdmitRegisterRelease)->Arg(100)->Arg(3000);

}  // namespace
}  // namespace kvroute::models
