// The measured vLLM runs in ../shared/measured (its README says how each was
// measured and how to replay it), read into experiments kvroute can replay:
//  - AIConfigurator's fixed-concurrency rows (aiconfigurator_vllm_h100_h200.csv):
//    a closed loop of `concurrency` clients, unique prompts of `input_tokens`,
//    outputs forced to `output_tokens`; mean TTFT and TPOT measured;
//  - the 13 open-loop runs (vllm_runs.yaml): inference-perf's shared-prefix
//    prompts in load stages of Poisson arrivals; TTFT, E2E and ITL measured per
//    stage and pooled.
#ifndef KVROUTE_SIM_RUNNER_VALIDATION_MEASURED_DATA_H_
#define KVROUTE_SIM_RUNNER_VALIDATION_MEASURED_DATA_H_

#include <string>
#include <vector>

#include "models/profile.h"
#include "models/workload.h"

namespace kvroute::sim {

// The metrics the measurements report, in milliseconds.
enum class MeasuredMetric { kTtftMean, kTtftP90, kTtftP99, kE2eMean, kE2eP90, kE2eP99, kItlMean };
const char* MeasuredMetricName(MeasuredMetric m);

struct MeasuredValue {
  MeasuredMetric metric = MeasuredMetric::kTtftMean;
  int stage = -1;  // load stage; -1: the whole run (every stage pooled)
  double ms = 0;
};

struct MeasuredExperiment {
  enum class Kind { kClosedLoop, kStaged };
  Kind kind = Kind::kClosedLoop;
  std::string id;      // "vllm-16", "aic-<upstream row id>"
  std::string label;   // model, GPU, parallelism and workload, for tables
  std::string source;  // file:line of the row or experiment
  models::Profile profile;
  // kClosedLoop.
  uint32_t concurrency = 0;
  uint32_t input_tokens = 0;
  uint32_t output_tokens = 0;
  // Each request's input and output length is uniform on [low × L, L]
  // (vLLM's benchmark_serving --random-range-ratio); 1: exact lengths.
  double length_low = 1;
  // Requests per client before the measured ones (drained warm-up), and
  // measured ones.
  uint32_t warmup_per_client = 2;
  uint32_t measured_per_client = 10;
  // Clients start together (a burst), or evenly spread over one cycle of the
  // steady state they were measured in (measured_replay.cc says why).
  bool burst_start = false;
  // kStaged.
  std::vector<models::LoadStage> stages;
  models::SharedPrefixConfig prompts;
  // The harness's mean re-tokenised output length per stage (index stage + 1):
  // its ITL is (E2E − TTFT) / (L − 1) with this L (measured/README.md, step 5).
  std::vector<double> output_len_derived;
  std::vector<MeasuredValue> values;

  // Closed loop: the prompt tokens per second the measurement implies (each
  // client sends a prompt every TTFT + (output − 1) × TPOT), as a share of
  // what the GPUs could prefill at every datasheet peak with nothing else to
  // do. Above 1 the row cannot be replayed as it is described (prompts with
  // no shared prefix): it is reported but not fitted on.
  double PrefillDemandShare() const;
};

// Reads both files of `dir`. Throws std::runtime_error naming the file and
// line (or experiment) of anything it cannot read or map to a profile.
std::vector<MeasuredExperiment> ReadMeasured(const std::string& dir);

// inference-perf sends random token ids decoded to text, which re-tokenise
// 4-5% longer than nominal (measured/README.md, "Lengths": 571-594 tokens for
// 547-566 nominal in other runs of the same pipeline); the served prompt
// lengths of the 13 runs were not recorded. The midpoint is applied to the
// nominal system prompt and question lengths.
inline constexpr double kRetokenisation = 1.045;

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_VALIDATION_MEASURED_DATA_H_
