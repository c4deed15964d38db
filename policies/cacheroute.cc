// cacheroute: planned prefix-affinity routing (seed 003 §3). The table of
// cacheroute_planner.h is fixed for a control interval; an admitted key goes to
// the lightest healthy member of T(b) (§3.1 step 4), any other key to the
// cluster-wide power of two choices. At each control tick the table is rebuilt
// from the per-key rates measured over the interval that just ended; the first
// interval uses the workload's configured rates at this load. How a tick
// replaces the plan is the `replan` mode (cacheroute_replan.h, seed 003 §3.2,
// §5.4): every_interval installs the fresh plan, hold keeps the old one until
// its staleness exceeds the re-warm penalty, churn_aware re-places only what
// the LPT bound requires.
#include <algorithm>
#include <functional>

#include "policies/builtin_policies.h"
#include "policies/cacheroute_planner.h"
#include "policies/cacheroute_replan.h"
#include "policies/load_balancing.h"

namespace kvroute::policies {
namespace {

enum class Replan { kEveryInterval = 0, kHold = 1, kChurnAware = 2 };
enum class Rates { kMeasured = 0, kWorkload = 1 };

class CacheRoutePolicy : public Policy {
 public:
  CacheRoutePolicy(const Params& params, const PolicyContext& ctx)
      : config_{.destinations = ctx.num_replicas,
                .q_cap = params.Get("q_cap"),
                .slots_per_destination = static_cast<uint32_t>(params.Get("slots_per_replica")),
                .ablation = static_cast<PlanAblation>(params.Get("ablation"))},
        interval_(sim::FromSeconds(params.Get("interval_s"))),
        replan_(static_cast<Replan>(params.Get("replan"))),
        misses_per_move_(params.Get("rewarm_misses_per_move")),
        churn_slack_(params.Get("churn_slack")),
        true_rates_(static_cast<Rates>(params.Get("rates")) == Rates::kWorkload ? ctx.true_key_rates
                                                                                : nullptr),
        rng_(ctx.seed, "policy.cacheroute"),
        arrivals_(ctx.key_rates.size(), 0),
        measured_rates_(ctx.key_rates.size(), 0),
        plan_(BuildPlan(ctx.key_rates, config_)) {
    if (static_cast<Rates>(params.Get("rates")) == Rates::kWorkload && !true_rates_) {
      throw PolicyConfigError(
          "cacheroute: rates: workload needs the workload's true rates, which "
          "this simulation does not offer");
    }
  }

  uint32_t Route(const models::Request& request, const ClusterView& view) override {
    uint32_t best = UINT32_MAX;
    for (uint32_t r : plan_.Members(request.key)) {
      if (!view.healthy(r)) continue;
      if (best == UINT32_MAX ||
          view.replicas[r].outstanding_tokens() < view.replicas[best].outstanding_tokens()) {
        best = r;
      }
    }
    // plan: the lightest healthy member of the key's planned set T(b);
    // fallback: an unplanned key (or no member healthy) by power of two
    // choices. Score: the chosen replica's outstanding tokens, the load both
    // rules compare.
    const bool planned = best != UINT32_MAX;
    if (!planned) best = PowerOfTwoChoices(view, rng_);
    Explain(planned ? "plan" : "fallback",
            static_cast<double>(view.replicas[best].outstanding_tokens()));
    return best;
  }

  void OnDispatch(const models::Request& request, uint32_t, sim::Time) override {
    if (request.key < arrivals_.size()) ++arrivals_[request.key];
  }

  sim::Time ControlInterval() const override { return interval_; }

