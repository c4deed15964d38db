// The live load signals of one replica, as the router sees them (DESIGN.md,
// "Policy": a read-only view of the cluster). The replica keeps them current.
#ifndef KVROUTE_MODELS_REPLICA_LOAD_H_
#define KVROUTE_MODELS_REPLICA_LOAD_H_

#include <cstdint>

namespace kvroute::models {

struct ReplicaLoad {
  uint32_t waiting = 0;        // requests queued, not yet admitted
  uint32_t running = 0;        // requests admitted (prefilling or decoding)
  int64_t prefill_tokens = 0;  // prompt tokens still to compute; a waiting
                               // request counts its whole prompt until its
                               // cache hit is known at admission
  int64_t decode_tokens = 0;   // output tokens still to generate
  double kv_utilization = 0;   // used KV blocks / capacity
  bool healthy = true;

  // The walking skeleton's "outstanding work": tokens the replica still owes.
  int64_t outstanding_tokens() const { return prefill_tokens + decode_tokens; }
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_REPLICA_LOAD_H_
