#include "models/request_source.h"

#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "models/session_plan.h"
#include "models/shared_prefix_source.h"
#include "models/trace_replay.h"
#include "models/workload.h"

namespace kvroute::models {

std::unique_ptr<RequestSource> MakeRequestSource(const WorkloadConfig& config, uint64_t seed,
                                                 double qps, sim::Time end) {
  if (config.shared_prefix.groups > 0) {
    return std::make_unique<SharedPrefixSource>(config, seed, qps, end);
  }
  if (config.trace.format == TraceConfig::Format::kNone && config.sessions.closed_loop) {
    return std::make_unique<SessionSource>(config, seed, qps, end);
  }
  if (config.trace.format == TraceConfig::Format::kNone) {
    return std::make_unique<WorkloadGenerator>(config, seed, qps, end);
  }
  return MakeTraceReplay(config, qps, end);
}

std::unique_ptr<TraceReplay> MakeTraceReplay(const WorkloadConfig& config, double qps,
                                             sim::Time end) {
  auto trace = std::make_shared<const Trace>(ReadTrace(config.trace));
  if (config.trace.timing == TraceConfig::Timing::kNative) {
    // The trace's own timestamps: its own rate is the only load there is.
    double native = NativeQps(*trace);
    if (!(std::abs(qps - native) <= 1e-9 * native)) {
      std::ostringstream msg;
      msg << std::setprecision(12) << "workload.trace.timing is native: '" << config.trace.file
          << "' is replayed at its own rate, " << native << " QPS, so a load of " << qps
          << " QPS cannot be offered (timing: scaled sweeps loads)";
      throw std::invalid_argument(msg.str());
    }
    qps = native;
  }
  return std::make_unique<TraceReplay>(std::move(trace), config.trace.loop, qps, end,
                                       static_cast<uint32_t>(config.block_size_tokens));
}

}  // namespace kvroute::models