  void OnControlTick(const ClusterView& view) override {
    double seconds = sim::ToSeconds(interval_);
    for (size_t key = 0; key < arrivals_.size(); ++key) {
      measured_rates_[key] = static_cast<double>(arrivals_[key]) / seconds;
      arrivals_[key] = 0;
    }
    if (true_rates_) {
      true_rates_(view.now, &measured_rates_);
      measured_rates_.resize(arrivals_.size(), 0);
    }
    ++ticks_;
    switch (replan_) {
      case Replan::kEveryInterval:
        Install(BuildPlan(measured_rates_, config_));
        break;
      case Replan::kHold: {
        RoutingPlan fresh = BuildPlan(measured_rates_, config_);
        if (FreshPlanPaysOff(plan_, fresh, measured_rates_, seconds, misses_per_move_)) {
          Install(std::move(fresh));
        } else {
          ++holds_;
        }
        break;
      }
      case Replan::kChurnAware:
        Install(BuildPlanFrom(plan_, measured_rates_, config_, churn_slack_));
        break;
    }
  }

  std::vector<std::pair<std::string, double>> Stats() const override {
    return {{"plan_admitted_keys", plan_.admitted_keys()},
            {"plan_slots_used", static_cast<double>(plan_.slots_used())},
            {"plan_expected_max_over_mean", plan_.ExpectedMaxOverMean()},
            {"plan_cold_tail_rate", plan_.cold_tail_rate()},
            {"plan_rebuilds", static_cast<double>(rebuilds_)},
            {"plan_holds", static_cast<double>(holds_)},
            {"plan_mean_churn", ticks_ > 0 ? churn_sum_ / static_cast<double>(ticks_) : 0},
            {"plan_mean_kb_change", ticks_ > 0 ? kb_change_sum_ / static_cast<double>(ticks_) : 0}};
  }

 private:
  void Install(RoutingPlan next) {
    churn_sum_ += PlanChurn(plan_, next);
    kb_change_sum_ += KbChangeShare(plan_, next);
    plan_ = std::move(next);
    ++rebuilds_;
  }

  PlannerConfig config_;
  sim::Time interval_;
  Replan replan_;
  double misses_per_move_;
  double churn_slack_;
  // rates: workload: the workload's rates at the tick instead of the measured ones.
  std::function<void(sim::Time, std::vector<double>*)> true_rates_;
  sim::RandomStream rng_;
  std::vector<uint64_t> arrivals_;  // this interval, per key
  std::vector<double> measured_rates_;
  RoutingPlan plan_;
  uint64_t rebuilds_ = 1;  // plans installed, the first one included
  uint64_t ticks_ = 0;
  uint64_t holds_ = 0;        // ticks that kept the old plan
  double churn_sum_ = 0;      // over ticks; a held plan has none
  double kb_change_sum_ = 0;  // likewise
};

}  // namespace

PolicyInfo CacheRoutePolicyInfo() {
  return {"cacheroute",
          "planned prefix affinity: top-rate admission, k_b replicas, LPT placement (seed 003)",
          {{"q_cap", 12, "req/s one destination sustains within the SLO (eq. 2)", false, 1e-9},
           {"slots_per_replica", 16, "W, warm prefix slots per destination; C = R*W", true, 0},
           {"interval_s", 60, "control interval between plan rebuilds, seconds", false, 1e-3},
           {"ablation",
            2,
            "planner parts: affinity only, + replication, + LPT (full)",
            false,
            0,
            {"affinity", "replication", "full"}},
           {"replan",
            0,
            "at each tick: install the fresh plan, hold the old until staleness > re-warm, "
            "or re-place only what the LPT bound requires",
            false,
            0,
            {"every_interval", "hold", "churn_aware"}},
           {"rewarm_misses_per_move", 1,
            "hold: cold prefills charged per (key, replica) pair the fresh plan adds", false, 0},
           {"churn_slack", 0.05,
            "churn_aware: kept shares may load a replica to (1 + slack) x the fresh LPT maximum",
            false, 0},
           {"rates",
            0,
            "what a tick plans from: the rates measured over the interval just ended, or the "
            "workload's true rates at the tick (drift and load schedule; an upper bound)",
            false,
            0,
            {"measured", "workload"}}},
          [](const Params& params, const PolicyContext& ctx) {
            return std::make_unique<CacheRoutePolicy>(params, ctx);
          },
          "",
          {{"plan", "the lightest healthy member of the key's planned set"},
           {"fallback", "unplanned key (or no member healthy): power of two choices"}},
          "the chosen replica's outstanding tokens"};
}

}  // namespace kvroute::policies
