#include "sim/core/yaml_document.h"

#include <yaml-cpp/depthguard.h>

#include <sstream>
#include <unordered_map>

namespace kvroute::sim {
namespace {

std::string LineOf(const YAML::Node& node) {
  std::string text;
  if (node.IsDefined() && node.Mark().line >= 0) {
    text.push_back(':');
    text.append(std::to_string(node.Mark().line + 1));
  }
  return text;
}

std::string ChildPath(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

void Walk(const YAML::Node& node, const YamlSource& source, const std::string& path, int depth) {
  if (depth > kMaxYamlDepth) {
    // No key path: it would be as long as the nesting.
    throw YamlError(source.name() + LineOf(node) + ": nested more than " +
                    std::to_string(kMaxYamlDepth) + " levels deep");
  }
  if (node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i) {
      Walk(node[i], source, path + "[" + std::to_string(i) + "]", depth + 1);
    }
  } else if (node.IsMap()) {
    std::unordered_map<std::string, int> first_line;
    for (const auto& entry : node) {
      if (!entry.first.IsScalar()) {
        source.Fail(entry.first, path.empty() ? "(top level)" : path,
                    "a key must be a plain name, not a list or a map");
      }
      const std::string key = entry.first.Scalar();
      auto [it, fresh] = first_line.try_emplace(key, entry.first.Mark().line + 1);
      if (!fresh) {
        source.Fail(entry.first, ChildPath(path, key),
                    "duplicate key (first given on line " + std::to_string(it->second) + ")");
      }
      Walk(entry.second, source, ChildPath(path, key), depth + 1);
    }
  }
}

}  // namespace

std::string YamlSource::OverrideFor(const std::string& path) const {
  for (const auto& [o, unused] : overridden_) {
    if (path == o || path.rfind(o + ".", 0) == 0 || path.rfind(o + "[", 0) == 0) return o;
  }
  return "";
}

std::string YamlSource::Where(const YAML::Node& node, const std::string& path) const {
  const std::string overridden = OverrideFor(path);
  if (!overridden.empty()) return "--set " + overridden + ": key '" + path + "'";
  return name_ + LineOf(node) + ": key '" + path + "'";
}

void YamlSource::Fail(const YAML::Node& node, const std::string& path,
                      const std::string& message) const {
  throw YamlError(Where(node, path) + ": " + message);
}

void FailAt(const std::string& source, const YAML::Node& node, const std::string& path,
            const std::string& message) {
  YamlSource(source).Fail(node, path, message);
}

YAML::Node LoadStrictYaml(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    throw YamlError(source + ":" + std::to_string(e.mark.line + 1) + ": nested more than " +
                    std::to_string(kMaxYamlDepth) + " levels deep");
  } catch (const YAML::ParserException& e) {
    throw YamlError(source + ":" + std::to_string(e.mark.line + 1) + ": invalid YAML: " + e.msg);
  } catch (const YAML::Exception& e) {
    throw YamlError(source + ": invalid YAML: " + e.msg);
  }
  CheckYamlTree(root, YamlSource(source), "");
  return root;
}

void CheckYamlTree(const YAML::Node& node, const YamlSource& source, const std::string& path) {
  Walk(node, source, path, 0);
}

}  // namespace kvroute::sim
