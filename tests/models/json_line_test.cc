// The JSONL cursor and the empirical-length column read through it: values
// of every JSON kind are skipped, the named field is read as written, and a
// malformed line is refused naming the file, line and field.
#include "models/json_line.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "models/number_column.h"

namespace kvroute::models {
namespace {

std::string Write(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::string ErrorOf(const std::string& path, const std::string& column) {
  try {
    ReadNumberColumn(path, column);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(JsonLineTest, SkipsEveryKindOfValue) {
  JsonLine json(R"( {"s": "a \"quoted\" \\ word", "n": -1.5e3, "t": true, "f": false, "z": null,)"
                R"( "a": [1, [2, {"b": []}], "x"], "o": {"k": {"l": [null]}}, "end": 7} )");
  json.Expect('{', "");
  std::vector<std::string> keys;
  for (;;) {
    keys.push_back(json.Key());
    if (keys.back() == "end") break;
    json.SkipValue(keys.back());
    json.Expect(',', keys.back());
  }
  EXPECT_EQ(json.Whole("end", 0, 10), 7u);
  json.Expect('}', "");
  EXPECT_TRUE(json.AtEnd());
  EXPECT_EQ(keys, (std::vector<std::string>{"s", "n", "t", "f", "z", "a", "o", "end"}));
}

TEST(JsonLineTest, RefusesMalformedValues) {
  auto error_of = [](const std::string& text) -> std::string {
    JsonLine json(text);
    try {
      json.SkipValue("v");
    } catch (const JsonLineError& e) {
      EXPECT_EQ(e.field(), "v");
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error_of(R"("open)"), "unterminated string");
  EXPECT_EQ(error_of(R"("ends in \)"), "unterminated string");
  EXPECT_EQ(error_of("[1, 2,]"), "expected a number");
  EXPECT_EQ(error_of("[1 2]"), "expected ','");
  EXPECT_EQ(error_of("{\"k\" 1}"), "expected ':'");
  EXPECT_EQ(error_of("nope"), "expected a number");
  EXPECT_EQ(error_of(""), "expected a value");
  EXPECT_EQ(error_of(std::string(100, '[')), "nested too deeply");
  EXPECT_EQ(error_of(std::string(10, '[') + std::string(10, ']')), "no error");
}

// SkipValue passes over plain digit runs without converting them: it must
// stop, accept and refuse exactly where Number does, whatever the number's shape.
TEST(JsonLineTest, SkippedNumbersEndAndFailWhereNumberDoes) {
  const std::string digits_300(300, '9'), digits_301(301, '9'), digits_400(400, '9');
  const std::vector<std::string> texts = {"0",
                                          "7,",
                                          "-12]",
                                          "123456789012345678901",
                                          "00012}",
                                          "1.5",
                                          "2e3 ",
                                          "-4E-2,",
                                          "5.",
                                          "12abc",
                                          "0x1F",
                                          "-",
                                          "--3",
                                          "+3",
                                          "-0",
                                          digits_300,
                                          digits_301 + ",",
                                          digits_400,
                                          "-" + digits_400,
                                          "1e400",
                                          "inf",
                                          "nan"};
  for (const std::string& text : texts) {
    SCOPED_TRACE(text.substr(0, 40));
    auto outcome = [&](bool skip) -> std::string {
      JsonLine json(text);
      try {
        if (skip) {
          json.SkipValue("v");
        } else {
          json.Number("v");
        }
      } catch (const JsonLineError& e) {
        return std::string("error: ") + e.what();
      }
      // Where the cursor stopped: what a caller reads next.
      return json.Peek(',')   ? "then ','"
             : json.Peek(']') ? "then ']'"
             : json.AtEnd()   ? "at end"
                              : "then other";
    };
    EXPECT_EQ(outcome(true), outcome(false));
  }
}

TEST(JsonLineTest, StringsAreDecoded) {
  JsonLine json(R"("a\"b\\c\/d\n\t\u00e9\u20ac\ud83d\ude00")");
  EXPECT_EQ(json.String("s"), "a\"b\\c/d\n\t\u00e9\u20ac\U0001F600");
  EXPECT_TRUE(json.AtEnd());
  auto error_of = [](const std::string& text) -> std::string {
    JsonLine bad(text);
    try {
      bad.String("s");
    } catch (const JsonLineError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error_of(R"("\x")"), "unknown escape \\x");
  EXPECT_EQ(error_of(R"("\u12g4")"), "expected four hex digits after \\u");
  EXPECT_EQ(error_of(R"("\ud83d")"), "unpaired surrogate");
  EXPECT_EQ(error_of(R"("\ude00")"), "unpaired surrogate");
  EXPECT_EQ(error_of(R"("open)"), "unterminated string");
}

TEST(JsonLineTest, WholeNumbersAreChecked) {
  JsonLine json("2.5");
  try {
    json.Whole("k", 0, 9);
    FAIL();
  } catch (const JsonLineError& e) {
    EXPECT_EQ(std::string(e.what()), "expected a whole number in [0, 9], got 2.5");
  }
}

TEST(NumberColumnJsonlTest, ReadsTheFieldAmongOthers) {
  const std::string path = Write(
      "lengths.jsonl",
      "{\"timestamp\": 0, \"input_length\": 6758, \"hash_ids\": [0, 1, 2], \"note\": \"a,b}\"}\n"
      "\n"
      "# a comment\n"
      "{\"meta\": {\"input_length\": 1}, \"input_length\": \"12\"}\n"
      "  {\"input_length\": 3.5e2}  \n");
  EXPECT_EQ(ReadNumberColumn(path, "input_length"), (std::vector<double>{6758, 12, 350}));
}

TEST(NumberColumnJsonlTest, RefusesWithFileLineAndField) {
  struct Case {
    std::string text, expected;
  };
  const std::vector<Case> cases = {
      {"{\"n\": 3}\n{\"m\": 4}\n", "c.jsonl:2: field 'n': missing"},
      {"{\"n\": 3, \"n\": 4}\n", "c.jsonl:1: field 'n': given twice"},
      {"[3]\n", "c.jsonl:1: field 'n': not a JSON object"},
      {"{\"n\": [3]}\n", "c.jsonl:1: field 'n': expected a number"},
      {"{\"n\": -3}\n", "c.jsonl:1: field 'n': expected a non-negative number, got '-3'"},
      {"{\"n\": null}\n", "c.jsonl:1: field 'n': expected a non-negative number, got 'null'"},
      {"{\"n\": 3} x\n", "c.jsonl:1: field 'n': unexpected text after the object"},
      {"{\"m\": [1,, 2], \"n\": 3}\n",
       "c.jsonl:1: field 'n': malformed JSON in 'm': expected a number"},
      {"{\"n\": 3\n", "c.jsonl:1: field 'n': malformed JSON in 'n': expected ','"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ErrorOf(Write("c.jsonl", c.text), "n"), testing::TempDir() + c.expected) << c.text;
  }
}

}  // namespace
}  // namespace kvroute::models
