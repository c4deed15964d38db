// `kvroute workload-stats` and `kvroute trace-stats`: what a workload or a
// trace offers a prefix cache, before any simulation (models/workload_stats.h).
#include "models/workload_stats.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "models/request_source.h"
#include "models/trace_replay.h"
#include "sim/runner/commands/common.h"

namespace kvroute::sim {
namespace {

namespace po = boost::program_options;

void AddStatsOptions(OptionList& o) {
  o.Text("lru-blocks", "N,N,...",
         "LRU cache sizes to report, in blocks; default one replica's KV pool and the cluster's")
      .Text("windows", "S,S,...", "reuse windows, seconds", "10,60,300,1800");
}

models::WorkloadStatsOptions StatsOptions(const po::variables_map& vm, uint32_t block_size,
                                          std::vector<uint64_t> default_lru) {
  models::WorkloadStatsOptions o;
  o.block_size = block_size;
  o.lru_blocks = default_lru;
  if (vm.count("lru-blocks")) {
    o.lru_blocks.clear();
    for (double v : ParseRealList("--lru-blocks", vm["lru-blocks"].as<std::string>(), 1, 1e12)) {
      if (v != std::floor(v)) {
        throw UsageError("--lru-blocks: expected whole numbers of blocks, got " +
                         std::to_string(v));
      }
      o.lru_blocks.push_back(static_cast<uint64_t>(v));
    }
  }
  o.windows_s = ParseRealList("--windows", vm["windows"].as<std::string>(), 0, 1e9, true);
  std::sort(o.windows_s.begin(), o.windows_s.end());
  return o;
}

// Generates the scenario's requests at one load and seed, exactly as a point
// would see them, and prints what they offer a prefix cache.
int WorkloadStats(const po::variables_map& vm, const CommandIo& io) {
  const Scenario s = LoadScenarioArgument(vm);
  const double qps = vm.count("qps") ? vm["qps"].as<double>() : s.reference_qps;
  const uint64_t seed = vm.count("seed") ? vm["seed"].as<uint64_t>() : s.seed;
  CheckScenarioWork(s, vm, 1, qps);
  const uint64_t blocks = s.kv_blocks > 0
                              ? static_cast<uint64_t>(s.kv_blocks)
                              : static_cast<uint64_t>(s.resolved_profile.KvCapacityBlocks());
  models::WorkloadStatsOptions o =
      StatsOptions(vm, static_cast<uint32_t>(s.resolved_profile.ResolvedEngine().block_size_tokens),
                   {blocks, blocks * s.replica_count()});
  // What the scenario's engine caches: prompts, and generated tokens if it does.
  o.cache_generated_tokens = s.scheduler.cache_generated_tokens;
  const auto start = std::chrono::steady_clock::now();
  auto source = models::MakeRequestSource(s.workload, seed, qps, FromSeconds(s.duration_s));
  models::WorkloadStatsCollector collector(o);
  models::Request r;
  while (source->Next(&r)) collector.Add(r, source->segments());
  const models::WorkloadStats stats = collector.Finish();
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  io.out << "workload of scenario '" << s.name << "' (" << s.source << ") at " << qps
         << " QPS, seed " << seed << ", " << s.duration_s << " s; LRU sizes: one replica's KV pool "
         << "and the cluster's unless --lru-blocks\n";
  models::PrintWorkloadStats(stats, o, io.out);
  io.out << "(computed in " << std::round(took.count() * 100) / 100 << " s)\n";
  return 0;
}

// Replays a trace at its own timing and prints what it offers a prefix cache.
int TraceStats(const po::variables_map& vm, const CommandIo& io) {
  models::TraceConfig config;
  config.file = vm["file"].as<std::string>();
  config.format = models::GuessTraceFormat(config.file);
  if (vm.count("format"))
    config.format = *models::TraceFormats().Find(vm["format"].as<std::string>());
  if (config.format == models::TraceConfig::Format::kNone) {
    throw UsageError("cannot tell the format of '" + config.file +
                     "' from its name; give --format mooncake|azure");
  }
  config.skip = vm["skip"].as<uint64_t>();
  config.limit = vm["limit"].as<uint64_t>();
  const auto block_size = static_cast<uint32_t>(vm["block-size"].as<uint64_t>());
  const models::WorkloadStatsOptions o = StatsOptions(vm, block_size, {25'000, 200'000});

  auto trace = std::make_shared<const models::Trace>(models::ReadTrace(config));
  models::TraceReplay probe(trace, false, 1.0, kNever, block_size);
  models::TraceReplay replay(trace, false, probe.native_qps(), kNever, block_size);
  models::WorkloadStatsCollector collector(o);
  models::Request r;
  while (replay.Next(&r)) collector.Add(r, replay.segments());
  const models::WorkloadStats stats = collector.Finish();
  io.out << "trace " << config.file << " (" << models::TraceFormats().NameOf(config.format)
         << "), replayed at its own timing\n";
  models::PrintWorkloadStats(stats, o, io.out);
  if (config.format == models::TraceConfig::Format::kMooncake) {
    char line[128];
    std::snprintf(line, sizeof line,
                  "trace block hit rate %.1f%% of the trace's 512-token block ids\n",
                  100 * models::NativeBlockHitRate(*trace));
    io.out << line;
  }
  return 0;
}

}  // namespace

Command WorkloadStatsCommandDefinition() {
  return {"workload-stats",
          "print what a scenario's workload offers a prefix cache, before any simulation",
          {ScenarioArgument(true)},
          [](OptionList& o) {
            AddOverrideOption(o);
            o.RealNumber("qps", "X", "the load; default the scenario's reference load", 0, INFINITY,
                         true)
                .WholeNumber("seed", "S", "the seed; default the scenario's first", 0,
                             uint64_t{1} << 52);
            AddStatsOptions(o);
            AddLimitOption(o);
          },
          WorkloadStats};
}

Command TraceStatsCommandDefinition() {
  return {"trace-stats",
          "print what a trace file offers a prefix cache, replayed at its own timing",
          {{"file", "FILE", "a Mooncake .jsonl or Azure .csv trace", true}},
          [](OptionList& o) {
            o.Choice("format", models::TraceFormats().names(),
                     "the trace format; default from the extension (.jsonl, .csv)")
                .WholeNumber("block-size", "N", "KV block size in tokens", 1, 4096, 16)
                .WholeNumber("skip", "N", "leading requests dropped", 0, uint64_t{1} << 50, 0)
                .WholeNumber("limit", "N", "requests kept after --skip; 0: all", 0,
                             uint64_t{1} << 50, 0);
            AddStatsOptions(o);
          },
          TraceStats};
}

}  // namespace kvroute::sim
