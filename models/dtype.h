// Number formats of weights, KV cache and tensor-core arithmetic.
#ifndef KVROUTE_MODELS_DTYPE_H_
#define KVROUTE_MODELS_DTYPE_H_

#include <optional>
#include <string>
#include <string_view>

namespace kvroute::models {

enum class Dtype { kBf16, kFp16, kFp8 };

inline double DtypeBytes(Dtype d) { return d == Dtype::kFp8 ? 1 : 2; }

inline const char* DtypeName(Dtype d) {
  switch (d) {
    case Dtype::kBf16:
      return "bf16";
    case Dtype::kFp16:
      return "fp16";
    case Dtype::kFp8:
      return "fp8";
  }
  return "?";
}

inline std::optional<Dtype> ParseDtype(std::string_view name) {
  for (Dtype d : {Dtype::kBf16, Dtype::kFp16, Dtype::kFp8}) {
    if (name == DtypeName(d)) return d;
  }
  return std::nullopt;
}

inline constexpr const char* kValidDtypes = "bf16, fp16, fp8";

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_DTYPE_H_
