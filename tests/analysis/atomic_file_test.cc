// Writing a file so that a failure never destroys the file it replaces.
#include "analysis/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kvroute::analysis {
namespace {

class AtomicFileTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("kvroute_atomic_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "results.h5").string();
    std::ofstream(path_) << "the old results";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Read() const {
    std::ifstream in(path_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  // Nothing but the target is left in the directory.
  void ExpectNoTemporary() const {
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
      EXPECT_EQ(entry.path().string(), path_) << "left behind: " << entry.path();
    }
  }

  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(AtomicFileTest, ReplacesTheFileWhole) {
  WriteFileAtomically(path_, "the new results");
  EXPECT_EQ(Read(), "the new results");
  ExpectNoTemporary();
}

TEST_F(AtomicFileTest, ARefusedCheckKeepsTheOldFile) {
  try {
    WriteFileAtomically(path_, "bad", [](const std::string&) {
      throw std::runtime_error("the point count differs");
    });
    FAIL();
  } catch (const OutputFileError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("the point count differs"), std::string::npos) << message;
    EXPECT_NE(message.find(path_ + " is unchanged"), std::string::npos) << message;
  }
  EXPECT_EQ(Read(), "the old results");
  ExpectNoTemporary();
}

// A write that fails part-way (here a file size limit, EFBIG; a full disk
// gives ENOSPC the same way, tests/e2e/disk_full_check.sh) keeps the old file.
TEST_F(AtomicFileTest, AFailedWriteKeepsTheOldFileAndSaysWhy) {
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  auto previous = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string message;
  try {
    WriteFileAtomically(path_, std::string(100'000, 'x'));
  } catch (const OutputFileError& e) {
    message = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, previous);
  EXPECT_NE(message.find("File too large"), std::string::npos) << message;
  EXPECT_EQ(Read(), "the old results");
  ExpectNoTemporary();
}

TEST_F(AtomicFileTest, ADirectoryOrAMissingDirectoryIsAnError) {
  EXPECT_THROW(WriteFileAtomically(dir_.string(), "x"), OutputFileError);
  try {
    WriteFileAtomically((dir_ / "missing" / "x.h5").string(), "x");
    FAIL();
  } catch (const OutputFileError& e) {
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos);
  }
}

}  // namespace
}  // namespace kvroute::analysis
