#include "analysis/point_codec.h"

#include <bit>
#include <charconv>
#include <cstdint>
#include <cstdio>

namespace kvroute::analysis {
namespace {

// Bumped whenever the field list changes, so a record of an older layout is
// refused rather than misread.
constexpr std::string_view kMagic = "kvroute-point-v4";

class Writer {
 public:
  void U64(uint64_t v) { text_ += std::to_string(v) + ' '; }
  void F64(double v) {
    char buffer[24];
    std::snprintf(buffer, sizeof buffer, "%016llx ",
                  static_cast<unsigned long long>(std::bit_cast<uint64_t>(v)));
    text_ += buffer;
  }
  void Str(std::string_view s) {
    U64(s.size());
    text_.append(s);
    text_ += ' ';
  }
  void Latency(const LatencySummary& l) {
    for (double v : {l.p50, l.p90, l.p99, l.max, l.mean}) F64(v);
  }
  std::string Take() { return std::move(text_); }

 private:
  std::string text_;
};

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  uint64_t U64() { return Number(10); }
  double F64() { return std::bit_cast<double>(Number(16)); }
  std::string Str() {
    uint64_t size = U64();
    if (size > text_.size() - pos_) Fail();
    std::string s(text_.substr(pos_, size));
    pos_ += size;
    Space();
    return s;
  }
  void Latency(LatencySummary* l) {
    for (double* v : {&l->p50, &l->p90, &l->p99, &l->max, &l->mean}) *v = F64();
  }
  // Bounds a count read from the record by what the rest could hold, so a
  // damaged record cannot ask for a huge allocation.
  size_t Count() {
    uint64_t n = U64();
    if (n > text_.size() - pos_) Fail();
    return static_cast<size_t>(n);
  }
  void ExpectEnd() {
    if (pos_ != text_.size()) Fail();
  }
  [[noreturn]] void Fail() const {
    throw PointCodecError("not a kvroute point record (damaged at byte " + std::to_string(pos_) +
                          ")");
  }

