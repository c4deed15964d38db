// A scenario as run: cluster, workload, policies, load sweep and SLOs
// (DESIGN.md, "Scenario YAML"). Plain structs with defaults; YAML is parsed into
// them in one place, scenario_loader.cc.
#ifndef KVROUTE_SIM_RUNNER_SCENARIO_H_
#define KVROUTE_SIM_RUNNER_SCENARIO_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/slo.h"
#include "models/replica.h"
#include "models/workload.h"
#include "policies/registry.h"

namespace kvroute::sim {

struct DeploymentSpec {
  std::string name = "main";
  uint32_t replicas = 1;
  double weight = 1;
};

struct PolicySpec {
  std::string name;
  std::vector<policies::ParamValue> params;  // as given; defaults fill the rest
  std::string where;                         // file:line of the entry
};

struct Scenario {
  std::string name;
  std::string source;       // the file it came from, or "built-in quickstart"
  std::string yaml;         // the full scenario text as run, overrides applied
  uint64_t seed = 1;        // first paired seed; the others follow it
  uint32_t seeds = 1;       // paired seeds
  double duration_s = 300;  // arrivals stop here
  double warmup_s = 30;     // requests arriving earlier are not measured
  double drain_s = 120;     // after duration_s, how long in-flight work may finish

  std::string profile = "h100-llama3.1-8b-bf16";
  std::vector<DeploymentSpec> deployments;
  models::SchedulerConfig scheduler;
  int64_t kv_blocks = 0;  // 0: derived from the profile
  // How often the router's copy of the load signals is refreshed, seconds;
  // 0 means policies see live signals. Real routers poll (SGLang every 10 s).
  double signal_refresh_s = 0;

  models::WorkloadConfig workload;
  std::vector<PolicySpec> policies;
  std::vector<double> qps;   // the load grid, ascending
  double reference_qps = 0;  // common load for the table; 0 means the middle of the grid
  std::vector<analysis::Slo> slos;

  uint32_t replica_count() const {
    uint32_t n = 0;
    for (const DeploymentSpec& d : deployments) n += d.replicas;
    return n;
  }
  std::vector<uint64_t> SeedList() const;
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_SCENARIO_H_
