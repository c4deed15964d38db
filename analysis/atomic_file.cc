#include "analysis/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace kvroute::analysis {
namespace {

std::string Cause(int error) { return std::strerror(error); }

// Closes the descriptor on every path out.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }
  // Closes now, reporting the error close may give (NFS reports write errors there).
  int Close() {
    int status = ::close(fd_);
    fd_ = -1;
    return status == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

// Writes all of `bytes`; returns 0 or the errno of the failure.
int WriteAll(int fd, std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;
    done += static_cast<size_t>(n);
  }
  return 0;
}

// The file's bytes equal `expected`; returns 0, the errno of a failed read, or
// EIO if they differ.
int ReadBackEquals(const std::string& path, std::string_view expected) {
  Descriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return errno;
  std::vector<char> buffer(1 << 16);
  size_t offset = 0;
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) break;
    if (offset + static_cast<size_t>(n) > expected.size() ||
        std::memcmp(buffer.data(), expected.data() + offset, static_cast<size_t>(n)) != 0) {
      return EIO;
    }
    offset += static_cast<size_t>(n);
  }
  return offset == expected.size() ? 0 : EIO;
}

std::string Directory(const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

}  // namespace

std::string TemporaryPathFor(const std::string& path) {
  return path + ".tmp." + std::to_string(::getpid());
}

void WriteFileAtomically(const std::string& path, std::string_view bytes,
                         const std::function<void(const std::string&)>& verify) {
  const std::string temporary = TemporaryPathFor(path);
  const std::string unchanged = " (" + path + " is unchanged)";
  auto fail = [&](const std::string& what) {
    ::unlink(temporary.c_str());
    throw OutputFileError("cannot write " + path + ": " + what + unchanged);
  };
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0 && S_ISDIR(existing.st_mode)) {
    throw OutputFileError("cannot write " + path + ": it is a directory");
  }
  {
    const int flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC;
    int raw = ::open(temporary.c_str(), flags, 0644);
    if (raw < 0 && errno == EEXIST) {
      // Left by a dead process that had this process id: no live one can.
      ::unlink(temporary.c_str());
      raw = ::open(temporary.c_str(), flags, 0644);
    }
    Descriptor fd(raw);
    if (fd.get() < 0) {
      throw OutputFileError("cannot write " + path + ": cannot create " + temporary + ": " +
                            Cause(errno) + unchanged);
    }
    if (int error = WriteAll(fd.get(), bytes)) fail(Cause(error));
    if (::fsync(fd.get()) != 0) fail("fsync: " + Cause(errno));
    if (int error = fd.Close()) fail(Cause(error));
  }
  if (int error = ReadBackEquals(temporary, bytes)) {
    fail(error == EIO ? "the bytes read back differ from those written"
                      : "reading back: " + Cause(error));
  }
  if (verify) {
    try {
      verify(temporary);
    } catch (const std::exception& e) {
      fail(std::string("the file read back is not what was written: ") + e.what());
    }
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) fail("rename: " + Cause(errno));
  // The rename is durable once the directory entry is: fsync the directory.
  Descriptor dir(::open(Directory(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() >= 0) ::fsync(dir.get());
}

}  // namespace kvroute::analysis
