#include "analysis/sweep_fields.h"

#include <array>
#include <stdexcept>

namespace kvroute::analysis {
namespace {

using R = FieldRange;
using C = CapacityRow;
using S = SummaryRow;

const std::array kCapacity{
    Scalar<&C::policy>("policy", "", R::kName, "the policy's label"),
    Scalar<&C::seed>("seed", "", R::kAnyCount, "workload seed"),
    Scalar<&C::slo_index>("slo_index", "", R::kSmallCount, "the SLO: its row in /slos"),
    Nested<&C::capacity, &Capacity::qps>(
        "capacity_qps", "req/s", R::kNonNegative,
        "highest load met with every load below it: the capacity is at least this; 0 when "
        "left-censored"),
    Nested<&C::capacity, &Capacity::upper_qps>(
        "capacity_upper_qps", "req/s", R::kLatency,
        "the lowest load that failed above it: the capacity is below this; +inf when "
        "right-censored"),
    Nested<&C::capacity, &Capacity::left_censored>(
        "left_censored", "", R::kFlag, "1: even the lowest load failed (capacity below the grid)"),
    Nested<&C::capacity, &Capacity::right_censored>(
        "right_censored", "", R::kFlag,
        "1: the highest load passed (capacity at least the grid's top)"),
};

const std::array kSummary{
    Scalar<&S::policy>("policy", "", R::kName, "the policy's label"),
    Scalar<&S::slo_index>("slo_index", "", R::kSmallCount, "the SLO: its row in /slos"),
    Scalar<&S::seeds>("seeds", "", R::kSmallCount, "seeds with a capacity"),
    Nested<&S::capacity, &SeedStatistics::n>(
        "uncensored_seeds", "", R::kSmallCount,
        "seeds whose capacity lies between two loads run: the population of the statistics"),
    Scalar<&S::left_censored>("left_censored_seeds", "", R::kSmallCount,
                              "seeds whose capacity is below the lowest load"),
    Scalar<&S::right_censored>("right_censored_seeds", "", R::kSmallCount,
                               "seeds whose capacity is at least the highest load"),
    Nested<&S::capacity, &SeedStatistics::mean>(
        "capacity_mean_qps", "req/s", R::kNonNegative,
        "mean over the uncensored seeds of the highest passing load; NaN if none"),
    Nested<&S::capacity, &SeedStatistics::sd>("capacity_sd_qps", "req/s", R::kNonNegative,
                                              "their sample standard deviation"),
    Nested<&S::capacity, &SeedStatistics::ci_low>(
        "capacity_ci95_low_qps", "req/s", R::kAnyReal,
        "95% Student-t confidence interval of the mean, low end"),
    Nested<&S::capacity, &SeedStatistics::ci_high>("capacity_ci95_high_qps", "req/s", R::kAnyReal,
                                                   "the same, high end"),
    Scalar<&S::capacity_upper_mean_qps>(
        "capacity_upper_mean_qps", "req/s", R::kNonNegative,
        "mean over the same seeds of the lowest failing load: the mean capacity is below this"),
    Scalar<&S::quantised>("quantised", "", R::kFlag,
                          "1: some seed's capacity is known only to a grid interval wider than "
                          "sweep.precision_qps (or precision_share of its lower end), printed as "
                          "[low, high)"),
    Scalar<&S::below_qps>("censored_below_qps", "req/s", R::kNonNegative,
                          "left-censored seeds' bound: capacity < this; NaN if none"),
    Scalar<&S::at_least_qps>("censored_at_least_qps", "req/s", R::kNonNegative,
                             "right-censored seeds' bound: capacity ≥ this; NaN if none"),
    Scalar<&S::reference_qps>("reference_qps", "req/s", R::kPositive,
                              "the common load of the next two columns (sweep.reference_qps)"),
    Scalar<&S::token_hit_rate>("token_hit_rate_at_reference", "", R::kShare,
                               "token hit rate at the reference load, mean over seeds"),
    Scalar<&S::slo_value>("slo_value_at_reference_s", "s", R::kLatency,
                          "the SLO's metric at the reference load, mean over seeds"),
    Nested<&S::ratio, &SeedStatistics::n>(
        "ratio_seeds", "", R::kSmallCount,
        "seeds where neither this policy's nor the baseline's capacity is censored"),
    Nested<&S::ratio, &SeedStatistics::mean>(
        "ratio_mean", "", R::kNonNegative,
        "capacity / the baseline's capacity at the same seed, mean over those seeds"),
    Nested<&S::ratio, &SeedStatistics::sd>("ratio_sd", "", R::kNonNegative,
                                           "their standard deviation"),
    Nested<&S::ratio, &SeedStatistics::ci_low>("ratio_ci95_low", "", R::kAnyReal,
                                               "95% confidence interval, low end"),
    Nested<&S::ratio, &SeedStatistics::ci_high>("ratio_ci95_high", "", R::kAnyReal,
                                                "the same, high end"),
};

const std::array kSlos{
    Field<Slo>{.name = "index",
               .unit = "",
               .type = FieldType::kCount,
               .range = R::kAnyCount,
               .description = "the SLO's index: i in slo<i>_value_s and slo_index",
               .count = [](const Slo&, size_t row) { return static_cast<uint64_t>(row); }},
    Field<Slo>{.name = "metric",
               .unit = "",
               .type = FieldType::kText,
               .range = R::kName,
               .description = "ttft, tpot or e2e",
               .text = [](const Slo& s, size_t) { return std::string(MetricName(s.metric)); },
               .set_text =
                   [](Slo& s, size_t, std::string v) {
                     if (v == "ttft") {
                       s.metric = LatencyMetric::kTtft;
                     } else if (v == "tpot") {
                       s.metric = LatencyMetric::kTpot;
                     } else if (v == "e2e") {
                       s.metric = LatencyMetric::kE2e;
                     } else {
                       throw std::invalid_argument("is '" + v + "', expected ttft, tpot or e2e");
                     }
                   }},
    Scalar<&Slo::percentile>("percentile", "", R::kPositive, "percentile of the metric, (0, 100]"),
    Scalar<&Slo::threshold_s>("threshold_s", "s", R::kPositive,
                              "the SLO is met at a point whose value is at most this"),
    Field<Slo>{.name = "label",
               .unit = "",
               .type = FieldType::kText,
               .range = R::kName,
               .description = "as printed: \"p99 ttft <= 3.5s\"",
               .text = [](const Slo& s, size_t) { return s.Label(); }},
};

const RecordTable<C> kCapacityTable{.name = "capacity",
                                    .description = "one row per (policy, seed, SLO)",
                                    .rows = [](const C&) -> size_t { return 1; },
                                    .resize = [](C&, size_t) {},
                                    .fields = kCapacity};
const RecordTable<S> kSummaryTable{.name = "summary",
                                   .description = "one row per (SLO, policy)",
                                   .rows = [](const S&) -> size_t { return 1; },
                                   .resize = [](S&, size_t) {},
                                   .fields = kSummary};
const RecordTable<Slo> kSloTable{.name = "slos",
                                 .description = "one row per SLO of the scenario, in order",
                                 .rows = [](const Slo&) -> size_t { return 1; },
                                 .resize = [](Slo&, size_t) {},
                                 .fields = kSlos};

}  // namespace

const RecordTable<CapacityRow>& CapacityTable() { return kCapacityTable; }
const RecordTable<SummaryRow>& SummaryTable() { return kSummaryTable; }
const RecordTable<Slo>& SloTable() { return kSloTable; }

}  // namespace kvroute::analysis
