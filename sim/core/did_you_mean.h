// Suggestions for a misspelled name: the closest of the valid names by edit
// distance, so that an error can say "did you mean 'replicas'?". Used for
// commands, options, scenario keys, policies, policy parameters and profiles.
#ifndef KVROUTE_SIM_CORE_DID_YOU_MEAN_H_
#define KVROUTE_SIM_CORE_DID_YOU_MEAN_H_

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kvroute::sim {

// Optimal-string-alignment distance: insertions, deletions, substitutions and
// transpositions of adjacent characters each cost 1 ("kyes" is 1 from "keys").
size_t EditDistance(std::string_view a, std::string_view b);

// The valid name closest to `given`, if it is close enough to be a likely
// misspelling: at most a third of the longer name's length away (at least 1,
// at most 3 edits), or `given` is a prefix of exactly one name. Ties go to the
// first in `valid`. Nothing when `given` is itself valid.
std::optional<std::string> ClosestName(std::string_view given, std::span<const std::string> valid);

// "; did you mean 'x'?" or "" — to append to a message that lists valid names.
std::string DidYouMean(std::string_view given, std::span<const std::string> valid);

// "a, b, c" -> {"a", "b", "c"}: for valid names already joined into a message.
std::vector<std::string> SplitNames(std::string_view joined);

// "a, b, c": each name once, in first-seen order.
std::string JoinNames(std::span<const std::string> names);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_CORE_DID_YOU_MEAN_H_
