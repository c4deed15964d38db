#include "sim/core/yaml_map.h"

#include <algorithm>
#include <sstream>

namespace kvroute::sim {

void FailAt(const std::string& source, const YAML::Node& node, const std::string& path,
            const std::string& message) {
  std::ostringstream out;
  out << source;
  if (node.IsDefined() && node.Mark().line >= 0) out << ":" << node.Mark().line + 1;
  out << ": key '" << path << "': " << message;
  throw YamlError(out.str());
}

YamlMap::YamlMap(std::string source, YAML::Node node, std::string path)
    : source_(std::move(source)), node_(node), path_(std::move(path)) {
  if (!node_.IsMap())
    FailAt(source_, node_, path_.empty() ? "(top level)" : path_, "expected a map");
}

std::string YamlMap::Child(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

YAML::Node YamlMap::Take(const std::string& key) {
  taken_.push_back(key);
  return YamlAt(node_, key);
}

YAML::Node YamlMap::Required(const std::string& key) {
  YAML::Node n = Take(key);
  if (!n.IsDefined()) FailAt(source_, node_, Child(key), "required key is missing");
  return n;
}

void YamlMap::Fail(const std::string& key, const std::string& message) const {
  YAML::Node n = YamlAt(node_, key);
  FailAt(source_, n.IsDefined() ? n : node_, Child(key), message);
}

double YamlMap::Number(const std::string& key, double fallback, double min, double max) {
  YAML::Node n = Take(key);
  if (!n.IsDefined()) return fallback;
  double value = 0;
  if (!n.IsScalar() || !YAML::convert<double>::decode(n, value) || !std::isfinite(value)) {
    FailAt(source_, n, Child(key), "expected a number");
  }
  if (value < min || value > max) {
    std::ostringstream msg;
    msg << "must be in [" << min << ", " << max << "], got " << value;
    FailAt(source_, n, Child(key), msg.str());
  }
  return value;
}

double YamlMap::RequiredNumber(const std::string& key, double min, double max) {
  Required(key);
  return Number(key, 0, min, max);
}

uint64_t YamlMap::Integer(const std::string& key, uint64_t fallback, uint64_t min, uint64_t max) {
  YAML::Node n = Take(key);
  if (!n.IsDefined()) return fallback;
  double value = 0;
  if (!n.IsScalar() || !YAML::convert<double>::decode(n, value) || value != std::floor(value)) {
    FailAt(source_, n, Child(key), "expected a whole number");
  }
  if (value < static_cast<double>(min) || value > static_cast<double>(max)) {
    std::ostringstream msg;
    msg << "must be in [" << min << ", " << max << "], got " << value;
    FailAt(source_, n, Child(key), msg.str());
  }
  return static_cast<uint64_t>(value);
}

std::string YamlMap::String(const std::string& key, const std::string& fallback) {
  YAML::Node n = Take(key);
  if (!n.IsDefined()) return fallback;
  if (!n.IsScalar()) FailAt(source_, n, Child(key), "expected a string");
  return n.as<std::string>();
}

bool YamlMap::Bool(const std::string& key, bool fallback) {
  YAML::Node n = Take(key);
  if (!n.IsDefined()) return fallback;
  bool value = false;
  if (!n.IsScalar() || !YAML::convert<bool>::decode(n, value)) {
    FailAt(source_, n, Child(key), "expected true or false");
  }
  return value;
}

void YamlMap::Finish() const {
  for (const auto& entry : node_) {
    std::string key = entry.first.as<std::string>();
    if (std::find(taken_.begin(), taken_.end(), key) == taken_.end()) {
      std::string valid;
      for (const std::string& k : taken_) valid += (valid.empty() ? "" : ", ") + k;
      FailAt(source_, entry.first, Child(key), "unknown key (valid here: " + valid + ")");
    }
  }
}

}  // namespace kvroute::sim
