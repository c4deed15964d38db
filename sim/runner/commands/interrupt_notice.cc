#include "sim/runner/commands/interrupt_notice.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>

namespace kvroute::sim {
namespace {

// Prepared before the handler can run; read-only inside it.
constexpr size_t kTextSize = 4096;
char g_before[kTextSize];  // "\nkvroute: interrupted; "
char g_after[kTextSize];   // " points are kept in X.partial; resume with: ..."
char g_lock[kTextSize];    // the lock file to remove
std::atomic<size_t> g_committed{0};
struct sigaction g_previous_int, g_previous_term;

void Write(const char* text) {
  size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, text, left);
    if (n <= 0) return;
    text += n;
    left -= static_cast<size_t>(n);
  }
}

void OnSignal(int signal) {
  char digits[24];
  size_t n = g_committed.load(), at = sizeof digits - 1;
  digits[at] = '\0';
  do {
    digits[--at] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n > 0);
  Write(g_before);
  Write(signal == SIGINT ? "SIGINT" : "SIGTERM");
  Write(": ");
  Write(digits + at);
  Write(g_after);
  if (g_lock[0] != '\0') ::unlink(g_lock);
  ::_exit(128 + signal);
}

void Copy(char* to, const std::string& text) {
  const size_t n = std::min(text.size(), kTextSize - 1);
  std::memcpy(to, text.data(), n);
  to[n] = '\0';
}

}  // namespace

InterruptNotice::InterruptNotice(const std::string& partial_path, const std::string& lock_path,
                                 const std::string& resume_command) {
  Copy(g_before, "\nkvroute: interrupted by ");
  Copy(g_after, " finished point(s) are kept in " + partial_path +
                    "; continue with: " + resume_command + "\n");
  Copy(g_lock, lock_path);
  g_committed = 0;
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &g_previous_int);
  sigaction(SIGTERM, &action, &g_previous_term);
}

InterruptNotice::~InterruptNotice() {
  sigaction(SIGINT, &g_previous_int, nullptr);
  sigaction(SIGTERM, &g_previous_term, nullptr);
  g_lock[0] = '\0';
}

void InterruptNotice::SetCommitted(size_t points) { g_committed = points; }

}  // namespace kvroute::sim
