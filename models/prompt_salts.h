// The salts that name the content of synthetic prompt segments: two segments
// with the same salt hold the same tokens (prompt_blocks.h). One table, so
// every generator's system prompts and documents are the same content.
#ifndef KVROUTE_MODELS_PROMPT_SALTS_H_
#define KVROUTE_MODELS_PROMPT_SALTS_H_

#include <cstdint>

namespace kvroute::models {

inline constexpr uint64_t kSystemSalt = 0x53595354454d0000ULL;    // combined with the key
inline constexpr uint64_t kDocumentSalt = 0x444f43554d454e54ULL;  // with document + 1
inline constexpr uint64_t kUserSalt = 0x5553455200000000ULL;      // with session, turn
inline constexpr uint64_t kOutputSalt = 0x4f55545055540000ULL;    // with session, turn
inline constexpr uint64_t kPrivateSalt = 0x5052495641544500ULL;   // with session
inline constexpr uint64_t kToolSalt = 0x544f4f4c00000000ULL;      // with session, step
// inference-perf's shared-prefix workload (shared_prefix_prompts.h).
inline constexpr uint64_t kSharedPrefixSystemSalt = 0x5350534953595354ULL;    // with group
inline constexpr uint64_t kSharedPrefixQuestionSalt = 0x5350515545535449ULL;  // with prompt
inline constexpr uint64_t kSharedPrefixOutputSalt = 0x53504f5554505554ULL;    // with request

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_PROMPT_SALTS_H_
