// Shared by the scenario loader's files, one per section of the scenario
// (cluster, workload, arrivals, trace, policies, sweep and SLOs, failures):
// each declares the keys of its maps in YamlKeyTables, whose defaults come
// from the structs of scenario.h, and parses its section through YamlMap.
// Not part of the loader's interface.
#ifndef KVROUTE_SIM_RUNNER_SCENARIO_LOADER_INTERNAL_H_
#define KVROUTE_SIM_RUNNER_SCENARIO_LOADER_INTERNAL_H_

#include <filesystem>
#include <string>
#include <vector>

#include "analysis/slo.h"
#include "models/client_arrivals.h"
#include "models/engine.h"
#include "models/length_distribution.h"
#include "models/trace_reader.h"
#include "sim/core/choice_table.h"
#include "sim/core/yaml_map.h"
#include "sim/runner/scenario.h"

namespace kvroute::sim::scenario {

// Resolves a path written in the scenario: relative to the scenario file's
// directory, or to the working directory for a path given with --set (as a
// shell path is) and for a scenario that is not a file.
std::string ResolvePath(const YamlMap& map, const std::string& key, const std::string& written,
                        const std::filesystem::path& base_dir);

// The directory paths are resolved against for the document being read.
struct LoadContext {
  std::filesystem::path base_dir;  // absolute
};

// Sections, in document order. Each takes its map from `top`.
void ParseTopLevel(YamlMap& top, Scenario* s);
void ParseCluster(YamlMap& top, const LoadContext& ctx, Scenario* s);
// cluster.engine over the profile's engine settings; sets the scheduler.
void ParseEngine(YamlMap& cluster, Scenario* s);
// cluster.kv_events, when given.
void ParseKvEvents(YamlMap& cluster, Scenario* s);
// cluster.kv_tiers, after the engine (the block size): sets scheduler.kv_tier.
void ParseKvTiers(YamlMap& cluster, Scenario* s);
// cluster.disaggregation, or none, checked against the deployments' roles.
void ParseDisaggregation(YamlMap& cluster, Scenario* s);
// The deployments' routing pools: adjacent, one policy each; after
// cluster.disaggregation.
void CheckPools(const YamlMap& cluster, const Scenario& s);
// The deployments' own profiles against the cluster's, after the engine and
// the KV settings are read.
void CheckDeploymentProfiles(const YamlMap& cluster, const Scenario& s);
// Returns the trace's own rate when a trace is replayed at native timing, else 0.
double ParseWorkload(YamlMap& top, const LoadContext& ctx, Scenario* s);
void ParseArrivals(YamlMap& workload, const LoadContext& ctx, models::WorkloadConfig* c);
void ParseLoadSchedule(YamlMap& workload, models::WorkloadConfig* c);
void ParseDrift(YamlMap& workload, models::WorkloadConfig* c);
double ParseTrace(YamlMap& workload, const LoadContext& ctx, models::WorkloadConfig* c);
void ParsePolicies(YamlMap& top, Scenario* s);
PolicySpec ParsePolicyEntry(const YamlMap& parent, const YAML::Node& entry,
                            const std::string& path);
void ParseSweep(YamlMap& top, Scenario* s, double native_qps);
void ParseSlos(YamlMap& top, Scenario* s);
void ParseFailures(YamlMap& top, Scenario* s);

// workload.clients (scenario_loader_clients.cc), REQUIRES: present; fails on
// the workload keys the clients replace.
void ParseClients(YamlMap& workload, const LoadContext& ctx, double duration_s,
                  models::WorkloadConfig* c);

// workload.shared_prefix (scenario_loader_shared_prefix.cc).
void ParseSharedPrefix(YamlMap& w, const LoadContext& ctx, models::WorkloadConfig* c);

// A length distribution: a number (fixed) or {kind, ...}; an empirical
// distribution's file is relative to ctx.base_dir.
models::LengthDistribution ParseLength(const YamlMap& parent, const YAML::Node& node,
                                       const std::string& path, const LoadContext& ctx);

// The names of every enum key, for reading and printing.
enum class CostModelKind { kRoofline, kFixed };
const ChoiceTable<CostModelKind>& CostModelKinds();
const ChoiceTable<models::EvictionOrder>& EvictionOrders();
const ChoiceTable<models::OffloadRule>& OffloadRules();
const ChoiceTable<models::EntryPoint>& EntryPoints();
const ChoiceTable<Scenario::HitEstimate>& HitEstimates();
const ChoiceTable<DeploymentRole>& DeploymentRoles();
const ChoiceTable<DisaggregationSpec::Decider>& DisaggregationDeciders();
const ChoiceTable<models::KeyRateConfig::Kind>& RateSkewKinds();
const ChoiceTable<models::ArrivalConfig::Kind>& ArrivalKinds();
const ChoiceTable<models::ClientsConfig::Aggregate>& ClientAggregates();
const ChoiceTable<models::LengthDistribution::Kind>& LengthKinds();
const ChoiceTable<bool>& SessionPacings();  // false: open loop
const ChoiceTable<models::TraceConfig::Timing>& TraceTimings();
const ChoiceTable<analysis::LatencyMetric>& SloMetrics();
const ChoiceTable<AutoscaleSpec::Signal>& AutoscaleSignals();
const ChoiceTable<ScalingSelect>& ScalingSelects();
const ChoiceTable<ScalingPolicy::Type>& ScalingPolicyTypes();

// cluster.deployments[i].autoscale, taken from `deployment` (REQUIRES: present).
AutoscaleSpec ParseAutoscale(YamlMap& deployment, uint32_t max_replicas);

// The key tables of each section, for the docs (scenario_loader_keys.cc).
const YamlKeyTable& TopLevelKeys();
const YamlKeyTable& ClusterKeys();
const YamlKeyTable& DeploymentKeys();
const YamlKeyTable& WeightStepKeys();
const YamlKeyTable& AutoscaleKeys();
const YamlKeyTable& ReplicaStepKeys();
const YamlKeyTable& ScalingPolicyKeys();
const YamlKeyTable& EngineKeys();
const YamlKeyTable& CostModelKeys();
const YamlKeyTable& KvEventsKeys();
const YamlKeyTable& KvTierKeys();
const YamlKeyTable& DisaggregationKeys();
const YamlKeyTable& WorkloadKeys();
const YamlKeyTable& RateSkewKeys();
const YamlKeyTable& PromptKeys();
const YamlKeyTable& RagKeys();
const YamlKeyTable& SessionKeys();
const YamlKeyTable& AgentKeys();
const YamlKeyTable& ArrivalKeys();
const YamlKeyTable& LoadStepKeys();
const YamlKeyTable& DriftKeys();
const YamlKeyTable& ClientsKeys();
const YamlKeyTable& TraceKeys();
const YamlKeyTable& SharedPrefixKeys();
const YamlKeyTable& InferencePerfDistributionKeys();
const ChoiceTable<models::InferencePerfLength::Type>& InferencePerfDistributionTypes();
const YamlKeyTable& PolicyEntryKeys();
const YamlKeyTable& SweepKeys();
const YamlKeyTable& SloKeys();
const YamlKeyTable& FailureKeys();
const YamlKeyTable& FailureEventKeys();
const YamlKeyTable& LengthKeys();

}  // namespace kvroute::sim::scenario

#endif  // KVROUTE_SIM_RUNNER_SCENARIO_LOADER_INTERNAL_H_
