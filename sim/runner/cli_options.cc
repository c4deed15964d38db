#include "sim/runner/cli_options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>

#include "sim/core/did_you_mean.h"
#include "sim/core/yaml_keys.h"

namespace kvroute::sim {
namespace {

namespace po = boost::program_options;

// Bounds as people read them: 4096, 1e9.
std::string Bound(double value) { return FormatCompactNumber(value); }

std::string RangeText(double min, double max, bool exclusive_min) {
  if (std::isinf(max)) return std::string(exclusive_min ? "> " : ">= ") + Bound(min);
  return std::string(exclusive_min ? "in (" : "in [") + Bound(min) + ", " + Bound(max) + "]";
}

// A typed_value whose text is parsed by `parse` (the strict parsers above)
// instead of boost::lexical_cast, which reads "-1" as a huge unsigned number.
template <typename T>
class StrictValue : public po::typed_value<T> {
 public:
  using Parser = std::function<T(const std::string&)>;
  StrictValue(Parser parse) : po::typed_value<T>(nullptr), parse_(std::move(parse)) {}

  void xparse(boost::any& store, const std::vector<std::string>& tokens) const override {
    if (tokens.size() != 1) throw UsageError("expected one value");
    store = boost::any(parse_(tokens[0]));
  }

 private:
  Parser parse_;
};

std::string FlagName(const char* name) { return std::string("--") + name; }

}  // namespace

uint64_t ParseWholeNumber(const std::string& flag, const std::string& text, uint64_t min,
                          uint64_t max) {
  const std::string expected = flag + ": expected a whole number " +
                               RangeText(static_cast<double>(min), static_cast<double>(max), false);
  uint64_t value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (begin != end && *begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < min || value > max) {
    throw UsageError(expected + ", got '" + text + "'");
  }
  return value;
}

double ParseRealNumber(const std::string& flag, const std::string& text, double min, double max,
                       bool exclusive_min) {
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const bool in_range =
      (exclusive_min ? value > min : value >= min) && value <= max && std::isfinite(value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !in_range) {
    throw UsageError(flag + ": expected a number " + RangeText(min, max, exclusive_min) +
                     ", got '" + text + "'");
  }
  return value;
}

std::vector<double> ParseRealList(const std::string& flag, const std::string& text, double min,
                                  double max, bool exclusive_min) {
  std::vector<double> values;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    values.push_back(
        ParseRealNumber(flag, text.substr(start, comma - start), min, max, exclusive_min));
    if (comma == std::string::npos) return values;
    start = comma + 1;
  }
}

template <typename Value>
void OptionList::Add(const char* name, Value* value, const std::string& description) {
  if (next_required_) value->required();
  next_required_ = false;
  options_->add_options()(name, value, description.c_str());
}

OptionList& OptionList::Flag(const char* name, const char* description) {
  options_->add_options()(name, po::bool_switch(), description);
  return *this;
}

OptionList& OptionList::Text(const char* name, const char* metavar, const char* description,
                             std::optional<std::string> fallback) {
  auto* value = po::value<std::string>()->value_name(metavar);
  if (fallback) value->default_value(*fallback);
  Add(name, value, description);
  return *this;
}

OptionList& OptionList::TextDerived(const char* name, const char* metavar, const char* description,
                                    const char* fallback_text) {
  // The default is shown, and the value left unset, so the command derives it.
  auto* value = po::value<std::string>()->value_name(metavar);
  value->default_value(std::string(), fallback_text);
  Add(name, value, description);
  return *this;
}

OptionList& OptionList::Repeated(const char* name, const char* metavar, const char* description) {
  options_->add_options()(
      name, po::value<std::vector<std::string>>()->value_name(metavar)->composing(), description);
  return *this;
}

OptionList& OptionList::WholeNumber(const char* name, const char* metavar, const char* description,
                                    uint64_t min, uint64_t max, std::optional<uint64_t> fallback,
                                    const char* fallback_text) {
  const std::string flag = FlagName(name);
  auto* value = new StrictValue<uint64_t>(
      [=](const std::string& text) { return ParseWholeNumber(flag, text, min, max); });
  value->value_name(metavar);
  if (fallback && fallback_text) {
    value->default_value(*fallback, fallback_text);
  } else if (fallback) {
    value->default_value(*fallback);
  }
  const std::string full = std::string(description) + "; whole number " +
                           RangeText(static_cast<double>(min), static_cast<double>(max), false);
  Add(name, value, full);
  return *this;
}

OptionList& OptionList::RealNumber(const char* name, const char* metavar, const char* description,
                                   double min, double max, bool exclusive_min,
                                   std::optional<double> fallback, const char* fallback_text) {
  const std::string flag = FlagName(name);
  auto* value = new StrictValue<double>([=](const std::string& text) {
    return ParseRealNumber(flag, text, min, max, exclusive_min);
  });
  value->value_name(metavar);
  if (fallback) {
    value->default_value(*fallback, fallback_text ? fallback_text : FormatYamlNumber(*fallback));
  }
  const std::string full =
      std::string(description) + "; number " + RangeText(min, max, exclusive_min);
  Add(name, value, full);
  return *this;
}

OptionList& OptionList::Choice(const char* name, const std::vector<std::string>& choices,
                               const char* description, std::optional<std::string> fallback) {
  const std::string flag = FlagName(name);
  auto* value = new StrictValue<std::string>([=](const std::string& text) {
    if (std::find(choices.begin(), choices.end(), text) == choices.end()) {
      throw UsageError(flag + ": expected one of " + JoinNames(choices) + ", got '" + text + "'" +
                       DidYouMean(text, choices));
    }
    return text;
  });
  std::string metavar;
  for (const std::string& c : choices) metavar += (metavar.empty() ? "" : "|") + c;
  value->value_name(metavar);
  if (fallback) value->default_value(*fallback);
  Add(name, value, description);
  return *this;
}

std::string TextOr(const po::variables_map& vm, const char* name, const std::string& fallback) {
  return Given(vm, name) || (vm.count(name) && !vm[name].as<std::string>().empty())
             ? vm[name].as<std::string>()
             : fallback;
}

bool Given(const po::variables_map& vm, const char* name) {
  return vm.count(name) > 0 && !vm[name].defaulted();
}

}  // namespace kvroute::sim
