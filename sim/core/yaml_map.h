// Strict reading of one YAML map: every key must be taken by the reader, and
// any key left over is an error naming the valid ones (with a did-you-mean).
// With a YamlKeyTable, keys outside the table are refused as soon as the map
// is opened (so a misspelled `replica:` is reported as such, not as a missing
// `replicas`), and defaults and bounds come from the table. Scenarios and
// profiles are both read through it.
#ifndef KVROUTE_SIM_CORE_YAML_MAP_H_
#define KVROUTE_SIM_CORE_YAML_MAP_H_

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/choice_table.h"
#include "sim/core/yaml_document.h"
#include "sim/core/yaml_keys.h"

namespace kvroute::sim {

class YamlMap {
 public:
  // REQUIRES nothing; a node that is not a map is reported as an error.
  YamlMap(std::string source, YAML::Node node, std::string path);
  // `table`, when given, must outlive the map.
  YamlMap(std::shared_ptr<const YamlSource> source, YAML::Node node, std::string path,
          const YamlKeyTable* table = nullptr);

  std::string Child(const std::string& key) const;
  YAML::Node Take(const std::string& key);
  YAML::Node Required(const std::string& key);

  // Without a table: the default and bounds given here.
  double Number(const std::string& key, double fallback, double min = -INFINITY,
                double max = INFINITY);
  double RequiredNumber(const std::string& key, double min = -INFINITY, double max = INFINITY);
  uint64_t Integer(const std::string& key, uint64_t fallback, uint64_t min = 0,
                   uint64_t max = UINT32_MAX);
  std::string String(const std::string& key, const std::string& fallback);
  bool Bool(const std::string& key, bool fallback);

  // With a table: the default and bounds of the key's row (a missing
  // required key is an error).
  double Number(const std::string& key);
  uint64_t Integer(const std::string& key);
  std::string String(const std::string& key);
  bool Bool(const std::string& key);
  template <typename T>
  T Choice(const std::string& key, const ChoiceTable<T>& choices);

  // A nested map under `key` (REQUIRES: present), read with `table`.
  YamlMap Map(const std::string& key, const YamlKeyTable* table = nullptr);

  // Rejects the keys that were never taken.
  void Finish() const;

  [[noreturn]] void Fail(const std::string& key, const std::string& message) const;
  // Fails at `node`, naming the dotted `path`.
  [[noreturn]] void FailAt(const YAML::Node& node, const std::string& path,
                           const std::string& message) const;
  std::string Where(const YAML::Node& node, const std::string& path) const;
  const YAML::Node& node() const { return node_; }
  const std::string& source() const { return source_->name(); }
  const std::shared_ptr<const YamlSource>& shared_source() const { return source_; }
  const std::string& path() const { return path_; }

 private:
  const YamlKey& Row(const std::string& key) const;
  void RejectUnknownKeys() const;
  std::vector<std::string> ValidNames() const;

  std::shared_ptr<const YamlSource> source_;
  YAML::Node node_;
  std::string path_;
  const YamlKeyTable* table_ = nullptr;
  std::vector<std::string> taken_;
};

template <typename T>
T YamlMap::Choice(const std::string& key, const ChoiceTable<T>& choices) {
  const YamlKey& row = Row(key);
  YAML::Node n = Take(key);
  std::string name = row.fallback_text;
  if (n.IsDefined()) {
    if (!n.IsScalar()) FailAt(n, Child(key), "expected one of " + JoinNames(choices.names()));
    name = n.Scalar();
  } else if (row.required) {
    Required(key);
  }
  const T* value = choices.Find(name);
  if (!value) FailAt(n.IsDefined() ? n : node_, Child(key), choices.Unknown(name));
  return *value;
}

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_CORE_YAML_MAP_H_
