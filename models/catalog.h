// The built-in GPUs, model architectures and profiles: data files under
// models/gpus/, models/architectures/ and models/profiles/, compiled into the
// binary, so kvroute needs no data files at run time. A name may also be a
// path to a user's own .yaml file.
#ifndef KVROUTE_MODELS_CATALOG_H_
#define KVROUTE_MODELS_CATALOG_H_

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>
#include <vector>

#include "models/architecture.h"
#include "models/gpu.h"

namespace kvroute::models {

// In name order.
const std::vector<Gpu>& BuiltinGpus();
const std::vector<ModelArchitecture>& BuiltinArchitectures();

// A built-in entry by name, or the document in `name` if it ends in .yaml.
// Throws std::invalid_argument naming the valid names when unknown,
// sim::YamlError when a file is malformed.
Gpu FindGpu(std::string_view name);
ModelArchitecture FindArchitecture(std::string_view name);
// The built-in architecture of a Hugging Face checkpoint (hf_ids), or null.
const ModelArchitecture* FindArchitectureOfCheckpoint(std::string_view hf_id);

// Parses YAML text; a syntax error becomes a sim::YamlError naming `source`
// and the line.
YAML::Node LoadYamlText(const std::string& text, const std::string& source);
// Reads a whole data file; throws std::invalid_argument naming it when it
// cannot be read.
std::string ReadDataFile(const std::string& path);

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_CATALOG_H_
