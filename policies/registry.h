// The one table of routing policies: name, one-line description, parameters
// with defaults, and a factory (STYLE.md, "choosing models by name"). Unknown
// names and parameters are errors that list the valid ones.
#ifndef KVROUTE_POLICIES_REGISTRY_H_
#define KVROUTE_POLICIES_REGISTRY_H_

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "policies/policy.h"

namespace kvroute::policies {

struct ParamSpec {
  std::string name;
  double default_value = 0;
  std::string description;  // with the unit
  bool integer = false;
  double min = 0;  // inclusive lower bound
  // A choice parameter when non-empty: the scenario names one of these, and
  // Params::Get returns its index. `default_value` is the default's index.
  std::vector<std::string> choices = {};
};

// A parameter as the scenario gives it; `where` locates it for error messages.
struct ParamValue {
  std::string name;
  double value = 0;
  std::string where;
  std::string text = "";  // the value as written when it is not a number (a choice)
};

// Every parameter of a policy, defaults filled in, in ParamSpec order.
class Params {
 public:
  Params(std::vector<std::string> names, std::vector<double> values)
      : names_(std::move(names)), values_(std::move(values)) {}
  // REQUIRES: `name` is one of the policy's parameters. A choice parameter
  // gives the index of the chosen name in its ParamSpec::choices.
  double Get(std::string_view name) const;
  const std::vector<std::string>& names() const { return names_; }
  const std::vector<double>& values() const { return values_; }

 private:
  std::vector<std::string> names_;
  std::vector<double> values_;
};

struct RouteReasonSpec {
  std::string reason;
  std::string meaning;
};

struct PolicyInfo {
  std::string name;
  std::string description;
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Policy>(const Params&, const PolicyContext&)> factory;
  // Non-empty for a router that, in production, learns replicas' cache
  // contents from the engines' KV events: when it does (e.g. "with
  // cache_state: events"). Its ClusterView::cache then answers from those
  // events as cluster.kv_events delays and loses them (DESIGN.md, "Policy").
  std::string kv_event_view = "";
  // What the policy's Route explains (Policy::Explain, the request CSV's
  // route_reason and route_score): each reason it gives, with its meaning,
  // and what its score is ("" when it gives none).
  std::vector<RouteReasonSpec> route_reasons = {};
  std::string route_score = "";
};

// A policy name or parameter that is not valid; the message lists valid ones.
class PolicyConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// All registered policies, in the order `kvroute policies` lists them.
const std::vector<PolicyInfo>& PolicyTable();

// Throws PolicyConfigError listing the valid names.
const PolicyInfo& FindPolicy(std::string_view name);
// nullptr when no policy has that name.
const PolicyInfo* FindPolicyOrNull(std::string_view name);

// Checks names and bounds and fills in defaults. Throws PolicyConfigError.
Params ResolveParams(const PolicyInfo& info, const std::vector<ParamValue>& given);

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_REGISTRY_H_