 private:
  uint64_t Number(int base) {
    uint64_t v = 0;
    const char* begin = text_.data() + pos_;
    const char* end = text_.data() + text_.size();
    auto [ptr, ec] = std::from_chars(begin, end, v, base);
    if (ec != std::errc() || ptr == begin) Fail();
    pos_ += static_cast<size_t>(ptr - begin);
    Space();
    return v;
  }
  void Space() {
    if (pos_ >= text_.size() || text_[pos_] != ' ') Fail();
    ++pos_;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

std::string EncodePoint(const PointResult& p) {
  Writer w;
  w.Str(kMagic);
  w.Str(p.policy);
  w.F64(p.qps);
  w.U64(p.seed);
  w.U64(p.refinement_round);
  for (uint64_t v :
       {p.offered, p.completed, p.unfinished, p.rejected, p.failed, p.retried, p.measured}) {
    w.U64(v);
  }
  w.Latency(p.ttft);
  w.Latency(p.tpot);
  w.Latency(p.e2e);
  w.U64(p.slo_values.size());
  for (double v : p.slo_values) w.F64(v);
  w.F64(p.token_hit_rate);
  w.F64(p.request_hit_rate);
  for (uint64_t v :
       {p.prefill_tokens_computed, p.cache_evictions, p.preemptions, p.replica_failures}) {
    w.U64(v);
  }
  w.F64(p.mean_in_system);
  w.F64(p.mean_held_kv_blocks);
  w.U64(p.replica_requests.size());
  for (uint64_t v : p.replica_requests) w.U64(v);
  w.F64(p.imbalance);
  w.U64(p.tenants.size());
  for (const TenantLatency& t : p.tenants) {
    w.Str(t.tenant);
    w.U64(t.measured);
    w.F64(t.ttft_p99);
  }
  w.F64(p.tenant_fairness);
  w.U64(p.policy_stats.size());
  for (const auto& [name, value] : p.policy_stats) {
    w.Str(name);
    w.F64(value);
  }
  w.F64(p.simulated_s);
  w.U64(p.events);
  w.U64(p.deployment_names.size());
  for (const std::string& name : p.deployment_names) w.Str(name);
  w.U64(p.deployment_series.size());
  for (const DeploymentSample& s : p.deployment_series) {
    w.F64(s.start_s);
    w.U64(s.deployment);
    for (uint64_t v : {s.requests, s.prompt_tokens, s.hit_tokens, s.hit_elsewhere,
                       s.hit_elsewhere_taken, s.cold_hit_elsewhere, s.cold_hit_elsewhere_taken}) {
      w.U64(v);
    }
  }
  w.U64(p.series.size());
  for (const SeriesSample& s : p.series) {
    w.F64(s.start_s);
    for (uint64_t v : {s.arrived, s.completed, s.prompt_tokens, s.hit_tokens}) w.U64(v);
    w.F64(s.mean_waiting);
    w.U64(s.max_waiting);
    w.F64(s.kv_utilization);
    w.U64(s.failures);
    w.U64(s.recoveries);
  }
  return w.Take();
}

PointResult DecodePoint(std::string_view record) {
  Reader r(record);
  if (r.Str() != kMagic) r.Fail();
  PointResult p;
  p.policy = r.Str();
  p.qps = r.F64();
  p.seed = r.U64();
  p.refinement_round = static_cast<uint32_t>(r.U64());
  for (uint64_t* v :
       {&p.offered, &p.completed, &p.unfinished, &p.rejected, &p.failed, &p.retried, &p.measured}) {
    *v = r.U64();
  }
  r.Latency(&p.ttft);
  r.Latency(&p.tpot);
  r.Latency(&p.e2e);
  p.slo_values.resize(r.Count());
  for (double& v : p.slo_values) v = r.F64();
  p.token_hit_rate = r.F64();
  p.request_hit_rate = r.F64();
  for (uint64_t* v :
       {&p.prefill_tokens_computed, &p.cache_evictions, &p.preemptions, &p.replica_failures}) {
    *v = r.U64();
  }
  p.mean_in_system = r.F64();
  p.mean_held_kv_blocks = r.F64();
  p.replica_requests.resize(r.Count());
  for (uint64_t& v : p.replica_requests) v = r.U64();
  p.imbalance = r.F64();
  p.tenants.resize(r.Count());
  for (TenantLatency& t : p.tenants) {
    t.tenant = r.Str();
    t.measured = r.U64();
    t.ttft_p99 = r.F64();
  }
  p.tenant_fairness = r.F64();
  p.policy_stats.resize(r.Count());
  for (auto& [name, value] : p.policy_stats) {
    name = r.Str();
    value = r.F64();
  }
  p.simulated_s = r.F64();
  p.events = r.U64();
  p.deployment_names.resize(r.Count());
  for (std::string& name : p.deployment_names) name = r.Str();
  p.deployment_series.resize(r.Count());
  for (DeploymentSample& s : p.deployment_series) {
    s.start_s = r.F64();
    s.deployment = static_cast<uint32_t>(r.U64());
    for (uint64_t* v :
         {&s.requests, &s.prompt_tokens, &s.hit_tokens, &s.hit_elsewhere, &s.hit_elsewhere_taken,
          &s.cold_hit_elsewhere, &s.cold_hit_elsewhere_taken}) {
      *v = r.U64();
    }
  }
  p.series.resize(r.Count());
  for (SeriesSample& s : p.series) {
    s.start_s = r.F64();
    for (uint64_t* v : {&s.arrived, &s.completed, &s.prompt_tokens, &s.hit_tokens}) *v = r.U64();
    s.mean_waiting = r.F64();
    s.max_waiting = r.U64();
    s.kv_utilization = r.F64();
    s.failures = r.U64();
    s.recoveries = r.U64();
  }
  r.ExpectEnd();
  return p;
}

}  // namespace kvroute::analysis
