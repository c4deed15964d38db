// How kvroute commands declare and parse their options. Every option has a
// one-line description and, where it has one, a default, both given to
// Boost.Program_options and printed from there by `kvroute help`. Numbers go
// through one strict parser: the whole text must be a number in the option's
// range, so "-1" is never read as 2^64 - 1.
#ifndef KVROUTE_SIM_RUNNER_CLI_OPTIONS_H_
#define KVROUTE_SIM_RUNNER_CLI_OPTIONS_H_

#include <boost/program_options.hpp>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kvroute::sim {

// A bad command line: the CLI prints it with the command's usage and exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The strict parsers, for options and for the items of list options. `flag`
// names the option in errors ("--jobs"). Throw UsageError.
uint64_t ParseWholeNumber(const std::string& flag, const std::string& text, uint64_t min,
                          uint64_t max);
// `above` is an exclusive lower bound (a load must be > 0); `min` inclusive.
double ParseRealNumber(const std::string& flag, const std::string& text, double min, double max,
                       bool exclusive_min = false);
// Comma-separated values, each through the parser above.
std::vector<double> ParseRealList(const std::string& flag, const std::string& text, double min,
                                  double max, bool exclusive_min = false);

// Adds options to a Boost options_description, each with its description and
// default. Values are stored as uint64_t (WholeNumber), double (RealNumber),
// bool (Flag), std::string (Text, Choice) or std::vector<std::string> (Repeated).
class OptionList {
 public:
  explicit OptionList(boost::program_options::options_description* options) : options_(options) {}

  // Makes the next option added required: parsing fails without it, and help says so.
  OptionList& Required() {
    next_required_ = true;
    return *this;
  }

  OptionList& Flag(const char* name, const char* description);
  OptionList& Text(const char* name, const char* metavar, const char* description,
                   std::optional<std::string> fallback = {});
  // A text option whose default is computed by the command; `fallback_text` says what it is.
  OptionList& TextDerived(const char* name, const char* metavar, const char* description,
                          const char* fallback_text);
  OptionList& Repeated(const char* name, const char* metavar, const char* description);
  OptionList& WholeNumber(const char* name, const char* metavar, const char* description,
                          uint64_t min, uint64_t max, std::optional<uint64_t> fallback = {},
                          const char* fallback_text = nullptr);
  OptionList& RealNumber(const char* name, const char* metavar, const char* description, double min,
                         double max, bool exclusive_min, std::optional<double> fallback = {},
                         const char* fallback_text = nullptr);
  // One of `choices` (a Text whose value is checked when parsed).
  OptionList& Choice(const char* name, const std::vector<std::string>& choices,
                     const char* description, std::optional<std::string> fallback = {});

 private:
  template <typename Value>
  void Add(const char* name, Value* value, const std::string& description);

  boost::program_options::options_description* options_;
  bool next_required_ = false;
};

// The value of a Choice or Text option, or `fallback` when it was not given.
std::string TextOr(const boost::program_options::variables_map& vm, const char* name,
                   const std::string& fallback = "");
// True when the user gave the option (not just its default).
bool Given(const boost::program_options::variables_map& vm, const char* name);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_CLI_OPTIONS_H_
