#include "policies/cost_estimate.h"

#include <algorithm>

#include "models/profile.h"

namespace kvroute::policies {
namespace {

constexpr char kDefaultProfile[] = "h100-llama3.1-8b-bf16";
constexpr int64_t kDecodeContext = 1024;

}  // namespace

CostEstimator::CostEstimator(const PolicyContext& ctx) : block_size_(ctx.block_size_tokens) {
  if (ctx.cost_model == nullptr) {
    owned_ = std::make_unique<models::PhysicalCostModel>(models::FindProfile(kDefaultProfile));
  }
  kinds_.emplace_back(ctx.cost_model != nullptr ? ctx.cost_model : owned_.get(),
                      ctx.max_num_batched_tokens);
  // A pool of several kinds: each replica priced by its own deployment's
  // model, as seed 000's S_i and FlexLB's per-worker prefill_ms are each the
  // instance's own (policies.md §9); one Kind per distinct model and budget.
  for (size_t r = 0; r < ctx.replica_cost_models.size(); ++r) {
    const models::CostModel* model = ctx.replica_cost_models[r];
    const int64_t budget = ctx.replica_batched_tokens.at(r);
    uint32_t k = 0;
    while (k < kinds_.size() &&
           !(kinds_[k].model == model && kinds_[k].budget == std::max<int64_t>(1, budget))) {
      ++k;
    }
    if (k == kinds_.size()) kinds_.emplace_back(model, budget);
    kind_of_.push_back(k);
  }
}

CostEstimator::Kind::Kind(const models::CostModel* m, int64_t b)
    : model(m), budget(std::max<int64_t>(1, b)) {
  models::BatchShape full;
  full.AddPrefillChunk(0, budget);
  prefill_seconds_per_token =
      sim::ToSeconds(model->IterationTime(full)) / static_cast<double>(budget);
}

double CostEstimator::Kind::PrefillSeconds(uint32_t prompt_tokens, uint32_t hit_tokens) const {
  for (const Remembered& r : remembered) {
    if (r.seconds >= 0 && r.prompt_tokens == prompt_tokens && r.hit_tokens == hit_tokens)
      return r.seconds;
  }
  const double seconds = ComputePrefillSeconds(prompt_tokens, hit_tokens);
  remembered[next_remembered++ % 4] = {prompt_tokens, hit_tokens, seconds};
  return seconds;
}

double CostEstimator::Kind::ComputePrefillSeconds(uint32_t prompt_tokens,
                                                  uint32_t hit_tokens) const {
  int64_t done = std::min<int64_t>(hit_tokens, prompt_tokens > 0 ? prompt_tokens - 1 : 0);
  double seconds = 0;
  while (done < prompt_tokens) {
    int64_t chunk = std::min<int64_t>(budget, prompt_tokens - done);
    models::BatchShape batch;
    batch.AddPrefillChunk(done, chunk);
    seconds += sim::ToSeconds(model->IterationTime(batch));
    done += chunk;
  }
  return seconds;
}

double CostEstimator::Kind::OutstandingWorkSeconds(const models::ReplicaLoad& load) const {
  double seconds = QueuedPrefillSeconds(load);
  if (load.decode_tokens > 0) {
    // The load signals carry no contexts; a decode sequence is taken to attend
    // to kDecodeContext tokens.
    int64_t sequences = std::max<int64_t>(1, load.running);
    models::BatchShape decode;
    decode.decode_sequences = decode.sequences = sequences;
    decode.decode_context_tokens = static_cast<double>(sequences * kDecodeContext);
    double iterations = static_cast<double>(load.decode_tokens) / static_cast<double>(sequences);
    seconds += iterations * sim::ToSeconds(model->IterationTime(decode));
  }
  return seconds;
}

uint32_t ExactHitTokens(const ClusterView& view, uint32_t replica, const models::Request& request,
                        int block_size) {
  if (view.cache == nullptr || request.prompt_tokens == 0) return 0;
  uint64_t blocks = view.cache->CachedPrefixBlocks(replica, request.hashes.prompt());
  return static_cast<uint32_t>(
      std::min<uint64_t>(blocks * static_cast<uint64_t>(block_size), request.prompt_tokens - 1));
}

void ExactHitTokensAll(const ClusterView& view, const models::Request& request, int block_size,
                       std::span<uint32_t> out) {
  if (view.cache == nullptr || request.prompt_tokens == 0) {
    std::fill(out.begin(), out.end(), 0);
    return;
  }
  view.cache->CachedPrefixBlocksAll(request.hashes.prompt(), out);
  for (uint32_t& hit : out) {
    hit = static_cast<uint32_t>(std::min<uint64_t>(
        uint64_t{hit} * static_cast<uint64_t>(block_size), request.prompt_tokens - 1));
  }
}

}  // namespace kvroute::policies
