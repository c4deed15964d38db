#include "analysis/published_values.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <sstream>

#include "analysis/json_writer.h"

namespace kvroute::analysis {
namespace {

constexpr const char* kKeys[] = {"policy",     "slo",         "capacity_qps",
                                 "ci_low_qps", "ci_high_qps", "source"};

bool KnownKey(const std::string& key) {
  return std::find(std::begin(kKeys), std::end(kKeys), key) != std::end(kKeys);
}

std::string ValidKeys() {
  std::string out;
  for (const char* k : kKeys) out += (out.empty() ? "" : ", ") + std::string(k);
  return out;
}

// One entry as (key, text) pairs, located for messages.
struct Entry {
  std::string where;  // "file:line"
  std::vector<std::pair<std::string, std::string>> cells;
};

double Number(const Entry& e, const std::string& key, const std::string& text) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || !std::isfinite(v) || v <= 0) {
    throw PublishedValuesError(e.where + ": key '" + key + "': expected a number > 0, got '" +
                               text + "'");
  }
  return v;
}

PublishedValue Parse(const Entry& e, const SweepResults& results) {
  PublishedValue v;
  bool has_policy = false, has_capacity = false;
  std::set<std::string> seen;
  for (const auto& [key, text] : e.cells) {
    if (!KnownKey(key)) {
      throw PublishedValuesError(e.where + ": key '" + key +
                                 "': unknown key (valid: " + ValidKeys() + ")");
    }
    if (!seen.insert(key).second) {
      throw PublishedValuesError(e.where + ": key '" + key + "': given twice");
    }
    if (key == "policy") {
      v.policy = text;
      has_policy = true;
    } else if (key == "source") {
      v.source = text;
    } else if (key == "slo") {
      uint32_t index = 0;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), index);
      if (ec != std::errc() || ptr != text.data() + text.size() || index >= results.slos.size()) {
        throw PublishedValuesError(e.where + ": key 'slo': expected the index of one of the " +
                                   std::to_string(results.slos.size()) +
                                   " SLOs of the results, got '" + text + "'");
      }
      v.slo = index;
    } else if (key == "capacity_qps") {
      v.capacity_qps = Number(e, key, text);
      has_capacity = true;
    } else if (key == "ci_low_qps") {
      v.ci_low_qps = Number(e, key, text);
    } else {
      v.ci_high_qps = Number(e, key, text);
    }
  }
  if (!has_policy) throw PublishedValuesError(e.where + ": key 'policy': required key is missing");
  if (!has_capacity) {
    throw PublishedValuesError(e.where + ": key 'capacity_qps': required key is missing");
  }
  if (std::isnan(v.ci_low_qps) != std::isnan(v.ci_high_qps)) {
    throw PublishedValuesError(e.where + ": key 'ci_low_qps': give both ends of the interval");
  }
  if (!std::isnan(v.ci_low_qps) &&
      !(v.ci_low_qps <= v.capacity_qps && v.capacity_qps <= v.ci_high_qps)) {
    throw PublishedValuesError(e.where + ": key 'ci_low_qps': the interval must hold capacity_qps");
  }
  bool known = std::any_of(results.points.begin(), results.points.end(),
                           [&](const PointResult& p) { return p.policy == v.policy; });
  if (!known) {
    throw PublishedValuesError(e.where + ": key 'policy': '" + v.policy +
                               "' is not a policy of the results file");
  }
  return v;
}

std::vector<Entry> CsvEntries(const std::string& path, std::istream& in) {
  std::vector<Entry> entries;
  std::vector<std::string> header;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream stream(line);
    for (std::string cell; std::getline(stream, cell, ',');) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    const std::string where = path + ":" + std::to_string(number);
    if (header.empty()) {
      header = cells;
      continue;
    }
    if (cells.size() != header.size()) {
      throw PublishedValuesError(where + ": " + std::to_string(cells.size()) +
                                 " cells, the header " + std::to_string(header.size()));
    }
    Entry e{where, {}};
    for (size_t i = 0; i < cells.size(); ++i) {
      if (!cells[i].empty()) e.cells.emplace_back(header[i], cells[i]);
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

std::vector<Entry> YamlEntries(const std::string& path, std::istream& in) {
  YAML::Node root;
  try {
    root = YAML::Load(in);
  } catch (const YAML::Exception& e) {
    throw PublishedValuesError(path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!root.IsSequence()) throw PublishedValuesError(path + ": expected a list of maps");
  std::vector<Entry> entries;
  for (const YAML::Node& item : root) {
    const std::string where = path + ":" + std::to_string(item.Mark().line + 1);
    if (!item.IsMap()) throw PublishedValuesError(where + ": expected a map");
    Entry e{where, {}};
    for (const auto& kv : item) {
      if (!kv.second.IsScalar()) {
        throw PublishedValuesError(where + ": key '" + kv.first.Scalar() + "': expected a value");
      }
      e.cells.emplace_back(kv.first.Scalar(), kv.second.Scalar());
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

}  // namespace

std::vector<PublishedValue> ReadPublishedValues(const std::string& path,
                                                const SweepResults& results) {
  std::ifstream in(path);
  if (!in) throw PublishedValuesError(path + ": cannot open");
  const bool yaml = path.ends_with(".yaml") || path.ends_with(".yml");
  std::vector<Entry> entries = yaml ? YamlEntries(path, in) : CsvEntries(path, in);
  if (entries.empty()) throw PublishedValuesError(path + ": no values");
  std::vector<PublishedValue> values;
  std::set<std::pair<std::string, uint32_t>> given;
  for (const Entry& e : entries) {
    PublishedValue v = Parse(e, results);
    if (!given.insert({v.policy, v.slo}).second) {
      throw PublishedValuesError(e.where + ": policy '" + v.policy + "' and SLO " +
                                 std::to_string(v.slo) + " are given twice");
    }
    values.push_back(std::move(v));
  }
  return values;
}

std::string PublishedValuesJson(const std::vector<PublishedValue>& values) {
  JsonWriter json;
  json.BeginArray();
  for (const PublishedValue& v : values) {
    json.BeginObject();
    json.Key("policy");
    json.String(v.policy);
    json.Key("slo");
    json.Integer(v.slo);
    json.Key("capacity_qps");
    json.Number(v.capacity_qps);
    json.Key("ci_low_qps");
    json.Number(v.ci_low_qps);
    json.Key("ci_high_qps");
    json.Number(v.ci_high_qps);
    json.Key("source");
    json.String(v.source);
    json.EndObject();
  }
  json.EndArray();
  return json.str();
}

}  // namespace kvroute::analysis
