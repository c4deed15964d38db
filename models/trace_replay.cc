#include "models/trace_replay.h"

#include <algorithm>

#include "sim/core/hashing.h"

namespace kvroute::models {
namespace {

constexpr uint64_t kTraceBlockSalt = 0x5452414345424c4bULL;
constexpr uint64_t kTraceUniqueSalt = 0x5452414345554e51ULL;
constexpr uint64_t kTraceOutputSalt = 0x54524143454f5554ULL;

}  // namespace

void TraceSegments(const Trace& trace, const TraceRecord& r, uint64_t pass,
                   std::vector<PromptSegment>* out) {
  out->clear();
  uint64_t pass_salt = sim::Combine(kTraceBlockSalt, pass);
  uint32_t covered = 0;
  for (uint32_t j = 0; j < r.hash_count && covered < r.input_tokens; ++j) {
    uint32_t tokens = std::min(trace.block_tokens, r.input_tokens - covered);
    out->push_back({sim::Combine(pass_salt, trace.hash_ids[r.hash_begin + j]), tokens});
    covered += tokens;
  }
  if (covered < r.input_tokens) {
    // Tokens the trace gives no block id for (all of an Azure prompt) are this
    // request's own.
    uint64_t own = sim::Combine(sim::Combine(kTraceUniqueSalt, pass),
                                static_cast<uint64_t>(&r - trace.records.data()));
    out->push_back({own, r.input_tokens - covered});
  }
}

TraceReplay::TraceReplay(std::shared_ptr<const Trace> trace, bool loop, double qps, sim::Time end,
                         uint32_t block_size)
    : trace_(std::move(trace)),
      loop_(loop),
      end_(end),
      hasher_(std::make_shared<SequenceHasher>(block_size)) {
  const auto& records = trace_->records;
  size_t n = records.size();
  period_s_ = TracePeriod(*trace_);
  native_qps_ = static_cast<double>(n) / period_s_;
  scale_ = native_qps_ / qps;
  shares_.assign(trace_->keys, 0.0);
  for (const TraceRecord& r : records) shares_[r.key] += 1.0 / static_cast<double>(n);
  if (trace_->tenants > 0) {
    tenant_shares_.assign(trace_->tenants, 0.0);
    for (const TraceRecord& r : records) tenant_shares_[r.tenant] += 1.0 / static_cast<double>(n);
  } else {
    tenant_shares_ = shares_;
  }
}

sim::Time TraceReplay::ArrivalOf(uint64_t pass, size_t index) const {
  const double trace_s =
      static_cast<double>(pass) * period_s_ + sim::ToSeconds(trace_->records[index].time_ns);
  // Compared before the conversion, which past the end could overflow the clock.
  if (!(trace_s * scale_ * 1e9 < static_cast<double>(end_))) return sim::kNever;
  return sim::FromSeconds(trace_s * scale_);
}

PromptSegment TraceRequest(const Trace& trace, size_t index, uint64_t pass, Request* out,
                           std::vector<PromptSegment>* segments) {
  const TraceRecord& r = trace.records[index];
  out->key = r.key;
  out->tenant = trace.tenants > 0 ? r.tenant : r.key;
  // A request without a session is a session of its own; the trace's named
  // sessions are numbered apart from those ids.
  constexpr uint64_t kNamed = uint64_t{1} << 63;
  out->session = r.session != TraceRecord::kNoSession ? kNamed | r.session : out->id;
  out->prompt_tokens = std::max<uint32_t>(1, r.input_tokens);
  out->output_tokens = std::max<uint32_t>(1, r.output_tokens);
  TraceSegments(trace, r, pass, segments);
  if (segments->empty()) segments->push_back({sim::Combine(kTraceUniqueSalt, out->id), 1});
  return {sim::Combine(sim::Combine(kTraceOutputSalt, pass), index), out->output_tokens};
}

bool TraceReplay::Next(Request* out) {
  if (index_ == trace_->records.size()) {
    if (!loop_) return false;
    index_ = 0;
    ++pass_;
  }
  const sim::Time arrival = ArrivalOf(pass_, index_);
  if (arrival == sim::kNever) return false;
  out->id = next_id_++;
  out->arrival = arrival;
  const PromptSegment output = TraceRequest(*trace_, index_++, pass_, out, &segments_);
  out->hashes.HashLater(hasher_, segments_, output);
  return true;
}

}  // namespace kvroute::models
