#include "sim/runner/work_estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "policies/registry.h"
#include "sim/core/input_file.h"

namespace kvroute::sim {
namespace {

// Measured on the quickstart: 4 events per request at light load plus one
// iteration event per ~16 output tokens (decodes are batched); hashing a prompt
// block costs about an eighth of an event.
constexpr double kEventsPerRequest = 4;
constexpr double kOutputTokensPerEvent = 16;
constexpr double kBlocksPerEvent = 8;
// Bytes per cached KV block (slot, index entry), per key (share, alias entry,
// drift weights, a policy's per-key state), per ring point, per series bucket.
constexpr double kBytesPerBlock = 64;
constexpr double kBytesPerKey = 64;
constexpr double kBytesPerRingPoint = 16;
constexpr double kBytesPerBucket = 256;
// Above this many events per request, the request's length is the cost to name.
constexpr double kUsualEventsPerRequest = 1000;
// Requests waiting or running at once, at most: the load times this long.
constexpr double kInFlightSeconds = 60;

// "33600", "1.1e6"
std::string Sci(double value) {
  char text[32];
  std::snprintf(text, sizeof text, value < 1e5 ? "%.0f" : "%.1e", value);
  std::string s = text;
  if (size_t e = s.find("e+"); e != std::string::npos) {
    s.erase(e + 1, 1);
    while (s.size() > e + 2 && s[e + 1] == '0') s.erase(e + 1, 1);
  }
  return s;
}

// The load factor averaged over [0, duration] (workload.load_schedule).
double MeanLoadFactor(const models::WorkloadConfig& w, double duration) {
  if (w.load_schedule.empty()) return 1;
  double total = 0, start = 0;
  for (const models::LoadStep& step : w.load_schedule) {
    const double end = std::min(step.until_s, duration);
    if (end > start) total += (end - start) * step.factor;
    start = std::max(start, step.until_s);
  }
  if (duration > start) total += (duration - start) * w.load_schedule.back().factor;
  return total / duration;
}

double MeanPromptTokens(const models::WorkloadConfig& w) {
  double tokens = w.system_tokens + w.new_tokens.Mean();
  if (w.rag.documents > 0) tokens += w.rag.chunks.Mean() * w.rag.chunk_tokens;
  // A turn's prompt carries the earlier turns: on average half of them.
  const double turns = w.sessions.turns.Mean();
  if (turns > 1) tokens += (turns - 1) / 2 * (w.new_tokens.Mean() + w.output_tokens.Mean());
  return tokens;
}

void AddVirtualNodes(const PolicySpec& spec, const std::string& path, double replicas,
                     WorkEstimate* e) {
  const policies::PolicyInfo& info = policies::FindPolicy(spec.name);
  const policies::Params params = policies::ResolveParams(info, spec.params);
  for (size_t i = 0; i < info.params.size(); ++i) {
    if (info.params[i].name != "virtual_nodes") continue;
    const double points = params.values()[i] * replicas * (spec.name == "dualmap" ? 2 : 1);
    e->terms.push_back({path + ".virtual_nodes",
                        Sci(points) + " hash-ring points of " + Sci(kBytesPerRingPoint) + " B",
                        points * std::log2(std::max(2.0, points)) / kBlocksPerEvent,
                        points * kBytesPerRingPoint});
  }
}

}  // namespace

const WorkTerm& WorkEstimate::CostliestInEvents() const {
  return *std::max_element(terms.begin(), terms.end(), [](const WorkTerm& a, const WorkTerm& b) {
    return a.events < b.events;
  });
}

const WorkTerm& WorkEstimate::CostliestInMemory() const {
  return *std::max_element(terms.begin(), terms.end(),
                           [](const WorkTerm& a, const WorkTerm& b) { return a.bytes < b.bytes; });
}

std::string WorkEstimate::Summary() const {
  return "about " + Sci(requests) + " requests, " + Sci(events) + " events and " +
         FormatBytes(bytes) + " per point";
}

WorkEstimate EstimatePointWork(const Scenario& s, std::optional<double> qps) {
  WorkEstimate e;
  const models::WorkloadConfig& w = s.workload;
  const bool trace = w.trace.format != models::TraceConfig::Format::kNone;
  const double load = qps.value_or(s.qps.empty() ? s.reference_qps : s.qps.back());
  const double simulated = s.duration_s + s.drain_s;
  const double replicas = s.replica_count();

  e.requests = load * s.duration_s * MeanLoadFactor(w, s.duration_s);
  // Each request costs its events and the hashing of its prompt blocks. The
  // key named is the load, unless a request costs far more than usual, when
  // its length (long sessions, huge outputs) is what to lower.
  const double output = trace ? 512 : w.output_tokens.Mean();
  const double prompt_blocks = (trace ? 8192 : MeanPromptTokens(w)) / w.block_size_tokens;
  const double per_request =
      kEventsPerRequest + output / kOutputTokensPerEvent + prompt_blocks / kBlocksPerEvent;
  const std::string length_key =
      trace ? "workload.trace"
            : (w.sessions.turns.Mean() > 1 ? "workload.sessions" : "workload.output_tokens");
  const std::string load_key = qps ? "--qps" : "sweep.qps";
  const double in_flight = std::min(e.requests, load * kInFlightSeconds);
  e.terms.push_back({per_request > kUsualEventsPerRequest ? length_key : load_key,
                     Sci(load) + " QPS x duration_s " + Sci(s.duration_s) + " s, " +
                         Sci(per_request) + " events per request (" + Sci(prompt_blocks) +
                         " prompt blocks)",
                     e.requests * per_request, in_flight * (prompt_blocks * 8 + 256)});

  const double blocks = s.kv_blocks > 0
                            ? static_cast<double>(s.kv_blocks)
                            : static_cast<double>(s.resolved_profile.KvCapacityBlocks());
  e.terms.push_back({s.kv_blocks > 0 ? "cluster.kv_blocks" : "cluster.profile",
                     Sci(blocks) + " KV blocks x " + Sci(replicas) + " replicas", 0,
                     blocks * replicas * kBytesPerBlock});

  if (s.signal_refresh_s > 0) {
    const double polls = simulated / s.signal_refresh_s;
    e.terms.push_back(
        {"cluster.signal_refresh_s", Sci(polls) + " polls of every replica", polls * replicas, 0});
  }
  const double buckets = simulated / s.series_interval_s + 1;
  e.terms.push_back({"cluster.series_interval_s", Sci(buckets) + " time-series buckets", buckets,
                     buckets * kBytesPerBucket * (1 + static_cast<double>(s.deployments.size()))});

  if (!trace) {
    e.terms.push_back({"workload.keys", Sci(w.keys) + " keys", 0, w.keys * kBytesPerKey});
    if (w.drift.sigma > 0) {
      const double steps = s.duration_s / w.drift.interval_s;
      e.terms.push_back({"workload.drift.interval_s",
                         Sci(steps) + " drift steps over " + Sci(w.keys) + " keys",
                         steps * w.keys / 2, 0});
    }
    if (w.rag.documents > 0) {
      e.terms.push_back({"workload.prompt.rag.documents", Sci(w.rag.documents) + " documents", 0,
                         w.rag.documents * 16.0});
    }
  } else {
    std::error_code ec;
    const double size = static_cast<double>(std::filesystem::file_size(w.trace.file, ec));
    e.terms.push_back({"workload.trace.file", "the trace held in memory", 0, ec ? 0 : size});
  }

  for (size_t i = 0; i < s.policies.size(); ++i) {
    AddVirtualNodes(s.policies[i], "policies[" + std::to_string(i) + "]", replicas, &e);
  }
  for (size_t d = 0; d < s.deployments.size(); ++d) {
    if (s.deployments[d].policy) {
      AddVirtualNodes(*s.deployments[d].policy,
                      "cluster.deployments[" + std::to_string(d) + "].policy",
                      s.deployments[d].replicas, &e);
    }
  }
  for (const WorkTerm& t : e.terms) {
    e.events += t.events;
    e.bytes += t.bytes;
  }
  return e;
}

std::optional<double> AvailableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string name, unit;
  double value = 0;
  while (in >> name >> value >> unit) {
    if (name == "MemAvailable:") return value * 1024;
  }
  return std::nullopt;
}

void CheckWorkLimits(const Scenario& s, const WorkEstimate& e, unsigned parallel_points) {
  const std::string override_hint =
      "; lower it, or pass --ignore-limits if you mean it (docs/CLI.md, \"Limits\")";
  if (e.events > kMaxEventsPerPoint) {
    const WorkTerm& t = e.CostliestInEvents();
    throw std::runtime_error(s.source + ": key '" + t.key + "': a point would take " +
                             Sci(e.events) + " events (" + t.description + "), more than the " +
                             Sci(kMaxEventsPerPoint) + " a point may take" + override_hint);
  }
  const std::optional<double> available = AvailableMemoryBytes();
  const double needed = e.bytes * std::max(1u, parallel_points);
  if (available && needed > 0.9 * *available) {
    const WorkTerm& t = e.CostliestInMemory();
    throw std::runtime_error(
        s.source + ": key '" + t.key + "': " + std::to_string(std::max(1u, parallel_points)) +
        " point(s) at once would need about " + FormatBytes(needed) + " of memory (" +
        t.description + "), more than the " + FormatBytes(*available) +
        " this machine has available" + override_hint);
  }
}

}  // namespace kvroute::sim
