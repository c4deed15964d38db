#include "sim/runner/plan_command.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <unordered_map>
#include <unordered_set>

#include "policies/cacheroute_replan.h"

namespace kvroute::sim {
namespace {

std::string Trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// JSON string literal; keys are user text.
std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
      out += buffer;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

const ChoiceTable<policies::PlanAblation>& PlanAblations() {
  static const ChoiceTable<policies::PlanAblation> table(
      "ablation", {{"affinity", policies::PlanAblation::kAffinityOnly},
                   {"replication", policies::PlanAblation::kReplication},
                   {"full", policies::PlanAblation::kFull}});
  return table;
}

KeyRates ReadKeyRates(std::istream& in, const std::string& source) {
  KeyRates result;
  std::unordered_set<std::string> seen;
  std::string line;
  bool header = false;
  for (size_t number = 1; std::getline(in, line); ++number) {
    std::string where = source + ":" + std::to_string(number) + ": ";
    if (Trim(line).empty()) continue;
    size_t comma = line.find(',');
    if (comma == std::string::npos || line.find(',', comma + 1) != std::string::npos) {
      throw RatesFileError(where + "expected 'key,rate'");
    }
    std::string key = Trim(line.substr(0, comma)), value = Trim(line.substr(comma + 1));
    if (!header) {
      if (key != "key" || value != "rate") {
        throw RatesFileError(where + "expected the header 'key,rate'");
      }
      header = true;
      continue;
    }
    if (key.empty()) throw RatesFileError(where + "empty key");
    char* end = nullptr;
    errno = 0;
    double rate = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || errno != 0 || !std::isfinite(rate) || rate < 0) {
      throw RatesFileError(where + "key '" + key + "': rate must be a non-negative number, got '" +
                           value + "'");
    }
    if (!seen.insert(key).second) throw RatesFileError(where + "key '" + key + "' repeated");
    result.keys.push_back(key);
    result.rates.push_back(rate);
  }
  if (!header) throw RatesFileError(source + ":1: expected the header 'key,rate'");
  return result;
}

policies::RoutingPlan BuildPlanAgainst(const KeyRates& rates, const PreviousPlan& previous,
                                       const policies::PlannerConfig& config, double slack,
                                       ChurnReport* report) {
  // Keys of the previous table follow the current ones, at rate 0, so that
  // the plans compare key by key over one index.
  std::unordered_map<std::string, uint32_t> index;
  for (uint32_t b = 0; b < rates.keys.size(); ++b) index.emplace(rates.keys[b], b);
  std::vector<double> extended = rates.rates;
  std::vector<std::vector<uint32_t>> members(rates.keys.size());
  for (size_t i = 0; i < previous.keys.size(); ++i) {
    auto [it, added] = index.emplace(previous.keys[i], static_cast<uint32_t>(members.size()));
    if (added) {
      members.emplace_back();
      extended.push_back(0);
    }
    members[it->second] = previous.destinations[i];
  }
  const policies::RoutingPlan before = policies::PlanFromTable(members, config.destinations);
  policies::RoutingPlan plan = policies::BuildPlanFrom(before, extended, config, slack);
  const policies::RoutingPlan fresh = policies::BuildPlan(extended, config);
  report->previous_keys = previous.keys.size();
  report->churn = policies::PlanChurn(before, plan);
  report->new_assignments = policies::NewAssignments(before, plan);
  report->fresh_churn = policies::PlanChurn(before, fresh);
  report->fresh_new_assignments = policies::NewAssignments(before, fresh);
  return plan;
}

void WritePlanCsv(std::ostream& out, const KeyRates& rates, const policies::RoutingPlan& plan,
                  double build_seconds, const ChurnReport* churn) {
  out << std::setprecision(10);
  out << "# keys=" << rates.keys.size() << " admitted_keys=" << plan.admitted_keys()
      << " slots_used=" << plan.slots_used() << " cold_tail_rate=" << plan.cold_tail_rate()
      << " expected_max_over_mean=" << plan.ExpectedMaxOverMean()
      << " build_seconds=" << build_seconds;
  if (churn) {
    out << " previous_keys=" << churn->previous_keys << " churn=" << churn->churn
        << " new_assignments=" << churn->new_assignments << " fresh_churn=" << churn->fresh_churn
        << " fresh_new_assignments=" << churn->fresh_new_assignments;
  }
  out << "\n";
  out << "key,rate,destinations\n";
  for (uint32_t b = 0; b < rates.keys.size(); ++b) {
    auto members = plan.Members(b);
    if (members.empty()) continue;
    out << rates.keys[b] << "," << rates.rates[b] << ",";
    for (size_t i = 0; i < members.size(); ++i) out << (i ? " " : "") << members[i];
    out << "\n";
  }
}

void WritePlanJson(std::ostream& out, const KeyRates& rates, const policies::RoutingPlan& plan,
                   double build_seconds, const ChurnReport* churn) {
  out << std::setprecision(10);
  out << "{\"keys\": " << rates.keys.size() << ", \"admitted_keys\": " << plan.admitted_keys()
      << ", \"slots_used\": " << plan.slots_used()
      << ", \"cold_tail_rate\": " << plan.cold_tail_rate()
      << ", \"expected_max_over_mean\": " << plan.ExpectedMaxOverMean()
      << ", \"build_seconds\": " << build_seconds;
  if (churn) {
    out << ", \"previous_keys\": " << churn->previous_keys << ", \"churn\": " << churn->churn
        << ", \"new_assignments\": " << churn->new_assignments
        << ", \"fresh_churn\": " << churn->fresh_churn
        << ", \"fresh_new_assignments\": " << churn->fresh_new_assignments;
  }
  out << ", \"expected_load\": [";
  const auto& load = plan.expected_load();
  for (size_t d = 0; d < load.size(); ++d) out << (d ? ", " : "") << load[d];
  out << "], \"table\": {";
  bool first = true;
  for (uint32_t b = 0; b < rates.keys.size(); ++b) {
    auto members = plan.Members(b);
    if (members.empty()) continue;
    out << (first ? "" : ", ") << Quote(rates.keys[b]) << ": [";
    first = false;
    for (size_t i = 0; i < members.size(); ++i) out << (i ? ", " : "") << members[i];
    out << "]";
  }
  out << "}}\n";
}

}  // namespace kvroute::sim
