// Replays a trace as a request source. Arrival times are the trace's, scaled so
// that the trace's mean rate becomes the load's QPS (the same requests at every
// load, as for synthetic arrivals). Block ids (Mooncake's 512 tokens each,
// kvroute's format block_tokens) become the prompt's segments, so blocks of
// any size share exactly when the trace's blocks do; Azure and BurstGPT
// prompts share nothing.
#ifndef KVROUTE_MODELS_TRACE_REPLAY_H_
#define KVROUTE_MODELS_TRACE_REPLAY_H_

#include <memory>
#include <vector>

#include "models/prompt_blocks.h"
#include "models/request_source.h"
#include "models/trace_reader.h"
#include "sim/core/time.h"

namespace kvroute::models {

class TraceReplay : public RequestSource {
 public:
  // REQUIRES: trace has at least one record. With `loop`, pass p replays the
  // trace again one trace period later, with block ids salted by p.
  TraceReplay(std::shared_ptr<const Trace> trace, bool loop, double qps, sim::Time end,
              uint32_t block_size);

  bool Next(Request* out) override;
  const std::vector<double>& key_shares() const override { return shares_; }
  std::span<const PromptSegment> segments() const override { return segments_; }
  // The trace's tenants where it names them, else each key is a tenant.
  std::vector<double> tenant_shares() const override { return tenant_shares_; }

  // Requests per second of the trace as recorded: n over (span + one mean gap).
  double native_qps() const { return native_qps_; }

  const Trace& trace() const { return *trace_; }
  bool loop() const { return loop_; }
  // When record `index` of pass `pass` arrives in this replay (its scaled
  // timestamp), or kNever from the end on.
  sim::Time ArrivalOf(uint64_t pass, size_t index) const;

 private:
  std::shared_ptr<const Trace> trace_;
  bool loop_;
  sim::Time end_;
  double native_qps_ = 1;
  double period_s_ = 1;  // one pass, in trace seconds
  double scale_ = 1;     // simulated seconds per trace second
  std::vector<double> shares_, tenant_shares_;
  size_t index_ = 0;
  uint64_t pass_ = 0, next_id_ = 0;
  std::vector<PromptSegment> segments_;
  std::shared_ptr<SequenceHasher> hasher_;  // shared with the requests it has yet to hash
};

// Appends the segments of record `r` of pass `pass` to `out` (cleared first).
void TraceSegments(const Trace& trace, const TraceRecord& r, uint64_t pass,
                   std::vector<PromptSegment>* out);

// Record `index` of pass `pass` as request `out`, whose id is set: its key,
// tenant, session and lengths, and its prompt's segments in `segments`.
// Returns its output, a segment of its own (the trace does not say what was
// generated: cached, it takes room, but no later prompt hits it).
PromptSegment TraceRequest(const Trace& trace, size_t index, uint64_t pass, Request* out,
                           std::vector<PromptSegment>* segments);

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_TRACE_REPLAY_H_
