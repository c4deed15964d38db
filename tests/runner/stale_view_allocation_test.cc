// A replica whose cache publishes KV events to a delayed, lossy view, and a
// router asking that view about every request, allocate nothing per request
// once queues and indexes have reached their working size (DESIGN.md,
// "Performance notes"). Global operator new is replaced in this test program
// to count allocations, as in tests/models/allocation_test.cc.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include "models/cost_model.h"
#include "models/profile.h"
#include "models/replica.h"
#include "models/workload.h"
#include "sim/runner/cluster_views.h"
#include "sim/runner/stale_cache_view.h"

// Operator delete frees what the replaced operator new got from malloc; GCC
// cannot see that they are replaced together when it inlines them.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

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

namespace kvroute::sim {
namespace {

class Driver : public models::ReplicaObserver {
 public:
  void OnAdmitted(uint32_t, Time) override {}
  void OnFirstToken(uint32_t, Time) override {}
  void OnCompleted(uint32_t slot, Time) override { pool.Release(slot); }
  models::RequestPool pool;
};

TEST(StaleViewAllocationTest, SteadyStateEventsAndQuestionsDoNotAllocate) {
  models::Profile profile = models::FindProfile("h100-llama3.1-8b-bf16");
  models::PhysicalCostModel cost(profile);
  Driver driver;
  models::ReplicaLoad load;
  std::vector<std::unique_ptr<models::Replica>> replicas;
  replicas.push_back(std::make_unique<models::Replica>(0, cost, models::SchedulerConfig{}, 6000, 16,
                                                       driver.pool, load));
  models::Replica& replica = *replicas[0];
  ReplicaCacheOracle exact(replicas);
  Time clock = 0;
  StaleCacheView view(1, FromSeconds(0.5), 0.1, 1, exact, [&clock] { return clock; });
  replica.set_kv_event_listener(view.publisher(0));
  models::WorkloadConfig config;
  config.keys = 200;
  config.system_tokens = 1024;
  config.new_tokens = models::LengthDistribution::Uniform(64, 512);
  config.output_tokens = models::LengthDistribution::Uniform(1, 128);
  models::WorkloadGenerator workload(config, 1, 8, FromSeconds(1e6));
  models::Request next;
  Time busy_until = 0;
  uint64_t believed_blocks = 0;
  auto serve = [&](int requests) {
    for (int i = 0; i < requests && workload.Next(&next); ++i) {
      while (busy_until <= next.arrival) {
        clock = busy_until;
        if (replica.in_iteration()) replica.FinishIteration(clock, driver);
        Time d = replica.StartIteration(clock, driver);
        if (d == 0) break;
        busy_until = clock + d;
      }
      clock = std::max(clock, next.arrival);
      believed_blocks += view.CachedPrefixBlocks(0, next.hashes.prompt());  // the router asks
      uint32_t slot = driver.pool.Acquire();
      std::swap(driver.pool[slot].request, next);
      replica.Enqueue(slot, 0);
      if (!replica.in_iteration()) {
        Time d = replica.StartIteration(clock, driver);
        if (d > 0) busy_until = clock + d;
      }
    }
  };
  serve(20000);                                            // warm up
  EXPECT_GT(replica.kv_cache().counters().evictions, 0u);  // removals are published too
  EXPECT_GT(view.lost(), 0u);
  EXPECT_GT(view.counters().underestimated, 0u);  // the view lags
  EXPECT_GT(believed_blocks, 0u);
  counting = true;
  serve(5000);
  counting = false;
  EXPECT_EQ(allocations.load(), 0u);
}

}  // namespace
}  // namespace kvroute::sim
