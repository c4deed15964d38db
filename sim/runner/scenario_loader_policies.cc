// `policies` and a deployment's `policy`: each entry a registered policy's
// name, or a map of its name, an optional label and its parameters, checked
// against the registry (policies/registry.h).
#include "policies/registry.h"
#include "sim/runner/scenario_loader_internal.h"

namespace kvroute::sim::scenario {

const YamlKeyTable& PolicyEntryKeys() {
  static const YamlKeyTable table{
      "policies[]",
      {StringKey("name", "", "a policy of `kvroute policies`").Required(),
       StringKey("label", "", "names the entry in tables, files, --policies, --policy, baseline")
           .Default("the name"),
       NestedKey("(parameter)", YamlType::kNumber, "see `kvroute policies`",
                 "any parameter of the policy: a number, or a name for a choice")}};
  return table;
}

PolicySpec ParsePolicyEntry(const YamlMap& parent, const YAML::Node& entry,
                            const std::string& path) {
  PolicySpec spec;
  spec.where = parent.Where(entry, path);
  YAML::Node name_node = entry;
  if (entry.IsScalar()) {
    spec.name = entry.Scalar();
  } else if (entry.IsMap()) {
    YamlMap map(parent.shared_source(), entry, path);  // rejects duplicate keys
    name_node.reset(map.Required("name"));             // rebinds; operator= would overwrite `entry`
    spec.name = map.String("name", "");
    for (const auto& kv : entry) {
      const std::string key = kv.first.Scalar();
      if (key == "name") continue;
      if (key == "label") {
        if (!kv.second.IsScalar() || kv.second.Scalar().empty()) {
          parent.FailAt(kv.second, path + ".label", "expected a non-empty name");
        }
        spec.label = kv.second.Scalar();
        continue;
      }
      if (!kv.second.IsScalar()) {
        parent.FailAt(kv.second, path + "." + key, "expected a number or a name");
      }
      double value = 0;
      std::string text;
      if (!YAML::convert<double>::decode(kv.second, value)) text = kv.second.Scalar();
      spec.params.push_back({key, value, parent.Where(kv.first, path + "." + key), text});
    }
  } else {
    parent.FailAt(entry, path, "expected a policy name or a map with 'name'");
  }
  try {
    policies::ResolveParams(policies::FindPolicy(spec.name), spec.params);
  } catch (const policies::PolicyConfigError& e) {
    // Parameter errors already carry their location.
    const std::string message = e.what();
    if (message.rfind("unknown policy", 0) == 0) parent.FailAt(name_node, path + ".name", message);
    throw YamlError(message);
  }
  if (spec.label.empty()) spec.label = spec.name;
  return spec;
}

void ParsePolicies(YamlMap& top, Scenario* s) {
  YAML::Node list = top.Required("policies");
  if (!list.IsSequence() || list.size() == 0) {
    top.Fail("policies", "expected a non-empty list of policy names or {name, ...} maps");
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = "policies[" + std::to_string(i) + "]";
    PolicySpec spec = ParsePolicyEntry(top, list[i], path);
    for (const PolicySpec& other : s->policies) {
      if (other.label == spec.label) {
        top.FailAt(list[i], path,
                   "policy '" + spec.label + "' is listed twice (give one a different 'label')");
      }
    }
    s->policies.push_back(spec);
  }
}

}  // namespace kvroute::sim::scenario
