// What a prefix cache tells the outside world about its contents, as serving
// engines publish KV events: vLLM's BlockStored / BlockRemoved /
// AllBlocksCleared (vllm/distributed/kv_events.py), which Dynamo's and
// llm-d's routers index. The cache reports runs of blocks, not single ones:
// one call per run it stores or evicts, as vLLM sends one event per list of
// blocks.
#ifndef KVROUTE_MODELS_KV_EVENTS_H_
#define KVROUTE_MODELS_KV_EVENTS_H_

#include <cstdint>
#include <span>

#include "models/block_run_tree.h"

namespace kvroute::models {

class KvEventListener {
 public:
  virtual ~KvEventListener() = default;
  // Blocks chain[from, to) became cached; the block before them, chain[from
  // - 1] (BlockStored's parent_block_hash; none when from == 0), is cached.
  virtual void OnBlocksStored(BlockChain chain, uint32_t from, uint32_t to) = 0;
  // These cached blocks, in chain order, were evicted.
  virtual void OnBlocksRemoved(std::span<const uint64_t> blocks) = 0;
  // Every cached block was dropped (a replica that failed).
  virtual void OnAllBlocksCleared() = 0;
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_KV_EVENTS_H_
