// What happened to one request, as the simulation ends with it: for analyses
// that need more than a point's aggregates (the replay of measured runs, and
// per-request output).
#ifndef KVROUTE_ANALYSIS_REQUEST_RECORD_H_
#define KVROUTE_ANALYSIS_REQUEST_RECORD_H_

#include <cstdint>
#include <limits>

#include "sim/core/time.h"

namespace kvroute::analysis {

struct RequestRecord {
  enum class Outcome { kCompleted, kRejected, kFailed, kUnfinished };
  Outcome outcome = Outcome::kCompleted;
  uint64_t id = 0;
  uint32_t stage = 0;            // load stage (0 without stages)
  uint32_t client = UINT32_MAX;  // closed-loop client, or UINT32_MAX
  uint32_t key = 0;              // routing key
  uint32_t tenant = 0;
  uint64_t session = 0;
  sim::Time arrival = 0;                // reached the router
  sim::Time admitted = sim::kNever;     // first scheduled on its replica
  sim::Time first_token = sim::kNever;  // as the client sees it
  sim::Time completed = sim::kNever;    // as the client sees it
  uint32_t replica = 0;                 // the last replica it was routed to
  uint32_t prompt_tokens = 0;
  uint32_t output_tokens = 0;
  uint32_t hit_tokens = 0;       // served from the prefix cache at first admission
  uint32_t host_hit_tokens = 0;  // of those, loaded from the host DRAM tier
  uint32_t ssd_hit_tokens = 0;   // of those, read from the local-SSD tier
  uint32_t preemptions = 0;
  uint32_t retries = 0;
  // Disaggregated and prefilled on a prefill replica (its last attempt):
  // that replica, and when its KV left it and reached `replica`.
  uint32_t prefill_replica = UINT32_MAX;  // UINT32_MAX: prefilled where it decoded
  sim::Time kv_sent = sim::kNever;
  sim::Time kv_arrived = sim::kNever;
  // Why the policy chose `replica` inside its deployment: a static string
  // from the policy's vocabulary (null: none) and its score (NaN: none).
  const char* route_reason = nullptr;
  double route_score = std::numeric_limits<double>::quiet_NaN();
};

// Receives a record for every request once it is done with: completed,
// rejected, failed, or still in flight when the run stops.
class RequestRecorder {
 public:
  virtual ~RequestRecorder() = default;
  virtual void OnRequest(const RequestRecord& record) = 0;
};

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_REQUEST_RECORD_H_
