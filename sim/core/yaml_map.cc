#include "sim/core/yaml_map.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "sim/core/did_you_mean.h"

namespace kvroute::sim {
namespace {

std::string Range(double min, double max, double got) {
  return "must be in [" + FormatYamlNumber(min) + ", " + FormatYamlNumber(max) + "], got " +
         FormatYamlNumber(got);
}

}  // namespace

YamlMap::YamlMap(std::string source, YAML::Node node, std::string path)
    : YamlMap(std::make_shared<const YamlSource>(std::move(source)), node, std::move(path)) {}

YamlMap::YamlMap(std::shared_ptr<const YamlSource> source, YAML::Node node, std::string path,
                 const YamlKeyTable* table)
    : source_(std::move(source)), node_(node), path_(std::move(path)), table_(table) {
  if (!node_.IsMap()) FailAt(node_, path_.empty() ? "(top level)" : path_, "expected a map");
  // Duplicate keys, also in maps a caller built without LoadStrictYaml.
  CheckYamlTree(node_, *source_, path_);
  if (table_) RejectUnknownKeys();
}

std::vector<std::string> YamlMap::ValidNames() const { return table_ ? table_->Names() : taken_; }

void YamlMap::RejectUnknownKeys() const {
  const std::vector<std::string> valid = ValidNames();
  for (const auto& entry : node_) {
    const std::string key = entry.first.Scalar();
    if (std::find(valid.begin(), valid.end(), key) == valid.end()) {
      FailAt(entry.first, Child(key),
             "unknown key (valid here: " + JoinNames(valid) + DidYouMean(key, valid) + ")");
    }
  }
}

std::string YamlMap::Child(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

std::string YamlMap::Where(const YAML::Node& node, const std::string& path) const {
  return source_->Where(node, path);
}

void YamlMap::FailAt(const YAML::Node& node, const std::string& path,
                     const std::string& message) const {
  source_->Fail(node, path, message);
}

void YamlMap::Fail(const std::string& key, const std::string& message) const {
  YAML::Node n = YamlAt(node_, key);
  FailAt(n.IsDefined() ? n : node_, Child(key), message);
}

const YamlKey& YamlMap::Row(const std::string& key) const {
  const YamlKey* row = table_ ? table_->Find(key) : nullptr;
  if (!row) throw std::logic_error("key '" + Child(key) + "' is read but not in its key table");
  return *row;
}

YAML::Node YamlMap::Take(const std::string& key) {
  if (table_) Row(key);
  if (std::find(taken_.begin(), taken_.end(), key) == taken_.end()) taken_.push_back(key);
  return YamlAt(node_, key);
}

YAML::Node YamlMap::Required(const std::string& key) {
  YAML::Node n = Take(key);
  if (n.IsDefined()) return n;
  // A misspelling of the required key is reported as what it is.
  const std::vector<std::string> wanted{key};
  for (const auto& entry : node_) {
    const std::string given = entry.first.Scalar();
    if (ClosestName(given, wanted)) {
      FailAt(entry.first, Child(given), "unknown key; did you mean '" + key + "'?");
    }
  }
  FailAt(node_, Child(key), "required key is missing");
}

double YamlMap::Number(const std::string& key, double fallback, double min, double max) {
  YAML::Node n = Take(key);
  if (!n.IsDefined()) return fallback;
  double value = 0;
  if (!n.IsScalar() || !YAML::convert<double>::decode(n, value) || !std::isfinite(value)) {
    FailAt(n, Child(key), "expected a number");
  }
  if (value < min || value > max) FailAt(n, Child(key), Range(min, max, value));
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
  if (!n.IsScalar() || !YAML::convert<double>::decode(n, value) || !std::isfinite(value) ||
      value != std::floor(value)) {
    FailAt(n, Child(key), "expected a whole number");
  }
  if (value < static_cast<double>(min) || value > static_cast<double>(max)) {
    FailAt(n, Child(key), Range(static_cast<double>(min), static_cast<double>(max), value));
  }
  return static_cast<uint64_t>(value);
}

std::string YamlMap::String(const std::string& key, const std::string& fallback) {
  YAML::Node n = Take(key);
  if (!n.IsDefined()) return fallback;
  if (!n.IsScalar()) FailAt(n, Child(key), "expected a string");
  return n.Scalar();
}

bool YamlMap::Bool(const std::string& key, bool fallback) {
  YAML::Node n = Take(key);
  if (!n.IsDefined()) return fallback;
  bool value = false;
  if (!n.IsScalar() || !YAML::convert<bool>::decode(n, value)) {
    FailAt(n, Child(key), "expected true or false");
  }
  return value;
}

double YamlMap::Number(const std::string& key) {
  const YamlKey& row = Row(key);
  if (row.required) Required(key);
  return Number(key, row.fallback, row.min, row.max);
}

uint64_t YamlMap::Integer(const std::string& key) {
  const YamlKey& row = Row(key);
  if (row.required) Required(key);
  return Integer(key, static_cast<uint64_t>(row.fallback), static_cast<uint64_t>(row.min),
                 static_cast<uint64_t>(row.max));
}

std::string YamlMap::String(const std::string& key) {
  const YamlKey& row = Row(key);
  if (row.required) Required(key);
  return String(key, row.fallback_text);
}

bool YamlMap::Bool(const std::string& key) {
  const YamlKey& row = Row(key);
  if (row.required) Required(key);
  return Bool(key, row.fallback != 0);
}

YamlMap YamlMap::Map(const std::string& key, const YamlKeyTable* table) {
  YAML::Node n = Required(key);
  return YamlMap(source_, n, Child(key), table);
}

void YamlMap::Finish() const {
  for (const auto& entry : node_) {
    const std::string key = entry.first.Scalar();
    if (std::find(taken_.begin(), taken_.end(), key) != taken_.end()) continue;
    const YamlKey* row = table_ ? table_->Find(key) : nullptr;
    if (row) {
      FailAt(entry.first, Child(key),
             "does not apply here" +
                 (row->applies.empty() ? std::string() : " (read only with " + row->applies + ")"));
    }
    const std::vector<std::string> valid = ValidNames();
    FailAt(entry.first, Child(key),
           "unknown key (valid here: " + JoinNames(valid) + DidYouMean(key, valid) + ")");
  }
}

}  // namespace kvroute::sim
