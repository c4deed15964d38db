// Request traces read from disk: Mooncake JSONL (FAST'25 release: timestamp in
// ms, input_length, output_length, hash_ids of 512-token prefix blocks, and
// the session_id of Mooncake-style replay files), the Azure LLM inference CSV
// (Splitwise, ISCA'24: TIMESTAMP, ContextTokens, GeneratedTokens; no prefix
// information), BurstGPT's CSV (Wang et al., KDD'25: Timestamp, Model, Request
// tokens, Response tokens, ...) and kvroute's own CSV/JSONL for users' logs
// (docs/WORKLOADS.md: time_s, prompt_tokens, output_tokens, session, tenant,
// key, hash_ids). `auto` tells them apart by their first line.
#ifndef KVROUTE_MODELS_TRACE_READER_H_
#define KVROUTE_MODELS_TRACE_READER_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/choice_table.h"

namespace kvroute::models {

struct TraceConfig {
  enum class Format { kNone, kAuto, kMooncake, kAzure, kBurstGpt, kKvroute };
  Format format = Format::kNone;  // kNone: no trace, the synthetic workload runs
  std::string file;
  bool loop = false;   // replay again after the last request, without shared prefixes
  uint64_t skip = 0;   // leading requests dropped
  uint64_t limit = 0;  // requests kept after `skip`; 0: all
  // Mooncake: a request's key is its first `key_blocks` block ids (the
  // conversation trace's first block is one system prompt shared by all).
  uint32_t key_blocks = 2;
  // kvroute format: tokens per hash id (vLLM's default block size).
  uint32_t block_tokens = 16;
  // kScaled: timestamps scaled so that the trace's mean rate is the load;
  // kNative: the trace's own timestamps, so its own rate is the only load.
  enum class Timing { kScaled, kNative };
  Timing timing = Timing::kScaled;
  // Each session's turns closed loop (models/trace_sessions.h): a turn goes
  // out no earlier than the previous turn's response; else at its timestamp.
  bool closed_loop = false;
};

inline constexpr uint32_t kMooncakeBlockTokens = 512;

struct TraceRecord {
  static constexpr uint64_t kNoSession = UINT64_MAX;
  int64_t time_ns = 0;  // since the first kept request
  uint32_t input_tokens = 0;
  uint32_t output_tokens = 0;
  uint32_t key = 0;
  uint32_t tenant = 0;                      // when Trace::tenants > 0; else the key
  uint64_t session = kNoSession;            // dense ids in order of first appearance
  uint32_t hash_begin = 0, hash_count = 0;  // into Trace::hash_ids (Mooncake only)
  // Mooncake `delay`: sent this long after its session's previous response
  // (closed-loop replay only; time_ns is then the previous turn's plus the
  // delay); -1: sent at time_ns.
  int64_t delay_ns = -1;
};

struct Trace {
  std::string source;
  TraceConfig::Format format = TraceConfig::Format::kNone;  // as read (never kAuto)
  std::vector<TraceRecord> records;                         // in arrival order
  std::vector<uint64_t> hash_ids;
  // Keys: Mooncake requests are keyed by their first key_blocks block ids;
  // Azure requests have no prefix
  // information, so each is its own key.
  uint32_t keys = 0;
  uint32_t tenants = 0;                          // 0: a request's tenant is its key
  uint32_t block_tokens = kMooncakeBlockTokens;  // tokens per hash id
};

class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads `config.file` in `config.format`, keeping the configured subset.
// Throws TraceError naming the file, the line and the field at fault: a file
// that is not a regular file or is too large (sim/core/input_file.h), a field
// missing or given twice, a token count of 0, a timestamp out of order or
// beyond the int64-nanosecond clock, a date that does not exist.
Trace ReadTrace(const TraceConfig& config);

// One pass of the trace in seconds: its span plus one mean gap (1 s for a
// single request), the offset of the next pass when it loops.
// REQUIRES: at least one record.
double TracePeriod(const Trace& trace);

// Requests per second of the trace as recorded: n / TracePeriod.
double NativeQps(const Trace& trace);

// Mooncake only: the share of the trace's block ids that appeared in an
// earlier request — the trace's own 512-token block hit rate with an
// infinite cache (0 for traces without block ids).
double NativeBlockHitRate(const Trace& trace);

// The formats by name: "auto", "mooncake", "azure", "burstgpt", "kvroute".
const sim::ChoiceTable<TraceConfig::Format>& TraceFormats();

// kAuto for *.jsonl and *.csv (ReadTrace tells them apart by content),
// kNone otherwise.
TraceConfig::Format GuessTraceFormat(const std::string& path);

// The format of the trace at `path` from its first non-blank line: a JSON
// object with "time_s" is kvroute's, any other JSON line Mooncake's; a CSV
// header naming ContextTokens is Azure's, Request tokens BurstGPT's, time_s
// kvroute's. Throws TraceError naming the file and line otherwise.
TraceConfig::Format DetectTraceFormat(const std::string& path);

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_TRACE_READER_H_
