// The point codec (analysis/point_codec.h) — what a partial file and an MPI
// rank hand back — on any bytes, then what resume does with a record: check it
// (analysis/point_check.h) and, if it passes, use it. A damaged record must end
// in a PointCodecError or PointCheckError; a record that decodes must encode
// back to a record that decodes to the same point, and a point that passes the
// checks must be safe to write as JSON and summarise.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "analysis/json_writer.h"
#include "analysis/point_check.h"
#include "analysis/point_codec.h"
#include "analysis/sweep_results.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kvroute::analysis;
  PointResult point;
  try {
    point = DecodePoint(kvroute::fuzz::Text(data, size));
  } catch (const PointCodecError&) {
    return 0;
  }
  const std::string record = EncodePoint(point);
  if (EncodePoint(DecodePoint(record)) != record) std::abort();
  PointExpectations expected;
  expected.slos = point.slo_values.size();
  try {
    CheckPoint(point, expected);
  } catch (const PointCheckError&) {
    return 0;
  }
  std::vector<Slo> slos(point.slo_values.size());
  PointToJson(point, slos);
  SweepResults results;
  results.slos = slos;
  results.points = {point};
  if (!slos.empty()) ComputeCapacityAndSummary(point.qps, 0, &results);
  return 0;
}
