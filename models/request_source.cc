#include "models/request_source.h"

#include "models/trace_replay.h"
#include "models/workload.h"

namespace kvroute::models {

std::unique_ptr<RequestSource> MakeRequestSource(const WorkloadConfig& config, uint64_t seed,
                                                 double qps, sim::Time end) {
  if (config.trace.format == TraceConfig::Format::kNone) {
    return std::make_unique<WorkloadGenerator>(config, seed, qps, end);
  }
  auto trace = std::make_shared<const Trace>(ReadTrace(config.trace));
  return std::make_unique<TraceReplay>(std::move(trace), config.trace.loop, qps, end,
                                       static_cast<uint32_t>(config.block_size_tokens));
}

}  // namespace kvroute::models
