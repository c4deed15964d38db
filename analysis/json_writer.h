// JSON output: a small writer, and `kvroute point --json`'s object. Numbers
// are written in the shortest form that reads back to the same double, and
// are always valid JSON: NaN (no data) is null, and +inf (a censored,
// unbounded percentile) is null with the key named in the object's
// "unbounded" list. Strict parsers (Python's json with parse_constant that
// rejects NaN and Infinity) read it.
#ifndef KVROUTE_ANALYSIS_JSON_WRITER_H_
#define KVROUTE_ANALYSIS_JSON_WRITER_H_

#include <string>
#include <string_view>
#include <vector>

#include "analysis/point_metrics.h"
#include "analysis/slo.h"

namespace kvroute::analysis {

class JsonWriter {
 public:
  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  void Key(std::string_view key);
  // Non-finite values are written as null.
  void Number(double value);
  void Integer(uint64_t value);
  void String(std::string_view value);
  void Bool(bool value);
  void Null();
  const std::string& str() const { return out_; }

 private:
  void Separate();
  std::string out_;
  bool need_comma_ = false;
};

// One JSON object with every field of the point (point_fields.h): the /points
// columns by the same names (SLO values as "slo<i>_value_s"), then "slos" (each
// SLO's label, value and whether it was met), "replica_requests",
// "policy_stats", the row tables "tenants", "timeseries" and
// "deployment_series", and "unbounded".
std::string PointToJson(const PointResult& point, const std::vector<Slo>& slos);

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_JSON_WRITER_H_
