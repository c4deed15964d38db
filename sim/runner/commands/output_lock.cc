#include "sim/runner/commands/output_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace kvroute::sim {
namespace {

std::string ReadPid(int fd) {
  char buffer[32] = {};
  const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
  std::string pid(buffer, n > 0 ? static_cast<size_t>(n) : 0);
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid.empty() ? "unknown" : pid;
}

// True when `path` still names the file `fd` has open: another run may have
// removed and recreated it between our open and our flock.
bool StillLinked(int fd, const std::string& path) {
  struct stat held {
  }, named{};
  return ::fstat(fd, &held) == 0 && ::stat(path.c_str(), &named) == 0 &&
         held.st_dev == named.st_dev && held.st_ino == named.st_ino;
}

}  // namespace

OutputLock::OutputLock(const std::string& out_path) : path_(out_path + ".lock") {
  for (int attempt = 0; attempt < 10; ++attempt) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      throw std::runtime_error(path_ + ": cannot create the lock file: " + std::strerror(errno));
    }
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const std::string pid = ReadPid(fd_);
      ::close(fd_);
      fd_ = -1;
      throw std::runtime_error("another kvroute run (pid " + pid + ") is writing " + out_path +
                               " and " + out_path +
                               ".partial; wait for it to finish, stop it, or give this run "
                               "another --out");
    }
    if (StillLinked(fd_, path_)) break;
    ::close(fd_);
    fd_ = -1;
  }
  if (fd_ < 0) throw std::runtime_error(path_ + ": the lock file keeps changing under this run");
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
    // The pid is for messages only; the flock is the lock.
  }
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace kvroute::sim
