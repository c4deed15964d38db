// The text of the data files under models/{gpus,architectures,profiles}/,
// compiled into the binary by CMake (builtin_data.cc.in).
#ifndef KVROUTE_MODELS_BUILTIN_DATA_H_
#define KVROUTE_MODELS_BUILTIN_DATA_H_

#include <string>
#include <string_view>
#include <vector>

namespace kvroute::models {

struct BuiltinDataFile {
  std::string folder;  // gpus, architectures or profiles
  std::string file;
  std::string text;
};

// The files of one folder, in the order CMakeLists.txt lists them.
std::vector<BuiltinDataFile> BuiltinDataFiles(std::string_view folder);

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_BUILTIN_DATA_H_
