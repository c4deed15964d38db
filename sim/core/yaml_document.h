// The one strict way kvroute reads YAML (scenarios, profiles, --set values,
// JSON plans): a document must parse, nest at most kMaxYamlDepth levels and
// have no key twice in any map, block or flow ({a: 1, a: 2}). Errors name the
// source, the line and the key ("s.yaml:12: key 'a.b': ...").
#ifndef KVROUTE_SIM_CORE_YAML_DOCUMENT_H_
#define KVROUTE_SIM_CORE_YAML_DOCUMENT_H_

#include <yaml-cpp/yaml.h>

#include <map>
#include <stdexcept>
#include <string>

namespace kvroute::sim {

class YamlError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// No kvroute input needs more than a handful of levels; deeper is refused
// before it can exhaust the stack of a recursive reader.
inline constexpr int kMaxYamlDepth = 64;

// Const lookup: operator[] on a non-const node adds the key to the map.
inline YAML::Node YamlAt(const YAML::Node& node, const std::string& key) { return node[key]; }

// Where a document's nodes came from, for messages. Keys given on the command
// line with --set have no line in the file; errors under them name the
// override instead.
class YamlSource {
 public:
  explicit YamlSource(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }

  // Keys at or under `path` came from `--set path=...`.
  void MarkOverridden(const std::string& path) { overridden_[path] = true; }
  bool IsOverridden(const std::string& path) const { return !OverrideFor(path).empty(); }

  // "file:12: key 'a.b'" or "--set a: key 'a.b'".
  std::string Where(const YAML::Node& node, const std::string& path) const;
  [[noreturn]] void Fail(const YAML::Node& node, const std::string& path,
                         const std::string& message) const;

 private:
  std::string OverrideFor(const std::string& path) const;

  std::string name_;
  std::map<std::string, bool> overridden_;
};

// "source:line: key 'path': message" as a YamlError.
[[noreturn]] void FailAt(const std::string& source, const YAML::Node& node, const std::string& path,
                         const std::string& message);

// Parses one document strictly (see above). Throws YamlError.
YAML::Node LoadStrictYaml(const std::string& text, const std::string& source);

// Checks `node` and everything under it for duplicate keys and depth; `path`
// names `node` in messages. Throws YamlError.
void CheckYamlTree(const YAML::Node& node, const YamlSource& source, const std::string& path);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_CORE_YAML_DOCUMENT_H_
