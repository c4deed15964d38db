#include "sim/runner/previous_plan.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <unordered_set>

#include "sim/core/yaml_document.h"

namespace kvroute::sim {
namespace {

[[noreturn]] void Fail(const std::string& source, size_t line, size_t column,
                       const std::string& message) {
  throw PlanFileError(source + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " +
                      message);
}

// Checks one destination for `key` against the replicas and the key's others.
// Returns the problem, or "" when it is fine.
std::string CheckDestination(const std::string& key, uint64_t d, uint32_t replicas,
                             const std::vector<uint32_t>& so_far) {
  if (d >= replicas) {
    return "key '" + key + "': destination " + std::to_string(d) + " is not below --replicas " +
           std::to_string(replicas);
  }
  if (std::find(so_far.begin(), so_far.end(), d) != so_far.end()) {
    return "key '" + key + "': destination " + std::to_string(d) + " repeated";
  }
  return "";
}

// Splits on commas, keeping each field's 1-based starting column.
std::vector<std::pair<std::string, size_t>> Fields(const std::string& line) {
  std::vector<std::pair<std::string, size_t>> fields;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    fields.emplace_back(line.substr(start, comma - start), start + 1);
    if (comma == std::string::npos) return fields;
    start = comma + 1;
  }
}

}  // namespace

PreviousPlan ReadPreviousPlanCsv(std::istream& in, const std::string& source, uint32_t replicas) {
  PreviousPlan plan;
  std::unordered_set<std::string> seen;
  std::string line;
  bool header = false;
  for (size_t number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    auto fields = Fields(line);
    if (!header) {
      if (line != "key,rate,destinations") {
        Fail(source, number, 1, "expected the header 'key,rate,destinations'");
      }
      header = true;
      continue;
    }
    if (fields.size() != 3) {
      Fail(source, number, fields.size() > 3 ? fields[3].second - 1 : line.size() + 1,
           "expected 'key,rate,destinations'");
    }
    const std::string& key = fields[0].first;
    if (key.empty()) Fail(source, number, 1, "empty key");
    if (!seen.insert(key).second) Fail(source, number, 1, "key '" + key + "' repeated");
    const std::string& rate = fields[1].first;
    char* end = nullptr;
    errno = 0;
    double value = std::strtod(rate.c_str(), &end);
    if (rate.empty() || *end != '\0' || errno != 0 || !std::isfinite(value) || value < 0) {
      Fail(source, number, fields[1].second,
           "key '" + key + "': rate must be a non-negative number, got '" + rate + "'");
    }
    std::vector<uint32_t> destinations;
    const std::string& list = fields[2].first;
    for (size_t i = 0; i < list.size();) {
      if (list[i] == ' ') {
        ++i;
        continue;
      }
      size_t j = list.find(' ', i);
      if (j == std::string::npos) j = list.size();
      const size_t column = fields[2].second + i;
      uint64_t d = 0;
      auto [ptr, ec] = std::from_chars(list.data() + i, list.data() + j, d);
      if (ec != std::errc() || ptr != list.data() + j) {
        Fail(source, number, column,
             "key '" + key + "': destination '" + list.substr(i, j - i) +
                 "' is not a non-negative integer");
      }
      if (std::string problem = CheckDestination(key, d, replicas, destinations);
          !problem.empty()) {
        Fail(source, number, column, problem);
      }
      destinations.push_back(static_cast<uint32_t>(d));
      i = j;
    }
    if (destinations.empty()) {
      Fail(source, number, fields[2].second, "key '" + key + "': no destinations");
    }
    plan.keys.push_back(key);
    plan.destinations.push_back(std::move(destinations));
  }
  if (!header) Fail(source, 1, 1, "expected the header 'key,rate,destinations'");
  return plan;
}

PreviousPlan ReadPreviousPlanJson(std::istream& in, const std::string& source, uint32_t replicas) {
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto fail = [&](const YAML::Mark& mark, const std::string& message) {
    Fail(source, static_cast<size_t>(mark.line + 1), static_cast<size_t>(mark.column + 1), message);
  };
  YAML::Node root;
  try {
    // JSON is YAML; yaml-cpp gives line and column. The strict reader refuses
    // a field given twice and nesting no plan has.
    root = LoadStrictYaml(text, source);
  } catch (const YamlError& e) {
    throw PlanFileError(e.what());
  }
  if (!root.IsMap()) Fail(source, 1, 1, "expected an object with \"table\"");
  YAML::Node table = root["table"];
  if (!table.IsDefined()) fail(root.Mark(), "expected an object with \"table\"");
  if (!table.IsMap()) fail(table.Mark(), "\"table\" must map each key to its destinations");
  PreviousPlan plan;
  std::unordered_set<std::string> seen;
  for (const auto& entry : table) {
    if (!entry.first.IsScalar()) fail(entry.first.Mark(), "a key must be a string");
    const std::string key = entry.first.as<std::string>();
    if (!seen.insert(key).second) fail(entry.first.Mark(), "key '" + key + "' repeated");
    if (!entry.second.IsSequence() || entry.second.size() == 0) {
      fail(entry.second.Mark(), "key '" + key + "': expected a non-empty list of destinations");
    }
    std::vector<uint32_t> destinations;
    for (const YAML::Node& node : entry.second) {
      uint64_t d = 0;
      double as_double = 0;
      if (!node.IsScalar() || !YAML::convert<double>::decode(node, as_double) || as_double < 0 ||
          as_double != std::floor(as_double) || as_double > 4294967295.0) {
        fail(node.Mark(), "key '" + key + "': destination '" +
                              (node.IsScalar() ? node.Scalar() : std::string("?")) +
                              "' is not a non-negative integer");
      }
      d = static_cast<uint64_t>(as_double);
      if (std::string problem = CheckDestination(key, d, replicas, destinations);
          !problem.empty()) {
        fail(node.Mark(), problem);
      }
      destinations.push_back(static_cast<uint32_t>(d));
    }
    plan.keys.push_back(key);
    plan.destinations.push_back(std::move(destinations));
  }
  return plan;
}

}  // namespace kvroute::sim
