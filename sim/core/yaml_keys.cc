#include "sim/core/yaml_keys.h"

#include <cstdio>

#include "sim/core/did_you_mean.h"

namespace kvroute::sim {

namespace {

std::string Format(const char* format, double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char text[40];
  std::snprintf(text, sizeof text, format, value);
  std::string s = text;
  // %g writes 1e+07 and 1e-09; YAML and people read 1e7 and 1e-9.
  if (size_t e = s.find('e'); e != std::string::npos) {
    if (s[e + 1] == '+') s.erase(e + 1, 1);
    const size_t digits = s[e + 1] == '-' ? e + 2 : e + 1;
    while (s.size() > digits + 1 && s[digits] == '0') s.erase(digits, 1);
  }
  return s;
}

}  // namespace

std::string FormatYamlNumber(double value) { return Format("%.10g", value); }

std::string FormatCompactNumber(double value) { return Format("%g", value); }

std::string YamlKey::DefaultText() const {
  if (required) return "required";
  if (!fallback_text.empty()) return fallback_text;
  switch (type) {
    case YamlType::kNumber:
    case YamlType::kInteger:
      return FormatYamlNumber(fallback);
    case YamlType::kBool:
      return fallback != 0 ? "true" : "false";
    default:
      return "none";
  }
}

std::string YamlKey::TypeText() const {
  auto range = [&](const char* what) {
    std::string text = what;
    if (std::isfinite(min) && std::isfinite(max)) {
      text += " in [" + FormatYamlNumber(min) + ", " + FormatYamlNumber(max) + "]";
    } else if (std::isfinite(min)) {
      text += " >= " + FormatYamlNumber(min);
    }
    return text;
  };
  switch (type) {
    case YamlType::kNumber:
      return range("number");
    case YamlType::kInteger:
      return range("whole number");
    case YamlType::kString:
      return "string";
    case YamlType::kBool:
      return "true or false";
    case YamlType::kChoice:
      return "one of " + JoinNames(choices);
    case YamlType::kMap:
      return "map";
    case YamlType::kList:
      return "list";
    case YamlType::kLength:
      return "length distribution";
  }
  return "";
}

const YamlKey* YamlKeyTable::Find(const std::string& name) const {
  for (const YamlKey& key : keys) {
    if (key.name == name) return &key;
  }
  return nullptr;
}

std::vector<std::string> YamlKeyTable::Names() const {
  std::vector<std::string> names;
  for (const YamlKey& key : keys) names.push_back(key.name);
  return names;
}

YamlKey NumberKey(std::string name, double fallback, double min, double max,
                  std::string description) {
  return {.name = std::move(name),
          .type = YamlType::kNumber,
          .description = std::move(description),
          .fallback = fallback,
          .min = min,
          .max = max};
}

YamlKey IntegerKey(std::string name, double fallback, double min, double max,
                   std::string description) {
  YamlKey key = NumberKey(std::move(name), fallback, min, max, std::move(description));
  key.type = YamlType::kInteger;
  return key;
}

YamlKey StringKey(std::string name, std::string fallback, std::string description) {
  return {.name = std::move(name),
          .type = YamlType::kString,
          .description = std::move(description),
          .fallback_text = std::move(fallback)};
}

YamlKey BoolKey(std::string name, bool fallback, std::string description) {
  return {.name = std::move(name),
          .type = YamlType::kBool,
          .description = std::move(description),
          .fallback = fallback ? 1.0 : 0.0};
}

YamlKey ChoiceKey(std::string name, std::vector<std::string> choices, std::string fallback,
                  std::string description) {
  return {.name = std::move(name),
          .type = YamlType::kChoice,
          .description = std::move(description),
          .fallback_text = std::move(fallback),
          .choices = std::move(choices)};
}

YamlKey NestedKey(std::string name, YamlType type, std::string fallback_text,
                  std::string description) {
  return {.name = std::move(name),
          .type = type,
          .description = std::move(description),
          .fallback_text = std::move(fallback_text)};
}

}  // namespace kvroute::sim
