// The keys a YAML map may hold, each with its type, default, range and a
// one-line description: the one table a reader takes defaults and bounds from
// and the docs print (`kvroute help scenario`). A key missing from its map's
// table cannot be read, so no key goes undocumented.
#ifndef KVROUTE_SIM_CORE_YAML_KEYS_H_
#define KVROUTE_SIM_CORE_YAML_KEYS_H_

#include <cmath>
#include <string>
#include <vector>

namespace kvroute::sim {

enum class YamlType { kNumber, kInteger, kString, kBool, kChoice, kMap, kList, kLength };

struct YamlKey {
  std::string name;
  YamlType type = YamlType::kNumber;
  std::string description;
  double fallback = 0;  // kNumber, kInteger, kBool (0/1)
  double min = -INFINITY, max = INFINITY;
  // The default as shown; for numbers and booleans printed from `fallback`
  // when empty. For strings and choices it is the default value itself.
  std::string fallback_text = "";
  bool required = false;
  std::vector<std::string> choices = {};  // kChoice
  std::string applies = "";               // when the key is read, e.g. "kind: gini"

  YamlKey Required() const {
    YamlKey k = *this;
    k.required = true;
    return k;
  }
  YamlKey When(std::string condition) const {
    YamlKey k = *this;
    k.applies = std::move(condition);
    return k;
  }
  YamlKey Default(std::string text) const {
    YamlKey k = *this;
    k.fallback_text = std::move(text);
    return k;
  }
  // The default as the docs print it ("required" for a required key).
  std::string DefaultText() const;
  // "number in [0, 1e7]", "one of a, b", ...
  std::string TypeText() const;
};

// The keys of one map; `path` is its place in the document ("workload.drift").
struct YamlKeyTable {
  std::string path;
  std::vector<YamlKey> keys;

  // nullptr when `name` is not a key of this map.
  const YamlKey* Find(const std::string& name) const;
  std::vector<std::string> Names() const;
};

YamlKey NumberKey(std::string name, double fallback, double min, double max,
                  std::string description);
YamlKey IntegerKey(std::string name, double fallback, double min, double max,
                   std::string description);
YamlKey StringKey(std::string name, std::string fallback, std::string description);
YamlKey BoolKey(std::string name, bool fallback, std::string description);
YamlKey ChoiceKey(std::string name, std::vector<std::string> choices, std::string fallback,
                  std::string description);
// A map, a list or a length distribution read by its own table or code;
// `fallback_text` says what its absence means.
YamlKey NestedKey(std::string name, YamlType type, std::string fallback_text,
                  std::string description);

// "12", "0.003", "1e+07" -> "1e7": numbers as the docs and messages print them.
std::string FormatYamlNumber(double value);
// The same with 6 significant digits: 4096, 100000, 1e9.
std::string FormatCompactNumber(double value);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_CORE_YAML_KEYS_H_
