// The hot path allocates nothing per request in steady state (DESIGN.md,
// "Performance notes"): once the request pool, the KV cache and the queues have
// reached their working size, generating a request, admitting it, scheduling
// its iterations and completing it must not touch the heap. Global operator
// new is replaced in this test program to count allocations.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "models/cost_model.h"
#include "models/profile.h"
#include "models/replica.h"
#include "models/workload.h"

namespace {
std::atomic<bool> counting{false};
std::atomic<uint64_t> allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace kvroute::models {
namespace {

class Driver : public ReplicaObserver {
 public:
  void OnAdmitted(uint32_t, sim::Time) override {}
  void OnFirstToken(uint32_t, sim::Time) override {}
  void OnCompleted(uint32_t slot, sim::Time) override { pool.Release(slot); }
  RequestPool pool;
};

TEST(AllocationTest, SteadyStateRequestsDoNotAllocate) {
  Profile profile = FindProfile("h100-llama3.1-8b-bf16");
  PhysicalCostModel cost(profile);
  Driver driver;
  ReplicaLoad load;
  Replica replica(0, cost, SchedulerConfig{}, 6000, 16, driver.pool, load);
  WorkloadConfig config;
  config.keys = 200;
  config.system_tokens = 1024;
  config.new_tokens = LengthDistribution::Uniform(64, 512);
  config.output_tokens = LengthDistribution::Uniform(1, 128);
  // A load the replica sustains: a steady state, not a queue that grows.
  WorkloadGenerator workload(config, 1, 8, sim::FromSeconds(1e6));
  Request next;
  sim::Time now = 0, busy_until = 0;
  auto serve = [&](int requests) {
    for (int i = 0; i < requests && workload.Next(&next); ++i) {
      // Run iterations up to the arrival, then enqueue it.
      while (busy_until <= next.arrival) {
        if (replica.in_iteration()) replica.FinishIteration(busy_until, driver);
        now = busy_until;
        sim::Time d = replica.StartIteration(now, driver);
        if (d == 0) break;
        busy_until = now + d;
      }
      uint32_t slot = driver.pool.Acquire();
      std::swap(driver.pool[slot].request, next);
      replica.Enqueue(slot, 0);
      if (!replica.in_iteration()) {
        sim::Time d = replica.StartIteration(next.arrival, driver);
        if (d > 0) busy_until = next.arrival + d;
      }
    }
  };
  serve(20000);  // warm up: pools, queues and the cache reach their working size
  EXPECT_GT(replica.counters().completed, 10000u);
  EXPECT_GT(replica.kv_cache().counters().evictions, 0u);  // the cache is full and turning over
  counting = true;
  serve(5000);
  counting = false;
  EXPECT_EQ(allocations.load(), 0u);
}

}  // namespace
}  // namespace kvroute::models
