// `cluster.disaggregation` and the deployments' roles and own profiles: what
// must hold between deployments once each is read (pd_router.h).
#include <utility>

#include "sim/runner/scenario_loader_internal.h"

namespace kvroute::sim::scenario {
namespace {

const ChoiceTable<DisaggregationSpec::Decider>& Deciders() {
  using D = DisaggregationSpec::Decider;
  static const ChoiceTable<D> table(
      "decider",
      {{"always", D::kAlways}, {"threshold", D::kThreshold}, {"decode_first", D::kDecodeFirst}});
  return table;
}

// The deployments list's entry i, for errors found after it was read.
YAML::Node DeploymentNode(const YamlMap& cluster, size_t i, const char* key) {
  YAML::Node entry = YamlAt(cluster.node(), "deployments")[i];
  YAML::Node at = YamlAt(entry, key);
  return at.IsDefined() ? at : entry;
}

std::string DeploymentPath(const YamlMap& cluster, size_t i, const char* key) {
  return cluster.Child("deployments") + "[" + std::to_string(i) + "]." + key;
}

}  // namespace

const ChoiceTable<DeploymentRole>& DeploymentRoles() {
  static const ChoiceTable<DeploymentRole> table("deployment role",
                                                 {{"serve", DeploymentRole::kServe},
                                                  {"prefill", DeploymentRole::kPrefill},
                                                  {"decode", DeploymentRole::kDecode}});
  return table;
}

const ChoiceTable<DisaggregationSpec::Decider>& DisaggregationDeciders() { return Deciders(); }

const YamlKeyTable& DisaggregationKeys() {
  static const DisaggregationSpec d;
  static const YamlKeyTable table{
      "cluster.disaggregation",
      {ChoiceKey("decider", Deciders().names(), Deciders().NameOf(d.decider),
                 "which prompts the prefill pool computes: all; those the decode replica lacks "
                 ">= threshold_tokens of (llm-d); those it lacks a full block of"),
       IntegerKey("threshold_tokens", 0, 1, UINT32_MAX,
                  "uncached prompt tokens on the decode replica that send a prompt to the "
                  "prefill pool (llm-d's nonCachedTokens)")
           .When("decider: threshold")
           .Required(),
       NumberKey("link_gb_per_s", d.link_gb_per_s, 1e-6, 1e6,
                 "KV transfer bandwidth per GPU, GB/s (a 400 Gb/s NDR port: an assumption)"),
       NumberKey("link_latency_us", d.link_latency_us, 0, 1e9,
                 "fixed cost of one KV transfer, us (an assumption)")}};
  return table;
}

void ParseDisaggregation(YamlMap& cluster, Scenario* s) {
  size_t prefill = 0, decode = 0;
  for (const DeploymentSpec& d : s->deployments) {
    prefill += d.role == DeploymentRole::kPrefill;
    decode += d.role == DeploymentRole::kDecode;
  }
  if (!cluster.Take("disaggregation").IsDefined()) {
    for (size_t i = 0; i < s->deployments.size(); ++i) {
      if (s->deployments[i].role == DeploymentRole::kServe) continue;
      cluster.FailAt(DeploymentNode(cluster, i, "role"), DeploymentPath(cluster, i, "role"),
                     "a prefill or decode role needs cluster.disaggregation");
    }
    return;
  }
  YamlMap m = cluster.Map("disaggregation", &DisaggregationKeys());
  DisaggregationSpec& spec = s->disaggregation;
  spec.enabled = true;
  spec.decider = m.Choice("decider", Deciders());
  if (spec.decider == DisaggregationSpec::Decider::kThreshold) {
    spec.threshold_tokens = static_cast<uint32_t>(m.Integer("threshold_tokens"));
  } else if (YamlAt(m.node(), "threshold_tokens").IsDefined()) {
    m.Fail("threshold_tokens", "only the threshold decider has a threshold");
  } else {
    m.Take("threshold_tokens");
  }
  spec.link_gb_per_s = m.Number("link_gb_per_s");
  spec.link_latency_us = m.Number("link_latency_us");
  m.Finish();
  // Two routing pools, one of each role (checked with the pools below): here,
  // that every deployment has a role and both roles are there.
  if (prefill == 0 || decode == 0 || prefill + decode != s->deployments.size()) {
    cluster.Fail("disaggregation",
                 "a disaggregated cluster's deployments each have role: prefill or role: "
                 "decode, and both roles are present (found " +
                     std::to_string(s->deployments.size()) + " deployments, " +
                     std::to_string(prefill) + " prefill, " + std::to_string(decode) + " decode)");
  }
  for (size_t i = 0; i < s->deployments.size(); ++i) {
    const DeploymentSpec& d = s->deployments[i];
    // Every request passes through both pools: weights have nothing to split.
    if (d.weight != 1 || !d.schedule.empty()) {
      const char* key = d.schedule.empty() ? "weight" : "schedule";
      cluster.FailAt(DeploymentNode(cluster, i, key), DeploymentPath(cluster, i, key),
                     "a disaggregated cluster sends every request through both pools; weights "
                     "and their schedules split traffic between serving deployments");
    }
  }
  for (const auto& [key, value] : {std::pair{"lambda_h", s->lambda_h}, {"lambda_q", s->lambda_q}}) {
    if (value != 0) {
      cluster.Fail(key, "chooses between serving deployments; a disaggregated cluster has none");
    }
  }
}

void CheckPools(const YamlMap& cluster, const Scenario& s) {
  const std::vector<RoutingPool> pools = s.Pools();
  for (size_t p = 0; p < pools.size(); ++p) {
    const RoutingPool& pool = pools[p];
    const uint32_t last = pool.first + pool.count - 1;
    for (size_t q = 0; q < p; ++q) {
      if (pools[q].name != pool.name) continue;
      cluster.FailAt(DeploymentNode(cluster, pool.first, "pool"),
                     DeploymentPath(cluster, pool.first, "pool"),
                     "pool '" + pool.name +
                         "' is split: the deployments of a pool must be listed next to each other");
    }
    // Disaggregated, the prefill pool and the decode pool: several
    // deployments (GPU kinds) may form either, all of its role.
    for (uint32_t d = pool.first + 1; s.disaggregation.enabled && d <= last; ++d) {
      if (s.deployments[d].role == s.deployments[pool.first].role) continue;
      cluster.FailAt(DeploymentNode(cluster, d, "role"), DeploymentPath(cluster, d, "role"),
                     "pool '" + pool.name +
                         "' mixes roles: a pool is either the prefill pool or "
                         "the decode pool");
    }
    if (pool.count == 1) continue;
    // One policy routes the pool: at most one of its deployments names it.
    uint32_t named = UINT32_MAX;
    for (uint32_t d = pool.first; d <= last; ++d) {
      if (!s.deployments[d].policy) continue;
      if (named != UINT32_MAX) {
        cluster.FailAt(DeploymentNode(cluster, d, "policy"), DeploymentPath(cluster, d, "policy"),
                       "pool '" + pool.name + "' is routed by one policy, already given by " +
                           s.deployments[named].name);
      }
      named = d;
    }
  }
  if (s.disaggregation.enabled && pools.size() != 2) {
    cluster.Fail("disaggregation",
                 "a disaggregated cluster has two routing pools, the prefill pool and the decode "
                 "pool (found " +
                     std::to_string(pools.size()) +
                     "): give the deployments of each role one `pool` name, listed together");
  }
}

void CheckDeploymentProfiles(const YamlMap& cluster, const Scenario& s) {
  const int block = s.resolved_profile.ResolvedEngine().block_size_tokens;
  for (size_t i = 0; i < s.deployments.size(); ++i) {
    const DeploymentSpec& d = s.deployments[i];
    if (!d.profile) continue;
    const YAML::Node at = DeploymentNode(cluster, i, "profile");
    const std::string path = DeploymentPath(cluster, i, "profile");
    const int own = d.profile->ResolvedEngine().block_size_tokens;
    if (own != block) {
      cluster.FailAt(at, path,
                     "has KV blocks of " + std::to_string(own) + " tokens, cluster.profile of " +
                         std::to_string(block) +
                         ": prefix hashes are per block, so every deployment needs the same size "
                         "(set cluster.engine.block_size_tokens)");
    }
    if (s.kv_blocks == 0 && d.profile->KvCapacityBlocks() <= 0) {
      cluster.FailAt(at, path,
                     "profile '" + d.profile->name +
                         "' leaves no room for the KV cache (`kvroute validate` on a scenario "
                         "with it as cluster.profile shows the memory budget)");
    }
    if (s.kv_tiers.dram_gib > 0) {
      cluster.FailAt(at, path,
                     "cluster.kv_tiers is sized for cluster.profile; deployments with their own "
                     "profile and a host tier together are not modelled yet");
    }
  }
}

}  // namespace kvroute::sim::scenario
