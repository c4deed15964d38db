#include "models/engine.h"

#include <algorithm>
#include <string>

namespace kvroute::models {

const char* EntryPointName(EntryPoint e) {
  switch (e) {
    case EntryPoint::kApiServer:
      return "api_server";
    case EntryPoint::kLlmClass:
      return "llm_class";
    case EntryPoint::kOther:
      return "other";
  }
  return "?";
}

std::optional<EntryPoint> ParseEntryPoint(std::string_view name) {
  for (EntryPoint e : {EntryPoint::kApiServer, EntryPoint::kLlmClass, EntryPoint::kOther}) {
    if (name == EntryPointName(e)) return e;
  }
  return std::nullopt;
}

BatchDefaults VllmBatchDefaults(const Gpu& gpu, EntryPoint entry_point) {
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  // vLLM checks the device name for "a100": large budgets slow A100s down
  // (the source cites vLLM PR #17885).
  std::string name = gpu.name + " " + gpu.description;
  std::transform(name.begin(), name.end(), name.begin(), ::tolower);
  const bool large = gpu.memory_bytes >= 70 * kGiB && name.find("a100") == std::string::npos;
  switch (entry_point) {
    case EntryPoint::kApiServer:
      return large ? BatchDefaults{1024, 8192} : BatchDefaults{256, 2048};
    case EntryPoint::kLlmClass:
      return large ? BatchDefaults{1024, 16384} : BatchDefaults{256, 8192};
    case EntryPoint::kOther:
      return BatchDefaults{128, 2048};
  }
  return BatchDefaults{128, 2048};
}

EngineSettings ResolveEngine(EngineSettings settings, const Gpu& gpu) {
  const BatchDefaults d = VllmBatchDefaults(gpu, settings.entry_point);
  if (settings.max_num_batched_tokens == 0)
    settings.max_num_batched_tokens = d.max_num_batched_tokens;
  if (settings.max_num_seqs == 0) {
    // vLLM caps a defaulted max_num_seqs at the token budget
    // (arg_utils.py _set_default_max_num_seqs_and_batched_tokens_args).
    settings.max_num_seqs = std::min(d.max_num_seqs, settings.max_num_batched_tokens);
  }
  if (settings.cudagraph_max_tokens == 0) {
    settings.cudagraph_max_tokens =
        std::min({2 * settings.max_num_seqs, 512, settings.max_num_batched_tokens});
  }
  return settings;
}

}  // namespace kvroute::models
