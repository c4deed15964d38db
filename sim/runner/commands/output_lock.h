// One run at a time per output: `kvroute run` holds an exclusive flock on
// OUT.lock (which holds its pid) for as long as it writes OUT.partial and
// OUT, so a second run on the same output is told that a live run owns it,
// instead of replacing or resuming a partial file that run is still writing.
// The kernel drops the lock when the process ends, even by kill -9, so a lock
// file left behind never blocks a later run.
#ifndef KVROUTE_SIM_RUNNER_COMMANDS_OUTPUT_LOCK_H_
#define KVROUTE_SIM_RUNNER_COMMANDS_OUTPUT_LOCK_H_

#include <string>

namespace kvroute::sim {

class OutputLock {
 public:
  // Throws std::runtime_error naming the live run's pid when another process
  // holds the lock on `out_path`.lock.
  explicit OutputLock(const std::string& out_path);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_COMMANDS_OUTPUT_LOCK_H_
