#include "policies/registry.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "policies/builtin_policies.h"
#include "sim/core/did_you_mean.h"

namespace kvroute::policies {
namespace {

constexpr double kMaxParameter = 1e9;

std::vector<PolicyInfo> MakeTable() {
  std::vector<PolicyInfo> table = BuiltinPolicyInfos();
  for (size_t i = 0; i < table.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (table[i].name == table[j].name) {
        throw std::logic_error("policy '" + table[i].name + "' is registered twice");
      }
    }
  }
  return table;
}

std::vector<std::string> PolicyNames() {
  std::vector<std::string> names;
  for (const PolicyInfo& info : PolicyTable()) names.push_back(info.name);
  return names;
}

std::vector<std::string> ParamNames(const PolicyInfo& info) {
  std::vector<std::string> names;
  for (const ParamSpec& p : info.params) names.push_back(p.name);
  return names;
}

std::string FormatNumber(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

double Params::Get(std::string_view name) const {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return values_[i];
  }
  throw std::logic_error("policy parameter '" + std::string(name) + "' not declared");
}

const std::vector<PolicyInfo>& PolicyTable() {
  static const std::vector<PolicyInfo> table = MakeTable();
  return table;
}

const PolicyInfo* FindPolicyOrNull(std::string_view name) {
  for (const PolicyInfo& info : PolicyTable()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

const PolicyInfo& FindPolicy(std::string_view name) {
  if (const PolicyInfo* info = FindPolicyOrNull(name)) return *info;
  const std::vector<std::string> names = PolicyNames();
  throw PolicyConfigError("unknown policy '" + std::string(name) + "' (valid: " +
                          sim::JoinNames(names) + sim::DidYouMean(name, names) + ")");
}

Params ResolveParams(const PolicyInfo& info, const std::vector<ParamValue>& given) {
  std::vector<std::string> names;
  std::vector<double> values;
  for (const ParamSpec& spec : info.params) {
    names.push_back(spec.name);
    values.push_back(spec.default_value);
  }
  for (const ParamValue& value : given) {
    size_t i = 0;
    while (i < names.size() && names[i] != value.name) ++i;
    std::string prefix = value.where.empty() ? "" : value.where + ": ";
    if (i == names.size()) {
      const std::vector<std::string> names = ParamNames(info);
      std::string valid = info.params.empty() ? "it takes none"
                                              : "valid: " + sim::JoinNames(names) +
                                                    sim::DidYouMean(value.name, names);
      throw PolicyConfigError(prefix + "unknown parameter '" + value.name + "' for policy '" +
                              info.name + "' (" + valid + ")");
    }
    const ParamSpec& spec = info.params[i];
    if (!spec.choices.empty()) {
      auto it = std::find(spec.choices.begin(), spec.choices.end(), value.text);
      if (it == spec.choices.end()) {
        throw PolicyConfigError(prefix + "parameter '" + spec.name + "' of policy '" + info.name +
                                "' must be one of " + sim::JoinNames(spec.choices) + ", got '" +
                                (value.text.empty() ? FormatNumber(value.value) : value.text) +
                                "'" + sim::DidYouMean(value.text, spec.choices));
      }
      values[i] = static_cast<double>(it - spec.choices.begin());
      continue;
    }
    if (!value.text.empty()) {
      throw PolicyConfigError(prefix + "parameter '" + spec.name + "' of policy '" + info.name +
                              "' must be a number, got '" + value.text + "'");
    }
    if (!std::isfinite(value.value) || value.value < spec.min) {
      std::ostringstream msg;
      msg << prefix << "parameter '" << spec.name << "' of policy '" << info.name
          << "' must be at least " << spec.min << ", got " << value.value;
      throw PolicyConfigError(msg.str());
    }
    // Every parameter fits a 32-bit count or a simulated time without overflow.
    if (value.value > kMaxParameter) {
      std::ostringstream msg;
      msg << prefix << "parameter '" << spec.name << "' of policy '" << info.name
          << "' must be at most " << kMaxParameter << ", got " << value.value;
      throw PolicyConfigError(msg.str());
    }
    if (spec.integer && value.value != std::floor(value.value)) {
      throw PolicyConfigError(prefix + "parameter '" + spec.name + "' of policy '" + info.name +
                              "' must be a whole number");
    }
    values[i] = value.value;
  }
  return Params(std::move(names), std::move(values));
}

}  // namespace kvroute::policies
