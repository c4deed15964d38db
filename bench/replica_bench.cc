// The scheduler step on its hot path: form a batch, cost it, apply it, with
// `range(0)` requests in the replica at all times (each completed request is
// replaced by a new one with the same shape), so the batch mixes decodes with
// the prefills of newcomers as a loaded engine does.
#include <benchmark/benchmark.h>

#include "models/cost_model.h"
#include "models/profile.h"
#include "models/replica.h"

namespace kvroute::models {
namespace {

class Recycler : public ReplicaObserver {
 public:
  explicit Recycler(RequestPool& pool) : pool_(pool) {}
  void OnAdmitted(uint32_t, sim::Time) override {}
  void OnFirstToken(uint32_t, sim::Time) override {}
  void OnCompleted(uint32_t slot, sim::Time) override {
    pool_.Release(slot);
    Add();
  }
  void Add() {
    uint32_t slot = pool_.Acquire();
    Request& r = pool_[slot].request;
    r.id = next_id_++;
    r.prompt_tokens = 512;
    r.output_tokens = 256;
    replica->Enqueue(slot, 0);
  }
  Replica* replica = nullptr;

 private:
  RequestPool& pool_;
  uint64_t next_id_ = 0;
};

void BM_SchedulerStep(benchmark::State& state) {
  const int running = static_cast<int>(state.range(0));
  Profile profile = FindProfile("h100-llama3.1-8b-bf16");
  PhysicalCostModel cost(profile);
  RequestPool pool;
  ReplicaLoad load;
  Recycler observer(pool);
  Replica replica(0, cost, SchedulerConfig{.max_num_batched_tokens = 8192, .max_num_seqs = 512},
                  24766, 16, pool, load);
  observer.replica = &replica;
  for (int i = 0; i < running; ++i) observer.Add();
  sim::Time now = 0;
  for (auto _ : state) {
    now += replica.StartIteration(now, observer);
    replica.FinishIteration(now, observer);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["running"] = static_cast<double>(load.running);
  state.counters["completed"] = static_cast<double>(replica.counters().completed);
}
BENCHMARK(BM_SchedulerStep)->Arg(8)->Arg(64)->Arg(256);

}  // namespace
}  // namespace kvroute::models
