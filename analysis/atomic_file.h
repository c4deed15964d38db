// Writing a file so that a crash, a full disk or a failed check never leaves
// a half-written file or destroys the one it replaces (DESIGN.md, "Output";
// issue 18): the bytes go to a temporary file beside the target, are flushed
// and fsync'd, read back and compared (and checked by `verify`), and only then
// renamed over the target, whose directory is fsync'd too.
#ifndef KVROUTE_ANALYSIS_ATOMIC_FILE_H_
#define KVROUTE_ANALYSIS_ATOMIC_FILE_H_

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kvroute::analysis {

// Names the file and what went wrong ("No space left on device", "Permission
// denied"); whatever was at the path before is still there, unchanged.
class OutputFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Replaces `path` by `bytes` atomically. `verify`, if given, is called with the
// temporary file's path once it is on disk and may throw to refuse it (its
// message is kept). Throws OutputFileError; the temporary file is removed.
void WriteFileAtomically(const std::string& path, std::string_view bytes,
                         const std::function<void(const std::string&)>& verify = {});

// The temporary name WriteFileAtomically uses for `path` in this process.
std::string TemporaryPathFor(const std::string& path);

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_ATOMIC_FILE_H_
