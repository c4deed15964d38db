#include "sim/core/input_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/core/file_names.h"

namespace kvroute::sim {
namespace {

std::string OpenErrorOf(const std::string& path, const InputKind& kind = kScenarioInput) {
  try {
    ReadInputFile(path, kind);
  } catch (const InputFileError& e) {
    return e.what();
  }
  return "";
}

TEST(InputFileTest, DevicesAndDirectoriesAreNamedAsSuch) {
  EXPECT_EQ(OpenErrorOf("/dev/zero"),
            "/dev/zero: is a character device, not a scenario file (kvroute reads regular files "
            "only)");
  EXPECT_EQ(OpenErrorOf("/tmp"),
            "/tmp: is a directory, not a scenario file (kvroute reads regular files only)");
  EXPECT_EQ(OpenErrorOf("/no/such/file.yaml"), "/no/such/file.yaml: no such scenario file");
  EXPECT_EQ(OpenErrorOf(""), "empty path given for a scenario file");
}

TEST(InputFileTest, FilesOverTheLimitAreRefusedBeforeReading) {
  auto path = std::filesystem::temp_directory_path() /
              ("kvroute_input_" + std::to_string(getpid()) + ".txt");
  { std::ofstream(path) << std::string(2000, 'x'); }
  InputKind small{"test file", 1024};
  EXPECT_EQ(OpenErrorOf(path.string(), small),
            path.string() + ": 2.0 KiB is more than the 1 KiB a test file may have");
  EXPECT_EQ(ReadInputFile(path.string(), kScenarioInput).size(), 2000u);
  std::filesystem::remove(path);
}

TEST(InputFileTest, FormatsBytes) {
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(16 << 20), "16 MiB");
  EXPECT_EQ(FormatBytes(1.5 * (1 << 30)), "1.5 GiB");
}

TEST(FileNamesTest, HiddenUnprintableOrEmptyNamesAreProblems) {
  EXPECT_EQ(FileNameProblem("quickstart"), "");
  EXPECT_EQ(FileNameProblem("étude_1"), "");
  EXPECT_EQ(FileNameProblem(""), "is empty");
  EXPECT_NE(FileNameProblem(".hidden"), "");
  EXPECT_NE(FileNameProblem("a/b"), "");
  EXPECT_NE(FileNameProblem("bell\a"), "");
  EXPECT_EQ(FileNameProblem("\xff\xfe"), "is not valid UTF-8");
  EXPECT_FALSE(IsUtf8("\xc3"));          // truncated
  EXPECT_FALSE(IsUtf8("\xc0\xaf"));      // overlong '/'
  EXPECT_FALSE(IsUtf8("\xed\xa0\x80"));  // a surrogate
  EXPECT_TRUE(IsUtf8("\xf0\x9f\x99\x82"));
}

}  // namespace
}  // namespace kvroute::sim
