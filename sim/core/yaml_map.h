// Strict reading of a YAML map: every key must be taken by the reader, and any
// key left over is an error naming the valid ones. Errors carry the source
// name, the line and the dotted key path ("file.yaml:12: key 'a.b': ...").
// Scenarios and profiles are both read through it.
#ifndef KVROUTE_SIM_CORE_YAML_MAP_H_
#define KVROUTE_SIM_CORE_YAML_MAP_H_

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kvroute::sim {

class YamlError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Const lookup: operator[] on a non-const node adds the key to the map.
inline YAML::Node YamlAt(const YAML::Node& node, const std::string& key) { return node[key]; }

// "source:line: key 'path': message" as a YamlError.
[[noreturn]] void FailAt(const std::string& source, const YAML::Node& node, const std::string& path,
                         const std::string& message);

class YamlMap {
 public:
  // REQUIRES nothing; a node that is not a map is reported as an error.
  YamlMap(std::string source, YAML::Node node, std::string path);

  std::string Child(const std::string& key) const;
  YAML::Node Take(const std::string& key);
  YAML::Node Required(const std::string& key);
  double Number(const std::string& key, double fallback, double min = -INFINITY,
                double max = INFINITY);
  double RequiredNumber(const std::string& key, double min = -INFINITY, double max = INFINITY);
  uint64_t Integer(const std::string& key, uint64_t fallback, uint64_t min = 0,
                   uint64_t max = UINT32_MAX);
  std::string String(const std::string& key, const std::string& fallback);
  bool Bool(const std::string& key, bool fallback);
  // Rejects the keys that were never taken.
  void Finish() const;

  [[noreturn]] void Fail(const std::string& key, const std::string& message) const;
  const YAML::Node& node() const { return node_; }
  const std::string& source() const { return source_; }

 private:
  std::string source_;
  YAML::Node node_;
  std::string path_;
  std::vector<std::string> taken_;
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_CORE_YAML_MAP_H_
