// A name -> value table for a key or flag that takes one of a few names (an
// enum in the code): lookup, the reverse, and the list of valid names for
// messages and docs, all from one table (STYLE.md: no hand-typed valid lists).
#ifndef KVROUTE_SIM_CORE_CHOICE_TABLE_H_
#define KVROUTE_SIM_CORE_CHOICE_TABLE_H_

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/did_you_mean.h"

namespace kvroute::sim {

template <typename T>
class ChoiceTable {
 public:
  struct Choice {
    std::string name;
    T value;
  };

  // `what` names the thing chosen in messages ("eviction order").
  ChoiceTable(std::string what, std::initializer_list<Choice> choices)
      : what_(std::move(what)), choices_(choices) {
    for (const Choice& c : choices_) names_.push_back(c.name);
  }

  // nullptr when `name` is not one of the choices.
  const T* Find(std::string_view name) const {
    for (const Choice& c : choices_) {
      if (c.name == name) return &c.value;
    }
    return nullptr;
  }

  // REQUIRES: `value` is in the table.
  const std::string& NameOf(T value) const {
    for (const Choice& c : choices_) {
      if (c.value == value) return c.name;
    }
    throw std::logic_error(what_ + ": value missing from its choice table");
  }

  // "unknown eviction order 'x' (valid: a, b; did you mean 'a'?)"
  std::string Unknown(std::string_view given) const {
    return "unknown " + what_ + " '" + std::string(given) + "' (valid: " + JoinNames(names_) +
           DidYouMean(given, names_) + ")";
  }

  const std::vector<std::string>& names() const { return names_; }
  const std::string& what() const { return what_; }

 private:
  std::string what_;
  std::vector<Choice> choices_;
  std::vector<std::string> names_;
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_CORE_CHOICE_TABLE_H_
