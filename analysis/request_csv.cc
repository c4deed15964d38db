#include "analysis/request_csv.h"

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "analysis/atomic_file.h"

namespace kvroute::analysis {
namespace {

constexpr size_t kFlushBytes = 1 << 16;

void Integer(uint64_t v, std::string* out) {
  char b[24];
  std::snprintf(b, sizeof b, "%" PRIu64, v);
  *out += b;
}

// Seconds with nine decimals: the nanosecond clock, exactly.
void Seconds(sim::Time t, std::string* out) {
  char b[32];
  const char* sign = t < 0 ? "-" : "";
  const uint64_t a = t < 0 ? static_cast<uint64_t>(-t) : static_cast<uint64_t>(t);
  std::snprintf(b, sizeof b, "%s%" PRIu64 ".%09" PRIu64, sign, a / 1000000000, a % 1000000000);
  *out += b;
}

void Real(double v, std::string* out) {
  char b[32];
  std::snprintf(b, sizeof b, "%.9g", v);
  *out += b;
}

// RFC 4180: quoted, quotes doubled, when it holds a comma, quote or newline.
void Text(const std::string& v, std::string* out) {
  if (v.find_first_of(",\"\r\n") == std::string::npos) {
    *out += v;
    return;
  }
  *out += '"';
  for (char c : v) {
    if (c == '"') *out += '"';
    *out += c;
  }
  *out += '"';
}

const char* OutcomeName(RequestRecord::Outcome o) {
  switch (o) {
    case RequestRecord::Outcome::kCompleted:
      return "completed";
    case RequestRecord::Outcome::kRejected:
      return "rejected";
    case RequestRecord::Outcome::kFailed:
      return "failed";
    case RequestRecord::Outcome::kUnfinished:
      return "unfinished";
  }
  return "?";
}

using R = const RequestRecord&;
using C = const RequestCsvContext&;
using S = std::string*;

// A failed request never scheduled may never have been routed (no healthy
// deployment): its replica is left empty.
bool Routed(R r) {
  return r.outcome != RequestRecord::Outcome::kFailed || r.admitted != sim::kNever;
}

const RequestColumn kColumns[] = {
    {"id", "", "request id, unique within the point", [](R r, C, S o) { Integer(r.id, o); }},
    {"outcome", "",
     "completed, rejected (no KV room on its replica), failed, or unfinished at "
     "the end of the run",
     [](R r, C, S o) { *o += OutcomeName(r.outcome); }},
    {"measured", "", "1 when it arrived after the warm-up (counted in the point's metrics)",
     [](R r, C c, S o) { *o += r.arrival >= c.warmup ? "1" : "0"; }},
    {"arrival_s", "s", "reached the router", [](R r, C, S o) { Seconds(r.arrival, o); }},
    {"session", "",
     "session id (a closed-loop client's j-th session is client * 2^32 + j; a trace's named "
     "sessions 2^63 + n)",
     [](R r, C, S o) { Integer(r.session, o); }},
    {"tenant", "", "tenant", [](R r, C, S o) { Integer(r.tenant, o); }},
    {"key", "", "routing key (0 is the hottest in synthetic workloads)",
     [](R r, C, S o) { Integer(r.key, o); }},
    {"client", "", "closed-loop client; empty in open loop",
     [](R r, C, S o) {
       if (r.client != UINT32_MAX) Integer(r.client, o);
     }},
    {"stage", "", "load stage (0 without stages)", [](R r, C, S o) { Integer(r.stage, o); }},
    {"deployment", "", "deployment of the replica it was routed to last",
     [](R r, C c, S o) {
       if (Routed(r) && r.replica < c.replica_deployment.size()) {
         Text(c.replica_deployment[r.replica], o);
       }
     }},
    {"replica", "",
     "replica it was routed to last (cluster-wide index); empty for a failed request "
     "never scheduled",
     [](R r, C, S o) {
       if (Routed(r)) Integer(r.replica, o);
     }},
    {"route_reason", "",
     "why the routing policy chose that replica, a word from the policy's vocabulary "
     "(docs/POLICIES.md); with several deployments, the choice inside the deployment. "
     "`rebalanced` when the policy later moved it from its queue; empty when never routed",
     [](R r, C, S o) {
       if (Routed(r) && r.route_reason != nullptr) *o += r.route_reason;
     }},
    {"route_score", "",
     "the policy's own score of that replica, whose meaning the policy's reason table gives; "
     "empty when it has none",
     [](R r, C, S o) {
       if (Routed(r) && r.route_reason != nullptr && !std::isnan(r.route_score)) {
         Real(r.route_score, o);
       }
     }},
    {"prefill_replica", "",
     "cluster.disaggregation: the prefill replica that computed its prompt; empty when its "
     "decode replica prefilled it (or without disaggregation)",
     [](R r, C, S o) {
       if (r.prefill_replica != UINT32_MAX) Integer(r.prefill_replica, o);
     }},
    {"kv_transfer_s", "s",
     "cluster.disaggregation: from the end of its prefill to its KV reaching the decode "
     "replica, the wait for the link included; empty when not transferred",
     [](R r, C, S o) {
       if (r.kv_arrived != sim::kNever) Seconds(r.kv_arrived - r.kv_sent, o);
     }},
    {"prompt_tokens", "tokens", "prompt length", [](R r, C, S o) { Integer(r.prompt_tokens, o); }},
    {"output_tokens", "tokens", "output length asked for",
     [](R r, C, S o) { Integer(r.output_tokens, o); }},
    {"cached_tokens", "tokens",
     "prompt tokens served from the prefix cache at its first admission, all tiers",
     [](R r, C, S o) { Integer(r.hit_tokens, o); }},
    {"dram_cached_tokens", "tokens",
     "of cached_tokens, those loaded from the host DRAM tier (cluster.kv_tiers; 0 without)",
     [](R r, C, S o) { Integer(r.host_hit_tokens, o); }},
    {"ssd_cached_tokens", "tokens",
     "of cached_tokens, those read from the local-SSD tier (cluster.kv_tiers.ssd_gib; 0 without)",
     [](R r, C, S o) { Integer(r.ssd_hit_tokens, o); }},
    {"admitted", "", "1 once its prefill was first scheduled",
     [](R r, C, S o) { *o += r.admitted != sim::kNever ? "1" : "0"; }},
    {"queue_s", "s", "arrival to first scheduled: front end, routing and the engine's queue",
     [](R r, C, S o) {
       if (r.admitted != sim::kNever) Seconds(r.admitted - r.arrival, o);
     }},
    {"ttft_s", "s", "time to first token, as the client sees it",
     [](R r, C, S o) {
       if (r.first_token != sim::kNever) Seconds(r.first_token - r.arrival, o);
     }},
    {"tpot_s", "s", "mean time per output token after the first (completed, 2+ tokens)",
     [](R r, C, S o) {
       if (r.completed != sim::kNever && r.output_tokens > 1) {
         Real(sim::ToSeconds(r.completed - r.first_token) / (r.output_tokens - 1), o);
       }
     }},
    {"e2e_s", "s", "arrival to last token (completed only)",
     [](R r, C, S o) {
       if (r.completed != sim::kNever) Seconds(r.completed - r.arrival, o);
     }},
    {"preemptions", "", "times preempted by recompute",
     [](R r, C, S o) { Integer(r.preemptions, o); }},
    {"retries", "", "times re-routed after its replica failed",
     [](R r, C, S o) { Integer(r.retries, o); }},
};

}  // namespace

std::span<const RequestColumn> RequestColumns() { return kColumns; }

RequestCsvWriter::RequestCsvWriter(std::string path, RequestCsvContext context)
    : path_(std::move(path)), temporary_(TemporaryPathFor(path_)), context_(std::move(context)) {
  file_ = std::fopen(temporary_.c_str(), "wb");
  if (file_ == nullptr) {
    throw std::runtime_error("cannot write '" + temporary_ + "' (for '" + path_ +
                             "'): " + std::strerror(errno));
  }
  for (const RequestColumn& c : kColumns) {
    if (!buffer_.empty()) buffer_ += ',';
    buffer_ += c.name;
  }
  buffer_ += '\n';
}

RequestCsvWriter::~RequestCsvWriter() {
  if (file_ != nullptr) {
    std::fclose(file_);
    std::remove(temporary_.c_str());
  }
}

void RequestCsvWriter::Flush() {
  if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
    failed_ = true;
  }
  buffer_.clear();
}

void RequestCsvWriter::OnRequest(const RequestRecord& record) {
  bool first = true;
  for (const RequestColumn& c : kColumns) {
    if (!first) buffer_ += ',';
    first = false;
    c.write(record, context_, &buffer_);
  }
  buffer_ += '\n';
  ++rows_;
  if (buffer_.size() >= kFlushBytes) Flush();
}

void RequestCsvWriter::Commit() {
  Flush();
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  auto fail = [&](const std::string& why) {
    std::remove(temporary_.c_str());
    throw std::runtime_error("could not write '" + path_ + "': " + why);
  };
  if (failed_ || !closed) fail("writing failed (disk full?)");
  // Verify: the header and exactly one line per row, every line complete.
  std::ifstream in(temporary_, std::ios::binary);
  std::string line;
  uint64_t lines = 0;
  while (std::getline(in, line)) ++lines;
  if (!in.eof() || lines != rows_ + 1) {
    fail("read back " + std::to_string(lines) + " lines, expected " + std::to_string(rows_ + 1));
  }
  in.close();
  CommitTemporaryFile(temporary_, path_);
}

}  // namespace kvroute::analysis
