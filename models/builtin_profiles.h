// The text of models/profiles/*.yaml, compiled into the binary by CMake
// (builtin_profiles.cc.in) so kvroute needs no data files at run time.
#ifndef KVROUTE_MODELS_BUILTIN_PROFILES_H_
#define KVROUTE_MODELS_BUILTIN_PROFILES_H_

#include <string>
#include <vector>

namespace kvroute::models {

struct BuiltinProfileFile {
  std::string file;
  std::string text;
};

const std::vector<BuiltinProfileFile>& BuiltinProfileFiles();

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_BUILTIN_PROFILES_H_
