#include "sim/core/yaml_document.h"

#include <gtest/gtest.h>

#include "sim/core/yaml_map.h"

namespace kvroute::sim {
namespace {

std::string ErrorOf(const std::string& text) {
  try {
    LoadStrictYaml(text, "f.yaml");
  } catch (const YamlError& e) {
    return e.what();
  }
  return "";
}

TEST(YamlDocumentTest, DuplicateKeysAreRejectedWithBothLines) {
  EXPECT_EQ(ErrorOf("a: 1\nb: 2\na: 3\n"),
            "f.yaml:3: key 'a': duplicate key (first given on line 1)");
}

TEST(YamlDocumentTest, DuplicateKeysInsideFlowMapsAndListsAreRejected) {
  EXPECT_EQ(ErrorOf("a:\n  b: {x: 1, x: 2}\n"),
            "f.yaml:2: key 'a.b.x': duplicate key (first given on line 2)");
  EXPECT_EQ(ErrorOf("l:\n  - {n: 1}\n  - {n: 1, n: 2}\n"),
            "f.yaml:3: key 'l[1].n': duplicate key (first given on line 3)");
}

TEST(YamlDocumentTest, DeepNestingIsRefusedClearly) {
  std::string deep = "a: " + std::string(100000, '[') + std::string(100000, ']') + "\n";
  EXPECT_NE(ErrorOf(deep).find("nested more than 64 levels deep"), std::string::npos)
      << ErrorOf(deep);
  std::string medium = "a: " + std::string(100, '[') + std::string(100, ']') + "\n";
  EXPECT_NE(ErrorOf(medium).find("nested more than 64 levels deep"), std::string::npos);
  EXPECT_EQ(ErrorOf("a: [[[1]]]\n"), "");
}

TEST(YamlDocumentTest, InvalidYamlNamesTheLine) {
  EXPECT_NE(ErrorOf("a: 1\nb: [1, 2\n").find("f.yaml:"), std::string::npos);
  EXPECT_NE(ErrorOf("a: 1\nb: [1, 2\n").find("invalid YAML"), std::string::npos);
}

YamlKeyTable kTable{
    "sec",
    {IntegerKey("replicas", 1, 1, 100, "how many").Required(),
     NumberKey("weight", 1, 0, 10, "share"), ChoiceKey("kind", {"a", "b"}, "a", "which"),
     NumberKey("only_b", 0, 0, 1, "for b").When("kind: b")}};

std::string MapError(const std::string& text) {
  try {
    auto source = std::make_shared<const YamlSource>("f.yaml");
    YamlMap map(source, LoadStrictYaml(text, "f.yaml"), "sec", &kTable);
    map.Integer("replicas");
    map.Number("weight");
    map.Finish();
  } catch (const YamlError& e) {
    return e.what();
  }
  return "";
}

TEST(YamlMapTest, AMisspelledRequiredKeyIsReportedAsMisspelled) {
  EXPECT_EQ(MapError("replica: 2\n"),
            "f.yaml:1: key 'sec.replica': unknown key (valid here: replicas, weight, kind, "
            "only_b; did you mean 'replicas'?)");
  EXPECT_EQ(MapError("weight: 2\n"), "f.yaml:1: key 'sec.replicas': required key is missing");
}

TEST(YamlMapTest, DefaultsAndBoundsComeFromTheTable) {
  EXPECT_EQ(MapError("replicas: 2\nweight: 11\n"),
            "f.yaml:2: key 'sec.weight': must be in [0, 10], got 11");
  EXPECT_EQ(MapError("replicas: 0\n"), "f.yaml:1: key 'sec.replicas': must be in [1, 100], got 0");
  EXPECT_EQ(MapError("replicas: 1.5\n"), "f.yaml:1: key 'sec.replicas': expected a whole number");
  EXPECT_EQ(MapError("replicas: 3\n"), "");
}

TEST(YamlMapTest, AKeyOfAnotherKindIsNamedAsNotApplying) {
  EXPECT_EQ(MapError("replicas: 3\nonly_b: 1\n"),
            "f.yaml:2: key 'sec.only_b': does not apply here (read only with kind: b)");
}

TEST(YamlMapTest, WithoutATableTheValidListHasEachKeyOnce) {
  auto source = std::make_shared<const YamlSource>("f.yaml");
  YamlMap map(source, LoadStrictYaml("a: 1\nbb: 2\n", "f.yaml"), "");
  map.Required("a");
  map.Number("a", 0);
  try {
    map.Finish();
    FAIL();
  } catch (const YamlError& e) {
    EXPECT_STREQ(e.what(), "f.yaml:2: key 'bb': unknown key (valid here: a)");
  }
}

TEST(YamlMapTest, OverriddenKeysNameTheOverride) {
  auto source = std::make_shared<YamlSource>("f.yaml");
  source->MarkOverridden("sec.weight");
  YamlMap map(source, LoadStrictYaml("replicas: 1\nweight: -1\n", "f.yaml"), "sec", &kTable);
  map.Integer("replicas");
  try {
    map.Number("weight");
    FAIL();
  } catch (const YamlError& e) {
    EXPECT_STREQ(e.what(), "--set sec.weight: key 'sec.weight': must be in [0, 10], got -1");
  }
}

}  // namespace
}  // namespace kvroute::sim
