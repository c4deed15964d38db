#include "sim/core/did_you_mean.h"

#include <algorithm>
#include <vector>

namespace kvroute::sim {

size_t EditDistance(std::string_view a, std::string_view b) {
  // Three rows of the dynamic programme: i-2, i-1 and i.
  const size_t n = b.size();
  std::vector<size_t> before(n + 1), previous(n + 1), current(n + 1);
  for (size_t j = 0; j <= n; ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= n; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[n];
}

std::optional<std::string> ClosestName(std::string_view given, std::span<const std::string> valid) {
  if (given.empty()) return std::nullopt;
  if (std::find(valid.begin(), valid.end(), given) != valid.end()) return std::nullopt;
  std::optional<std::string> best;
  size_t best_distance = SIZE_MAX;
  for (const std::string& name : valid) {
    const size_t distance = EditDistance(given, name);
    const size_t allowed = std::clamp<size_t>(std::max(given.size(), name.size()) / 3, 1, 3);
    if (distance <= allowed && distance < best_distance) {
      best = name;
      best_distance = distance;
    }
  }
  if (best) return best;
  // An abbreviation: the one name `given` begins.
  std::optional<std::string> prefixed;
  for (const std::string& name : valid) {
    if (name.size() > given.size() && name.compare(0, given.size(), given) == 0) {
      if (prefixed && *prefixed != name) return std::nullopt;
      prefixed = name;
    }
  }
  return prefixed;
}

std::string DidYouMean(std::string_view given, std::span<const std::string> valid) {
  std::optional<std::string> closest = ClosestName(given, valid);
  return closest ? "; did you mean '" + *closest + "'?" : "";
}

std::vector<std::string> SplitNames(std::string_view joined) {
  std::vector<std::string> names;
  while (!joined.empty()) {
    size_t comma = joined.find(',');
    std::string_view name = joined.substr(0, comma);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (!name.empty()) names.emplace_back(name);
    if (comma == std::string_view::npos) break;
    joined.remove_prefix(comma + 1);
  }
  return names;
}

std::string JoinNames(std::span<const std::string> names) {
  std::string out;
  std::vector<std::string_view> seen;
  for (const std::string& name : names) {
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
    seen.push_back(name);
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

}  // namespace kvroute::sim
