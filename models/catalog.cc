#include "models/catalog.h"

#include <algorithm>
#include <stdexcept>

#include "models/builtin_data.h"
#include "sim/core/input_file.h"
#include "sim/core/yaml_map.h"

namespace kvroute::models {
namespace {

bool IsYamlPath(std::string_view name) {
  return name.size() > 5 && name.substr(name.size() - 5) == ".yaml";
}

template <typename T>
void SortByName(std::vector<T>* items) {
  std::sort(items->begin(), items->end(), [](const T& a, const T& b) { return a.name < b.name; });
}

// Lenders first: a GPU that borrows efficiencies names one without `borrow`.
std::vector<Gpu> LoadGpus() {
  std::vector<Gpu> gpus;
  for (bool borrowing : {false, true}) {
    for (const BuiltinDataFile& f : BuiltinDataFiles("gpus")) {
      const std::string source = "models/gpus/" + f.file;
      YAML::Node root = LoadYamlText(f.text, source);
      const bool borrows = root.IsMap() && sim::YamlAt(sim::YamlAt(root, "efficiency"), "borrow");
      if (borrows == borrowing) gpus.push_back(ParseGpu(root, source, gpus));
    }
  }
  SortByName(&gpus);
  return gpus;
}

std::vector<ModelArchitecture> LoadArchitectures() {
  std::vector<ModelArchitecture> models;
  for (const BuiltinDataFile& f : BuiltinDataFiles("architectures")) {
    const std::string source = "models/architectures/" + f.file;
    models.push_back(ParseArchitecture(LoadYamlText(f.text, source), source));
  }
  SortByName(&models);
  return models;
}

template <typename T>
const T* FindByName(const std::vector<T>& items, std::string_view name, std::string* valid) {
  for (const T& item : items) {
    if (item.name == name) return &item;
    *valid += (valid->empty() ? "" : ", ") + item.name;
  }
  return nullptr;
}

}  // namespace

YAML::Node LoadYamlText(const std::string& text, const std::string& source) {
  return sim::LoadStrictYaml(text, source);
}

std::string ReadDataFile(const std::string& path) {
  try {
    return sim::ReadInputFile(path, sim::kProfileInput);
  } catch (const sim::InputFileError& e) {
    throw std::invalid_argument(e.what());
  }
}

const std::vector<Gpu>& BuiltinGpus() {
  static const std::vector<Gpu> gpus = LoadGpus();
  return gpus;
}

const std::vector<ModelArchitecture>& BuiltinArchitectures() {
  static const std::vector<ModelArchitecture> models = LoadArchitectures();
  return models;
}

Gpu FindGpu(std::string_view name) {
  if (IsYamlPath(name)) {
    const std::string path(name);
    return ParseGpu(LoadYamlText(ReadDataFile(path), path), path, BuiltinGpus());
  }
  std::string valid;
  if (const Gpu* g = FindByName(BuiltinGpus(), name, &valid)) return *g;
  throw std::invalid_argument("unknown GPU '" + std::string(name) + "' (valid: " + valid +
                              ", or a path to a GPU .yaml file)");
}

ModelArchitecture FindArchitecture(std::string_view name) {
  if (IsYamlPath(name)) {
    const std::string path(name);
    return ParseArchitecture(LoadYamlText(ReadDataFile(path), path), path);
  }
  std::string valid;
  if (const ModelArchitecture* m = FindByName(BuiltinArchitectures(), name, &valid)) return *m;
  throw std::invalid_argument("unknown model '" + std::string(name) + "' (valid: " + valid +
                              ", or a path to a model .yaml file)");
}

const ModelArchitecture* FindArchitectureOfCheckpoint(std::string_view hf_id) {
  for (const ModelArchitecture& m : BuiltinArchitectures()) {
    for (const std::string& id : m.hf_ids) {
      if (id == hf_id) return &m;
    }
  }
  return nullptr;
}

}  // namespace kvroute::models
