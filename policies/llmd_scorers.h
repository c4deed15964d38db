// llm-d inference scheduler scorers (llm-d/llm-d-inference-scheduler
// pkg/epp/scheduling, HEAD 520af47; policies.md §3). Each writes a score in
// [0, 1] per endpoint; endpoints with `eligible[i] == 0` get 0 and are ignored
// in minima and maxima.
#ifndef KVROUTE_POLICIES_LLMD_SCORERS_H_
#define KVROUTE_POLICIES_LLMD_SCORERS_H_

#include <cstdint>
#include <span>

namespace kvroute::policies {

// queue-scorer (queuedepth/queue.go): (max - q) / (max - min), 1 when all equal.
void LlmdQueueScores(std::span<const double> queue, std::span<const uint8_t> eligible,
                     std::span<double> scores);

// load-aware scorer (loadaware/load_aware.go): 0.5 with an empty queue, else
// 0.5 * (1 - min(waiting, threshold) / threshold).
double LlmdLoadAwareScore(double waiting, double threshold);

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_LLMD_SCORERS_H_
