// What `kvroute run` says when SIGINT or SIGTERM ends it: every point that
// finished is already committed to OUT.partial, so the message says how many
// and how to resume, and the process exits with 128 + the signal number. The
// handler only writes prepared text and unlinks the lock file, both
// async-signal-safe.
#ifndef KVROUTE_SIM_RUNNER_COMMANDS_INTERRUPT_NOTICE_H_
#define KVROUTE_SIM_RUNNER_COMMANDS_INTERRUPT_NOTICE_H_

#include <cstddef>
#include <string>

namespace kvroute::sim {

// Installs the handlers for its lifetime. One at a time per process.
class InterruptNotice {
 public:
  // `resume_command` is the command line that continues the run.
  InterruptNotice(const std::string& partial_path, const std::string& lock_path,
                  const std::string& resume_command);
  ~InterruptNotice();
  InterruptNotice(const InterruptNotice&) = delete;
  InterruptNotice& operator=(const InterruptNotice&) = delete;

  // Points committed to the partial file so far.
  void SetCommitted(size_t points);
};

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_COMMANDS_INTERRUPT_NOTICE_H_
