// Helpers shared by the libFuzzer harnesses: the input as text, as a file a
// reader can open by name, and split into a choice byte and the rest.
#ifndef KVROUTE_FUZZ_FUZZ_INPUT_H_
#define KVROUTE_FUZZ_FUZZ_INPUT_H_

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace kvroute::fuzz {

inline std::string_view Text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// The bytes as an anonymous in-memory file, opened by readers through
// /proc/self/fd/N: no disk, nothing left behind.
class MemoryFile {
 public:
  explicit MemoryFile(std::string_view bytes) : fd_(memfd_create("kvroute-fuzz", MFD_CLOEXEC)) {
    if (fd_ < 0) std::abort();
    for (size_t done = 0; done < bytes.size();) {
      ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n <= 0) std::abort();
      done += static_cast<size_t>(n);
    }
  }
  ~MemoryFile() { ::close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;

  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

}  // namespace kvroute::fuzz

#endif  // KVROUTE_FUZZ_FUZZ_INPUT_H_
