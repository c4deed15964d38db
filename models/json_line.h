// A cursor over one line of a JSONL file, for the readers that take one flat
// object per line (Mooncake traces, empirical length columns). It reads keys,
// numbers, arrays of numbers and strings in place, and skips any other
// JSON value, without building a document: parsing each line with a general
// YAML parser was most of the time a 70B flagship point spent reading the
// Mooncake trace's lengths.
//
// A malformed line throws JsonLineError naming the field being read (empty
// before the first key); callers add the file and line.
#ifndef KVROUTE_MODELS_JSON_LINE_H_
#define KVROUTE_MODELS_JSON_LINE_H_

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kvroute::models {

class JsonLineError : public std::runtime_error {
 public:
  JsonLineError(std::string field, const std::string& message)
      : std::runtime_error(message), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

class JsonLine {
 public:
  explicit JsonLine(std::string_view text) : s_(text) {}

  // True if the next character, after blanks, is `c`.
  bool Peek(char c);
  // Consumes `c`, or throws "expected 'c'" for `field`.
  void Expect(char c, const std::string& field);
  // An object key and its ':'.
  std::string Key();
  double Number(const std::string& field);
  // A number that is whole and in [min, max].
  uint64_t Whole(const std::string& field, uint64_t min, uint64_t max);
  // The text of a number as written (for callers with their own checks).
  std::string_view NumberText(const std::string& field);
  // A string, its escapes decoded (\uXXXX, surrogate pairs included, as UTF-8).
  std::string String(const std::string& field);
  // Any JSON value: a string (escapes allowed), number, true, false, null,
  // array or object.
  void SkipValue(const std::string& field);
  // True if only blanks are left.
  bool AtEnd();

 private:
  void SkipBlanks();
  void SkipString(const std::string& field);
  uint32_t Hex4(const std::string& field);

  std::string_view s_;
  size_t pos_ = 0;
  int depth_ = 0;  // of SkipValue's nesting, bounded
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_JSON_LINE_H_
