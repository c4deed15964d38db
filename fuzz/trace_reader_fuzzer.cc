// Both trace readers (models/trace_reader.h) on any bytes: the first byte
// picks the format (even: Mooncake JSONL, odd: Azure CSV) and the next the
// request key's block count; the rest is the file. A bad trace must end in a
// TraceError naming the file, line and field.
#include <cstdint>

#include "fuzz/fuzz_input.h"
#include "models/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  using kvroute::models::TraceConfig;
  kvroute::fuzz::MemoryFile file(kvroute::fuzz::Text(data + 2, size - 2));
  TraceConfig config;
  config.format = data[0] % 2 == 0 ? TraceConfig::Format::kMooncake : TraceConfig::Format::kAzure;
  config.key_blocks = 1 + data[1] % 8;
  config.file = file.path();
  try {
    kvroute::models::Trace trace = kvroute::models::ReadTrace(config);
    kvroute::models::NativeQps(trace);
    kvroute::models::NativeBlockHitRate(trace);
  } catch (const kvroute::models::TraceError&) {
  }
  return 0;
}
