#include "analysis/point_fields.h"

#include <array>
#include <charconv>

namespace kvroute::analysis {
namespace {

using R = FieldRange;
using P = PointResult;

template <auto Summary, auto Stat>
PointField Latency(std::string_view name, std::string_view description) {
  return Nested<Summary, Stat>(name, "s", R::kLatency, description);
}

template <auto Summary>
std::array<PointField, 5> LatencyFields(std::string_view p50, std::string_view p90,
                                        std::string_view p99, std::string_view max,
                                        std::string_view mean) {
  return {Latency<Summary, &LatencySummary::p50>(p50, "median, requests measured after warm-up"),
          Latency<Summary, &LatencySummary::p90>(p90, "90th percentile, same requests"),
          Latency<Summary, &LatencySummary::p99>(p99, "99th percentile, same requests"),
          Latency<Summary, &LatencySummary::max>(max, "largest, same requests"),
          Latency<Summary, &LatencySummary::mean>(mean, "mean over the finished requests")};
}

template <typename... Arrays>
auto Concat(const Arrays&... arrays) {
  std::array<PointField, (std::tuple_size_v<Arrays> + ...)> out{};
  size_t i = 0;
  ((std::copy(arrays.begin(), arrays.end(), out.begin() + static_cast<ptrdiff_t>(i)),
    i += arrays.size()),
   ...);
  return out;
}

const auto kScalars = Concat(
    std::array{
        Scalar<&P::policy>("policy", "", R::kName,
                           "the policy's label in the scenario (its name unless `label` is given)"),
        Scalar<&P::qps>("qps", "req/s", R::kPositive, "offered load of the point"),
        Scalar<&P::seed>("seed", "", R::kAnyCount,
                         "workload seed; the same seed gives every policy the same requests"),
        Scalar<&P::refinement_round>(
            "refinement_round", "", R::kSmallCount,
            "0: a load of the grid; r > 0: added by bisection round r (sweep.precision_qps)"),
        Scalar<&P::offered>("offered", "requests", R::kAnyCount,
                            "requests that arrived, whole run"),
        Scalar<&P::completed>("completed", "requests", R::kAnyCount, "of those, finished"),
        Scalar<&P::unfinished>("unfinished", "requests", R::kAnyCount,
                               "of those, still queued or running when the run ended"),
        Scalar<&P::rejected>("rejected", "requests", R::kAnyCount,
                             "of those, too large for any replica's KV pool"),
        Scalar<&P::failed>(
            "failed", "requests", R::kAnyCount,
            "of those, lost to replica failures beyond the retry limit, or with no replica up"),
        Scalar<&P::retried>("retried", "re-routings", R::kAnyCount,
                            "re-routings after a replica failure"),
        Scalar<&P::measured>("measured", "requests", R::kAnyCount,
                             "requests that arrived after the warm-up (the latencies' population)"),
    },
    LatencyFields<&P::ttft>("ttft_p50_s", "ttft_p90_s", "ttft_p99_s", "ttft_max_s", "ttft_mean_s"),
    LatencyFields<&P::tpot>("tpot_p50_s", "tpot_p90_s", "tpot_p99_s", "tpot_max_s", "tpot_mean_s"),
    LatencyFields<&P::e2e>("e2e_p50_s", "e2e_p90_s", "e2e_p99_s", "e2e_max_s", "e2e_mean_s"),
    std::array{
        Scalar<&P::token_hit_rate>(
            "token_hit_rate", "", R::kShare,
            "served KV hit tokens / prompt tokens, requests admitted after warm-up"),
        Scalar<&P::request_hit_rate>("request_hit_rate", "", R::kShare,
                                     "share of those requests that hit at least one block"),
        Scalar<&P::prefill_tokens_computed>(
            "prefill_tokens_computed", "tokens", R::kAnyCount,
            "prompt and recomputed tokens, whole run, all replicas"),
        Scalar<&P::cache_evictions>("cache_evictions", "blocks", R::kAnyCount,
                                    "KV blocks evicted, whole run, all replicas"),
        Scalar<&P::hbm_token_hit_rate>(
            "hbm_token_hit_rate", "", R::kShare,
            "the part of token_hit_rate found in GPU memory (docs/KV_TIERS.md)"),
        Scalar<&P::dram_token_hit_rate>(
            "dram_token_hit_rate", "", R::kShare,
            "the part of token_hit_rate loaded back from host memory; 0 without cluster.kv_tiers"),
        Scalar<&P::kv_offload_bytes>("kv_offload_bytes", "bytes", R::kNonNegative,
                                     "KV copied GPU -> host memory, whole run, all replicas"),
        Scalar<&P::kv_load_bytes>("kv_load_bytes", "bytes", R::kNonNegative,
                                  "KV loaded host memory -> GPU (with what the SSD tier sent "
                                  "through it), whole run, all replicas"),
        Scalar<&P::kv_load_s>("kv_load_s", "s", R::kNonNegative,
                              "time iterations waited for KV loads from host memory and SSD, "
                              "summed over replicas"),
        Scalar<&P::dram_dropped_blocks>("dram_dropped_blocks", "blocks", R::kAnyCount,
                                        "KV blocks dropped from host memory, whole run, all "
                                        "replicas"),
        Scalar<&P::ssd_token_hit_rate>("ssd_token_hit_rate", "", R::kShare,
                                       "the part of token_hit_rate read back from local SSD; 0 "
                                       "without cluster.kv_tiers.ssd_gib"),
        Scalar<&P::ssd_store_bytes>("ssd_store_bytes", "bytes", R::kNonNegative,
                                    "KV written host memory -> local SSD, whole run, all "
                                    "replicas"),
        Scalar<&P::ssd_load_bytes>("ssd_load_bytes", "bytes", R::kNonNegative,
                                   "KV read local SSD -> host memory for loads, whole run, all "
                                   "replicas"),
        Scalar<&P::ssd_load_s>("ssd_load_s", "s", R::kNonNegative,
                               "of kv_load_s, the time spent reading SSD, summed over replicas"),
        Scalar<&P::ssd_dropped_blocks>("ssd_dropped_blocks", "blocks", R::kAnyCount,
                                       "KV blocks dropped from local SSD, whole run, all "
                                       "replicas"),
        Scalar<&P::preemptions>("preemptions", "requests", R::kAnyCount,
                                "preemptions by recompute, whole run, all replicas"),
        Scalar<&P::replica_failures>("replica_failures", "failures", R::kAnyCount,
                                     "replica failures in the run"),
        Scalar<&P::kv_view_lookups>(
            "kv_view_lookups", "lookups", R::kAnyCount,
            "(routing question, replica) pairs answered from cluster.kv_events' delayed view, "
            "whole run; 0 without kv_events or a router that reads it"),
        Scalar<&P::kv_view_overestimated>(
            "kv_view_overestimated", "lookups", R::kAnyCount,
            "of those, believed cached prefix longer than the replica's real one"),
        Scalar<&P::kv_view_underestimated>("kv_view_underestimated", "lookups", R::kAnyCount,
                                           "of those, believed prefix shorter than the real one"),
        Scalar<&P::kv_view_error_blocks>(
            "kv_view_error_blocks", "blocks", R::kAnyCount,
            "sum over those of the gap between believed and real prefix, in blocks"),
        Scalar<&P::mean_in_system>("mean_in_system", "requests", R::kNonNegative,
                                   "time-average requests in flight, warm-up to end of arrivals"),
        Scalar<&P::mean_held_kv_blocks>(
            "mean_held_kv_blocks", "blocks", R::kNonNegative,
            "time-average KV blocks held by running requests, per replica"),
        Scalar<&P::imbalance>("imbalance", "", R::kNonNegative,
                              "max / mean of requests dispatched per replica after warm-up "
                              "(disaggregated: over the decode pool)"),
        Scalar<&P::tenant_fairness>(
            "tenant_fairness", "", R::kShare,
            "Jain's index over every tenant's mean TTFT: 1 when all wait alike, 1/n at worst"),
        Scalar<&P::simulated_s>("simulated_s", "s", R::kNonNegative,
                                "simulated time at the end of the run"),
        Scalar<&P::events>("events", "events", R::kAnyCount, "events the simulation handled"),
    });

const std::array kTenants{
    Element<&P::tenants, &TenantLatency::tenant>(
        "tenant", "", R::kName,
        "tenant id, for the tenants with the most expected traffic; then \"other\" for the rest"),
    Element<&P::tenants, &TenantLatency::measured>("measured", "requests", R::kAnyCount,
                                                   "its requests that arrived after the warm-up"),
    Element<&P::tenants, &TenantLatency::ttft_p99>("ttft_p99_s", "s", R::kLatency,
                                                   "99th percentile TTFT of those requests"),
};

double SeriesHitRate(const P& p, size_t i) {
  return ShareOrNaN(p.series[i].hit_tokens, p.series[i].prompt_tokens);
}

const std::array kTimeSeries{
    Element<&P::series, &SeriesSample::start_s>("start_s", "s", R::kNonNegative,
                                                "start of the bucket, simulated time"),
    Element<&P::series, &SeriesSample::arrived>("arrived", "requests", R::kAnyCount,
                                                "requests that arrived in the bucket"),
    Element<&P::series, &SeriesSample::completed>("completed", "requests", R::kAnyCount,
                                                  "requests that finished in the bucket"),
    Element<&P::series, &SeriesSample::prompt_tokens>(
        "prompt_tokens", "tokens", R::kAnyCount,
        "prompt tokens of the requests that arrived in it, at first admission"),
    Element<&P::series, &SeriesSample::hit_tokens>("hit_tokens", "tokens", R::kAnyCount,
                                                   "their served KV hit tokens"),
    PointField{.name = "token_hit_rate",
               .unit = "",
               .type = FieldType::kReal,
               .range = R::kShare,
               .description = "hit_tokens / prompt_tokens (derived)",
               .real = SeriesHitRate},
    Element<&P::series, &SeriesSample::mean_waiting>(
        "mean_waiting", "requests", R::kNonNegative,
        "waiting requests per replica, mean over the bucket's instants and replicas"),
    Element<&P::series, &SeriesSample::max_waiting>(
        "max_waiting", "requests", R::kAnyCount,
        "most waiting requests on one replica at one instant of the bucket"),
    Element<&P::series, &SeriesSample::kv_utilization>(
        "kv_utilization", "", R::kShare,
        "used / capacity KV blocks, mean over the bucket's instants and replicas"),
    Element<&P::series, &SeriesSample::serving_replicas>(
        "serving_replicas", "replicas", R::kNonNegative,
        "replicas taking requests (not failed, not turned off by an autoscaler), mean over the "
        "bucket's instants"),
    Element<&P::series, &SeriesSample::billed_replicas>(
        "billed_replicas", "replicas", R::kNonNegative,
        "replicas billed (all but those an autoscaler turned off), mean over the bucket's time"),
    Element<&P::series, &SeriesSample::usd>("usd", "$", R::kNonNegative,
                                            "what the billed replicas cost in the bucket; NaN: "
                                            "no price"),
    Element<&P::series, &SeriesSample::failures>("failures", "failures", R::kAnyCount,
                                                 "replica failures in the bucket"),
    Element<&P::series, &SeriesSample::recoveries>("recoveries", "recoveries", R::kAnyCount,
                                                   "replica recoveries in the bucket"),
};

std::string DeploymentName(const P& p, size_t i) {
  size_t d = p.deployment_series[i].deployment;
  return d < p.deployment_names.size() ? p.deployment_names[d] : "";
}

double DeploymentShare(const P& p, size_t i) {
  return ShareOrNaN(p.deployment_series[i].requests, BucketRequests(p, i));
}

double DeploymentHitRate(const P& p, size_t i) {
  return ShareOrNaN(p.deployment_series[i].hit_tokens, p.deployment_series[i].prompt_tokens);
}

double ShareOfHitElsewhere(const P& p, size_t i) {
  return ShareOrNaN(p.deployment_series[i].hit_elsewhere_taken,
                    p.deployment_series[i].hit_elsewhere);
}

PointField DerivedReal(std::string_view name, std::string_view description,
                       double (*real)(const P&, size_t)) {
  return PointField{.name = name,
                    .unit = "",
                    .type = FieldType::kReal,
                    .range = R::kShare,
                    .description = description,
                    .real = real};
}

const std::array kDeploymentSeries{
    Element<&P::deployment_series, &DeploymentSample::start_s>(
        "start_s", "s", R::kNonNegative, "start of the bucket, simulated time"),
    Element<&P::deployment_series, &DeploymentSample::deployment>(
        "deployment", "", R::kSmallCount, "index of the deployment in cluster.deployments"),
    PointField{.name = "deployment_name",
               .unit = "",
               .type = FieldType::kText,
               .range = R::kName,
               .description = "its name",
               .text = DeploymentName},
    Element<&P::deployment_series, &DeploymentSample::requests>(
        "requests", "requests", R::kAnyCount,
        "requests that arrived in the bucket and were sent there (a retry counts again)"),
    DerivedReal("share", "requests / all deployments' requests of the bucket (derived)",
                DeploymentShare),
    Element<&P::deployment_series, &DeploymentSample::prompt_tokens>(
        "prompt_tokens", "tokens", R::kAnyCount, "their prompt tokens, at first admission"),
    Element<&P::deployment_series, &DeploymentSample::hit_tokens>(
        "hit_tokens", "tokens", R::kAnyCount, "their served KV hit tokens"),
    DerivedReal("token_hit_rate", "hit_tokens / prompt_tokens (derived)", DeploymentHitRate),
    Element<&P::deployment_series, &DeploymentSample::hit_elsewhere>(
        "hit_elsewhere", "requests", R::kAnyCount,
        "requests of the bucket wholly cached in another deployment (known with lambda_h > 0)"),
    Element<&P::deployment_series, &DeploymentSample::hit_elsewhere_taken>(
        "hit_elsewhere_taken", "requests", R::kAnyCount, "of those, the ones this deployment took"),
    DerivedReal("share_of_hit_elsewhere", "hit_elsewhere_taken / hit_elsewhere (derived)",
                ShareOfHitElsewhere),
    Element<&P::deployment_series, &DeploymentSample::cold_hit_elsewhere>(
        "cold_hit_elsewhere", "requests", R::kAnyCount,
        "requests wholly cached elsewhere with nothing cached here (seed 000's worked case)"),
    Element<&P::deployment_series, &DeploymentSample::cold_hit_elsewhere_taken>(
        "cold_hit_elsewhere_taken", "requests", R::kAnyCount,
        "of those, the ones this deployment took"),
};

const std::array kFleetChanges{
    Element<&P::fleet_changes, &FleetChange::at_s>("at_s", "s", R::kNonNegative,
                                                   "simulated time of the change"),
    Element<&P::fleet_changes, &FleetChange::deployment>(
        "deployment", "", R::kSmallCount, "index of the deployment in cluster.deployments"),
    Element<&P::fleet_changes, &FleetChange::requested>(
        "requested", "replicas", R::kSmallCount,
        "replicas serving or provisioning after the change"),
    Element<&P::fleet_changes, &FleetChange::serving>("serving", "replicas", R::kSmallCount,
                                                      "replicas taking requests after it"),
    Element<&P::fleet_changes, &FleetChange::billed>(
        "billed", "replicas", R::kSmallCount,
        "replicas billed after it (all but those turned off)"),
};

const PointTable kScalarTable{.name = "points",
                              .description = "one row per (policy, load, seed)",
                              .rows = [](const P&) -> size_t { return 1; },
                              .resize = [](P&, size_t) {},
                              .fields = kScalars};

const std::array kRowTables{
    PointTable{.name = "tenants",
               .description = "one row per (point, tracked tenant or \"other\")",
               .rows = [](const P& p) { return p.tenants.size(); },
               .resize = [](P& p, size_t n) { p.tenants.resize(n); },
               .fields = kTenants},
    PointTable{.name = "timeseries",
               .description = "one row per (point, bucket of cluster.series_interval_s); the "
                              "series spans the whole run, warm-up and drain included",
               .rows = [](const P& p) { return p.series.size(); },
               .resize = [](P& p, size_t n) { p.series.resize(n); },
               .fields = kTimeSeries},
    PointTable{.name = "deployment_series",
               .description = "one row per (point, bucket, deployment), for points with several "
                              "deployments; each bucket's deployments are next to one another",
               .rows = [](const P& p) { return p.deployment_series.size(); },
               .resize = [](P& p, size_t n) { p.deployment_series.resize(n); },
               .fields = kDeploymentSeries},
    PointTable{.name = "fleet_changes",
               .description = "one row per (point, change an autoscaler made to a deployment's "
                              "replicas), in time order; the first row of each autoscaled "
                              "deployment is its start",
               .rows = [](const P& p) { return p.fleet_changes.size(); },
               .resize = [](P& p, size_t n) { p.fleet_changes.resize(n); },
               .fields = kFleetChanges},
};

const std::array kDynamic{
    DynamicColumn{"slo<i>_value_s", "s", FieldType::kReal, R::kLatency,
                  "SLO i's metric at its percentile (the `/slos` row with index i)"},
    DynamicColumn{"<policy statistic>", "", FieldType::kReal, R::kAnyReal,
                  "each statistic a policy reports (e.g. `plan_admitted_keys`); NaN in the rows "
                  "of policies without it; with several deployments prefixed by the deployment's "
                  "name; also the autoscalers' `autoscale.*` and cluster.disaggregation's "
                  "`disaggregation.*` (docs/DISAGGREGATION.md)"},
};

}  // namespace

const PointTable& PointScalars() { return kScalarTable; }

std::span<const PointTable> PointRowTables() { return kRowTables; }

std::span<const DynamicColumn> PointDynamicColumns() { return kDynamic; }

std::string SloValueColumn(size_t index) { return "slo" + std::to_string(index) + "_value_s"; }

bool IsPointMetricColumn(std::string_view name) {
  for (const PointField& f : kScalars) {
    if (f.name == name) return true;
  }
  // slo<digits>_value_s
  constexpr std::string_view kPrefix = "slo", kSuffix = "_value_s";
  if (name.size() <= kPrefix.size() + kSuffix.size() || !name.starts_with(kPrefix) ||
      !name.ends_with(kSuffix)) {
    return false;
  }
  std::string_view digits =
      name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  size_t index = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  return ec == std::errc() && end == digits.data() + digits.size();
}

}  // namespace kvroute::analysis
