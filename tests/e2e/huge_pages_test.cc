// Huge pages change where memory comes from, never a result: a point run with
// the heap marked for huge pages (the default) and with KVROUTE_HUGE_PAGES=0
// prints the same JSON, byte for byte. The point is overloaded, so that tens
// of thousands of requests wait with their block hashes, the memory huge pages
// are for.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "tests/e2e/binary_runner.h"

namespace kvroute::testing {
namespace {

namespace fs = std::filesystem;

TEST(HugePagesTest, APointIsTheSameWithAndWithoutHugePages) {
  const fs::path dir = fs::temp_directory_path() / ("kvroute_huge_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::vector<std::string> args{
      "point",    std::string(KVROUTE_SOURCE_DIR) + "/scenarios/quickstart.yaml",
      "--policy", "chwbl",
      "--qps",    "2000",
      "--set",    "duration_s=40",
      "--set",    "warmup_s=10",
      "--json"};
  unsetenv("KVROUTE_HUGE_PAGES");
  const ProcessResult marked = RunBinary(KVROUTE_BINARY, args, dir);
  ASSERT_EQ(setenv("KVROUTE_HUGE_PAGES", "0", 1), 0);
  const ProcessResult plain = RunBinary(KVROUTE_BINARY, args, dir);
  unsetenv("KVROUTE_HUGE_PAGES");
  fs::remove_all(dir);
  ASSERT_EQ(marked.status, 0) << marked.err;
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(marked.out.find("\"unfinished\":0,"), std::string::npos);  // overloaded
  EXPECT_EQ(marked.out, plain.out);
}

}  // namespace
}  // namespace kvroute::testing
