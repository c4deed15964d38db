// The workload diagnostics (`kvroute workload-stats`) on the sessions_rag
// scenario's workload: requests per second through the statistics alone,
// generation excluded. Block at a time, a million such requests took 70 s of
// statistics and 3.2 GB; run at a time, about 600k requests/s.
#include <benchmark/benchmark.h>

#include "models/workload.h"
#include "models/workload_stats.h"

namespace kvroute::models {
namespace {

LengthDistribution Lognormal(double median, double sigma, double min, double max) {
  return {.kind = LengthDistribution::Kind::kLognormal,
          .min = min,
          .max = max,
          .median = median,
          .sigma = sigma};
}

struct Recorded {
  std::vector<Request> requests;
  std::vector<std::vector<PromptSegment>> segments;
};

// scenarios/sessions_rag.yaml's workload at 400 QPS for 250 s.
const Recorded& SessionsRag() {
  static const Recorded recorded = [] {
    WorkloadConfig c;
    c.keys = 500;
    c.rates.zipf_s = 1.0;
    c.system_tokens = 512;
    c.new_tokens = Lognormal(200, 0.5, 8, 2048);
    c.no_prefix_share = 0.2;
    c.rag = {.documents = 5000,
             .popularity_s = 0.8,
             .chunks = LengthDistribution::Uniform(0, 3),
             .chunk_tokens = 512};
    c.output_tokens = Lognormal(200, 0.6, 1, 1024);
    c.sessions.turns = LengthDistribution::Uniform(1, 6);
    c.sessions.think_time_s = Lognormal(30, 0.4, 5, 120);
    WorkloadGenerator g(c, 1, 400, sim::FromSeconds(250));
    Recorded out;
    Request r;
    while (g.Next(&r)) {
      out.requests.push_back(r);
      auto s = g.segments();
      out.segments.emplace_back(s.begin(), s.end());
    }
    return out;
  }();
  return recorded;
}

void BM_WorkloadStats(benchmark::State& state) {
  const Recorded& w = SessionsRag();
  WorkloadStatsOptions o{
      .block_size = 16, .lru_blocks = {24766, 198128}, .windows_s = {10, 60, 300, 1800}};
  for (auto _ : state) {
    WorkloadStatsCollector stats(o);
    for (size_t i = 0; i < w.requests.size(); ++i) stats.Add(w.requests[i], w.segments[i]);
    benchmark::DoNotOptimize(stats.Finish().ideal_hit_rate);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * w.requests.size()));
  state.SetLabel(std::to_string(w.requests.size()) + " requests");
}
BENCHMARK(BM_WorkloadStats)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace kvroute::models
