// Runs every case of the catalogue (catalogue.h) against the kvroute binary.
#include "tests/e2e/catalogue.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tests/e2e/binary_runner.h"

namespace kvroute::testing {

const char kBaseScenario[] = R"(name: tiny
seed: 1
seeds: 1
duration_s: 20
warmup_s: 2
cluster:
  profile: h100-llama3.1-8b-bf16
  deployments: [{name: main, replicas: 2, weight: 1}]
workload:
  keys: 20
  prompt: {system_tokens: 64, new_tokens: 16}
  output_tokens: 8
policies:
  - flat_lb
  - {name: cacheroute, q_cap: 5}
sweep: {qps: [1, 2]}
slo: [{metric: ttft, percentile: 99, threshold_s: 1}]
)";

std::string Scenario(const std::string& from, const std::string& to) {
  std::string text = kBaseScenario;
  if (from.empty()) return text;
  const size_t at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("not in the base scenario: " + from);
  return text.replace(at, from.size(), to);
}

MalformedInput ScenarioCase(std::string name, const std::string& from, const std::string& to,
                            std::vector<std::string> expected, std::string command) {
  return {std::move(name),
          {command, "s.yaml"},
          {{"s.yaml", Scenario(from, to)}},
          1,
          std::move(expected)};
}

MalformedInput TraceCase(std::string name, std::string file, std::string text,
                         std::vector<std::string> expected) {
  return {
      std::move(name), {"trace-stats", file}, {{file, std::move(text)}}, 1, std::move(expected)};
}

namespace {

class CatalogueTest : public ::testing::TestWithParam<MalformedInput> {};

TEST_P(CatalogueTest, FailsCleanlyNamingWhatIsWrong) {
  const MalformedInput& c = GetParam();
  const auto dir = std::filesystem::temp_directory_path() /
                   ("kvroute_catalogue_" + std::to_string(getpid())) / c.name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const auto& [name, text] : c.files) {
    std::filesystem::create_directories((dir / name).parent_path());
    std::ofstream(dir / name, std::ios::binary) << text;
  }
  const std::string traces = std::string(KVROUTE_SOURCE_DIR) + "/../shared/traces";
  std::vector<std::string> args;
  for (std::string a : c.args) {
    if (size_t at = a.find("{traces}"); at != std::string::npos) a.replace(at, 8, traces);
    args.push_back(a);
  }
  const ProcessResult r = RunBinary(KVROUTE_BINARY, args, dir, 60);
  EXPECT_EQ(r.status, c.status) << r.err;
  for (const std::string& e : c.expected) {
    EXPECT_NE(r.err.find(e), std::string::npos) << "expected: " << e << "\nstderr: " << r.err;
  }
  EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << r.err;
  // Nothing half-written: no results file, no partial file, no lock.
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (std::any_of(c.files.begin(), c.files.end(), [&](const auto& f) { return f.first == name; }))
      continue;
    EXPECT_FALSE(name.ends_with(".h5") || name.ends_with(".partial") || name.ends_with(".lock") ||
                 name.find(".tmp") != std::string::npos)
        << name;
  }
  std::filesystem::remove_all(dir);
}

std::string CaseName(const ::testing::TestParamInfo<MalformedInput>& info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(CommandLine, CatalogueTest, ::testing::ValuesIn(CliCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(Scenario, CatalogueTest, ::testing::ValuesIn(ScenarioCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(InputFile, CatalogueTest, ::testing::ValuesIn(InputFileCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(Workload, CatalogueTest, ::testing::ValuesIn(WorkloadCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(Clients, CatalogueTest, ::testing::ValuesIn(ClientsCases()), CaseName);

TEST(CatalogueSizeTest, HoldsAtLeastAHundredCases) {
  EXPECT_GE(CliCases().size() + ScenarioCases().size() + InputFileCases().size(), 100u);
}

}  // namespace
}  // namespace kvroute::testing
