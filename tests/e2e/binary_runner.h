// Runs the kvroute binary as a child process, for tests that need what only a
// real process has: signals, exit statuses, file locks held by another
// process. A child that outlives its time limit is killed by SIGALRM, so a
// hang fails the test instead of blocking it.
#ifndef KVROUTE_TESTS_E2E_BINARY_RUNNER_H_
#define KVROUTE_TESTS_E2E_BINARY_RUNNER_H_

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace kvroute::testing {

struct ProcessResult {
  int status = -1;  // exit status, or 128 + signal
  std::string out, err;
};

inline std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Starts `binary args...` in `dir` with stdout and stderr to files there;
// returns its pid. The child dies by SIGALRM after `limit_s` seconds.
inline pid_t StartBinary(const std::string& binary, const std::vector<std::string>& args,
                         const std::filesystem::path& dir, unsigned limit_s = 120) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(dir.c_str()) != 0) _exit(126);
    const int out = open("stdout.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open("stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    std::vector<char*> argv{const_cast<char*>(binary.c_str())};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    alarm(limit_s);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

inline ProcessResult Wait(pid_t pid, const std::filesystem::path& dir) {
  int raw = 0;
  waitpid(pid, &raw, 0);
  ProcessResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.out = ReadAll(dir / "stdout.txt");
  r.err = ReadAll(dir / "stderr.txt");
  return r;
}

inline ProcessResult RunBinary(const std::string& binary, const std::vector<std::string>& args,
                               const std::filesystem::path& dir, unsigned limit_s = 120) {
  return Wait(StartBinary(binary, args, dir, limit_s), dir);
}

}  // namespace kvroute::testing

#endif  // KVROUTE_TESTS_E2E_BINARY_RUNNER_H_
