// A run interrupted by SIGINT or SIGTERM says what it kept and how to
// continue; a second run on the same output while one is live is refused,
// naming the live run, and never told to delete what that run is writing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <regex>
#include <thread>

#include "tests/e2e/binary_runner.h"

namespace kvroute::testing {
namespace {

namespace fs = std::filesystem;

class InterruptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kvroute_interrupt_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "second");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A quickstart sweep on one thread: long enough to interrupt.
  pid_t StartSweep() {
    return StartBinary(KVROUTE_BINARY,
                       {"run", "--jobs", "1", "--out", (dir_ / "q.h5").string(), "--set",
                        "duration_s=60", "--set", "warmup_s=10"},
                       dir_);
  }

  // Waits until the run has committed its first point (it prints a line per point).
  void WaitForFirstPoint() {
    for (int i = 0; i < 600; ++i) {
      if (ReadAll(dir_ / "stderr.txt").find("[1/") != std::string::npos) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    FAIL() << "no point finished within a minute";
  }

  fs::path dir_;
};

TEST_F(InterruptionTest, SigintSaysWhatIsKeptAndHowToResume) {
  const pid_t pid = StartSweep();
  WaitForFirstPoint();
  kill(pid, SIGINT);
  const ProcessResult r = Wait(pid, dir_);
  EXPECT_EQ(r.status, 128 + SIGINT);
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex("kvroute: interrupted by SIGINT: [1-9][0-9]* finished point\\(s\\) are "
                        "kept in .*q\\.h5\\.partial; continue with: .* --resume\n")))
      << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "q.h5.partial"));
  EXPECT_FALSE(fs::exists(dir_ / "q.h5.lock"));
  EXPECT_FALSE(fs::exists(dir_ / "q.h5"));
}

TEST_F(InterruptionTest, ASecondRunOnALiveOutputIsRefusedNamingTheLiveRun) {
  const pid_t pid = StartSweep();
  WaitForFirstPoint();
  const std::string live = "another kvroute run (pid " + std::to_string(pid) + ") is writing";
  for (const bool resume : {false, true}) {
    std::vector<std::string> args{"run", "--quiet", "--out", (dir_ / "q.h5").string()};
    if (resume) args.push_back("--resume");
    const ProcessResult second = RunBinary(KVROUTE_BINARY, args, dir_ / "second");
    EXPECT_EQ(second.status, 1);
    EXPECT_NE(second.err.find(live), std::string::npos) << second.err;
    EXPECT_EQ(second.err.find("interrupted run"), std::string::npos) << second.err;
    EXPECT_EQ(second.err.find("delete"), std::string::npos) << second.err;
  }
  kill(pid, SIGTERM);
  const ProcessResult first = Wait(pid, dir_);
  EXPECT_EQ(first.status, 128 + SIGTERM);
  EXPECT_NE(first.err.find("interrupted by SIGTERM"), std::string::npos) << first.err;
  // The lock died with the run: a new run may take the output over.
  EXPECT_FALSE(fs::exists(dir_ / "q.h5.lock"));
}

}  // namespace
}  // namespace kvroute::testing
