// workload.trace: a trace (Mooncake, Azure, BurstGPT or kvroute's own format)
// replayed instead of the synthetic workload, open or closed loop, read when
// the scenario loads so that its errors come before the sweep, not in its
// middle.
#include "sim/core/input_file.h"
#include "sim/runner/scenario_loader_internal.h"

namespace kvroute::sim::scenario {

const ChoiceTable<models::TraceConfig::Timing>& TraceTimings() {
  using Timing = models::TraceConfig::Timing;
  static const ChoiceTable<Timing> table(
      "timing", {{"scaled", Timing::kScaled}, {"native", Timing::kNative}});
  return table;
}

const YamlKeyTable& TraceKeys() {
  static const models::TraceConfig d;
  static const YamlKeyTable table{
      "workload.trace",
      {ChoiceKey("format", models::TraceFormats().names(), "auto",
                 "auto: from the first line; mooncake: FAST'25 JSONL (session_id kept); azure: "
                 "the 2023 LLM inference CSV; burstgpt: BurstGPT's CSV; kvroute: your own "
                 "CSV/JSONL (docs/WORKLOADS.md)"),
       StringKey("file", "", "the trace file").Required(),
       BoolKey("loop", d.loop, "replay again after the last request, with fresh block ids"),
       IntegerKey("skip", static_cast<double>(d.skip), 0, 1e15, "leading requests dropped"),
       IntegerKey("limit", static_cast<double>(d.limit), 0, 1e15,
                  "requests kept after skip; 0: all"),
       IntegerKey("key_blocks", d.key_blocks, 1, 1000,
                  "Mooncake, kvroute: a request's key is its first key_blocks block ids"),
       IntegerKey("block_tokens", d.block_tokens, 1, 1'000'000,
                  "kvroute format: tokens per hash id"),
       ChoiceKey("timing", TraceTimings().names(), TraceTimings().NameOf(d.timing),
                 "scaled: the trace's mean rate becomes each load; native: as recorded"),
       ChoiceKey("pacing", SessionPacings().names(), SessionPacings().NameOf(d.closed_loop),
                 "open_loop: every turn at its timestamp; closed_loop: a session's turn also "
                 "waits for the previous turn's response (docs/WORKLOADS.md)")}};
  return table;
}

double ParseTrace(YamlMap& w, const LoadContext& ctx, models::WorkloadConfig* c) {
  YamlMap m = w.Map("trace", &TraceKeys());
  c->trace.format = m.Choice("format", models::TraceFormats());
  c->trace.file = ResolvePath(m, "file", m.String("file"), ctx.base_dir);
  c->trace.loop = m.Bool("loop");
  c->trace.skip = m.Integer("skip");
  c->trace.limit = m.Integer("limit");
  c->trace.key_blocks = static_cast<uint32_t>(m.Integer("key_blocks"));
  c->trace.block_tokens = static_cast<uint32_t>(m.Integer("block_tokens"));
  c->trace.timing = m.Choice("timing", TraceTimings());
  c->trace.closed_loop = m.Choice("pacing", SessionPacings());
  m.Finish();
  try {
    models::Trace read = models::ReadTrace(c->trace);
    return c->trace.timing == models::TraceConfig::Timing::kNative ? models::NativeQps(read) : 0;
  } catch (const std::runtime_error& e) {
    m.Fail("file", e.what());
  }
}

}  // namespace kvroute::sim::scenario
