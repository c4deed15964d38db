// Where a simulation's requests come from: a synthetic workload or a replayed
// trace. The stream depends only on the workload configuration and the seed,
// never on the policy or on what the simulation did with earlier requests.
#ifndef KVROUTE_MODELS_REQUEST_SOURCE_H_
#define KVROUTE_MODELS_REQUEST_SOURCE_H_

#include <memory>
#include <span>
#include <vector>

#include "models/prompt_blocks.h"
#include "models/request.h"
#include "sim/core/time.h"

namespace kvroute::models {

class RequestSource {
 public:
  virtual ~RequestSource() = default;

  // Fills `out` with the next request in arrival order and returns true, or
  // returns false when there is none before the end. Reuses the storage of
  // out->hashes.
  virtual bool Next(Request* out) = 0;

  // The expected share of requests of each key (sums to 1): the planner's
  // per-key rates are these times the load.
  virtual const std::vector<double>& key_shares() const = 0;

  // Each key's expected request rate at simulated time t per unit of the
  // load's QPS (key_shares() when the rates never change): what a planner
  // told the workload's true current rates would see.
  virtual void KeyLoadAt(sim::Time /*t*/, std::vector<double>* out) const { *out = key_shares(); }

  // The segments of the prompt Next() last returned (its hashes.prompt() are
  // their full blocks), valid until the next call; empty when not known.
  virtual std::span<const PromptSegment> segments() const { return {}; }

  // The expected share of requests of each tenant (Request::tenant), indexed
  // by tenant id: what the per-tenant metrics track the busiest of.
  virtual std::vector<double> tenant_shares() const = 0;
};

struct WorkloadConfig;
class TraceReplay;

// The synthetic workload, or the replay of config.trace when one is set.
// Closed-loop sessions come as an instant cluster would see them (SessionSource),
// and so do a trace's (its open-loop replay).
// Throws TraceError for an unreadable trace, std::invalid_argument for an
// unreachable rate target.
std::unique_ptr<RequestSource> MakeRequestSource(const WorkloadConfig& config, uint64_t seed,
                                                 double qps, sim::Time end);

// The replay of config.trace (REQUIRES: one is set) at `qps` until `end`.
// Throws as MakeRequestSource does.
std::unique_ptr<TraceReplay> MakeTraceReplay(const WorkloadConfig& config, double qps,
                                             sim::Time end);

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_REQUEST_SOURCE_H_
