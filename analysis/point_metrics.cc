#include "analysis/point_metrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kvroute::analysis {
namespace {

LatencySummary SummarizeLatency(const LatencyHistogram& h) {
  return LatencySummary{.p50 = h.PercentileSeconds(50),
                        .p90 = h.PercentileSeconds(90),
                        .p99 = h.PercentileSeconds(99),
                        .max = h.MaxSeconds(),
                        .mean = h.MeanSeconds()};
}

}  // namespace

PointMetricsCollector::PointMetricsCollector(sim::Time warmup, uint32_t replicas,
                                             std::vector<Slo> slos,
                                             std::vector<uint32_t> tracked_tenants)
    : warmup_(warmup),
      slos_(std::move(slos)),
      replica_requests_(replicas, 0),
      tracked_tenants_(std::move(tracked_tenants)),
      tenant_ttft_(tracked_tenants_.size() + 1),
      tenant_measured_(tracked_tenants_.size() + 1, 0) {}

LatencyHistogram& PointMetricsCollector::TenantHistogram(uint32_t tenant) {
  auto it = std::find(tracked_tenants_.begin(), tracked_tenants_.end(), tenant);
  return tenant_ttft_[static_cast<size_t>(it - tracked_tenants_.begin())];
}

void PointMetricsCollector::RecordTenantTtft(uint32_t tenant, sim::Time ttft) {
  TenantHistogram(tenant).Record(ttft);
  if (tenant >= tenant_ttft_sum_.size()) {
    tenant_ttft_sum_.resize(tenant + 1, 0);
    tenant_ttft_count_.resize(tenant + 1, 0);
  }
  tenant_ttft_sum_[tenant] += sim::ToSeconds(ttft);
  ++tenant_ttft_count_[tenant];
}

void PointMetricsCollector::OnArrival(const models::Request& request) {
  ++offered_;
  if (!Measured(request)) return;
  ++measured_;
  auto it = std::find(tracked_tenants_.begin(), tracked_tenants_.end(), request.tenant);
  ++tenant_measured_[static_cast<size_t>(it - tracked_tenants_.begin())];
}

void PointMetricsCollector::OnRejected(const models::Request& request) {
  ++rejected_;
  if (Measured(request)) {
    TenantHistogram(request.tenant).RecordCensored();
    ttft_.RecordCensored();
    e2e_.RecordCensored();
  }
}

void PointMetricsCollector::OnFailed(const models::Request& request) {
  ++failed_;
  if (Measured(request)) {
    TenantHistogram(request.tenant).RecordCensored();
    ttft_.RecordCensored();
    e2e_.RecordCensored();
  }
}

void PointMetricsCollector::OnRetried(const models::Request&) { ++retried_; }

void PointMetricsCollector::OnDispatched(const models::Request& request, uint32_t replica) {
  if (Measured(request)) ++replica_requests_[replica];
}

void PointMetricsCollector::OnAdmitted(const models::InFlightRequest& r) {
  if (!Measured(r.request)) return;
  ++admitted_measured_;
  if (r.hit_tokens > 0) ++admitted_with_hit_;
  prompt_tokens_ += r.request.prompt_tokens;
  hit_tokens_ += r.hit_tokens;
  host_hit_tokens_ += r.host_hit_tokens;
  ssd_hit_tokens_ += r.ssd_hit_tokens;
}

void PointMetricsCollector::OnCompleted(const models::InFlightRequest& r, sim::Time now) {
  ++completed_;
  if (!Measured(r.request)) return;
  ttft_.Record(r.first_token_time - r.request.arrival);
  RecordTenantTtft(r.request.tenant, r.first_token_time - r.request.arrival);
  e2e_.Record(now - r.request.arrival);
  if (r.request.output_tokens > 1) {
    tpot_.Record((now - r.first_token_time) / (r.request.output_tokens - 1));
  }
}

void PointMetricsCollector::OnUnfinished(const models::InFlightRequest& r) {
  ++unfinished_;
  if (!Measured(r.request)) return;
  if (r.first_token_time == sim::kNever) {
    ttft_.RecordCensored();
    TenantHistogram(r.request.tenant).RecordCensored();
  } else {
    ttft_.Record(r.first_token_time - r.request.arrival);
    RecordTenantTtft(r.request.tenant, r.first_token_time - r.request.arrival);
  }
  e2e_.RecordCensored();
}

void PointMetricsCollector::Summarize(PointResult* out) const {
  out->offered = offered_;
  out->completed = completed_;
  out->unfinished = unfinished_;
  out->rejected = rejected_;
  out->failed = failed_;
  out->retried = retried_;
  out->measured = measured_;
  out->ttft = SummarizeLatency(ttft_);
  out->tpot = SummarizeLatency(tpot_);
  out->e2e = SummarizeLatency(e2e_);
  out->slo_values.clear();
  for (const Slo& slo : slos_) {
    const LatencyHistogram& h = slo.metric == LatencyMetric::kTtft   ? ttft_
                                : slo.metric == LatencyMetric::kTpot ? tpot_
                                                                     : e2e_;
    out->slo_values.push_back(h.PercentileSeconds(slo.percentile));
  }
  out->token_hit_rate = prompt_tokens_ > 0 ? hit_tokens_ / prompt_tokens_ : 0;
  out->dram_token_hit_rate = prompt_tokens_ > 0 ? host_hit_tokens_ / prompt_tokens_ : 0;
  out->ssd_token_hit_rate = prompt_tokens_ > 0 ? ssd_hit_tokens_ / prompt_tokens_ : 0;
  out->hbm_token_hit_rate =
      prompt_tokens_ > 0 ? (hit_tokens_ - host_hit_tokens_ - ssd_hit_tokens_) / prompt_tokens_ : 0;
  out->request_hit_rate = admitted_measured_ > 0 ? static_cast<double>(admitted_with_hit_) /
                                                       static_cast<double>(admitted_measured_)
                                                 : 0;
  out->replica_requests = replica_requests_;
  const size_t first = std::min<size_t>(balance_first_, replica_requests_.size());
  const auto begin = replica_requests_.begin() + static_cast<std::ptrdiff_t>(first);
  const auto end = begin + static_cast<std::ptrdiff_t>(
                               std::min<size_t>(balance_count_, replica_requests_.size() - first));
  uint64_t total = std::accumulate(begin, end, uint64_t{0});
  double mean = begin == end ? 0 : static_cast<double>(total) / static_cast<double>(end - begin);
  uint64_t max = begin == end ? 0 : *std::max_element(begin, end);
  out->imbalance = mean > 0 ? static_cast<double>(max) / mean : 0;

  out->tenants.clear();
  for (size_t i = 0; i < tenant_ttft_.size(); ++i) {
    out->tenants.push_back(TenantLatency{
        .tenant = i < tracked_tenants_.size() ? std::to_string(tracked_tenants_[i]) : "other",
        .measured = tenant_measured_[i],
        .ttft_p99 = tenant_ttft_[i].PercentileSeconds(99)});
  }
  double sum = 0, squares = 0;
  uint64_t tenants = 0;
  for (size_t t = 0; t < tenant_ttft_sum_.size(); ++t) {
    if (tenant_ttft_count_[t] == 0) continue;
    double m = tenant_ttft_sum_[t] / static_cast<double>(tenant_ttft_count_[t]);
    sum += m;
    squares += m * m;
    ++tenants;
  }
  out->tenant_fairness =
      squares > 0 ? sum * sum / (static_cast<double>(tenants) * squares) : std::nan("");
}

}  // namespace kvroute::analysis
