// A small JSON writer for `kvroute point --json`. Numbers are written in the
// shortest form that reads back to the same double; +inf (a censored
// percentile) is written as the string "inf" and NaN (no data) as null.
#ifndef KVROUTE_ANALYSIS_JSON_WRITER_H_
#define KVROUTE_ANALYSIS_JSON_WRITER_H_

#include <string>
#include <string_view>

#include "analysis/point_metrics.h"

namespace kvroute::analysis {

class JsonWriter {
 public:
  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  void Key(std::string_view key);
  void Number(double value);
  void Integer(uint64_t value);
  void String(std::string_view value);
  void Bool(bool value);
  const std::string& str() const { return out_; }

 private:
  void Separate();
  std::string out_;
  bool need_comma_ = false;
};

// One JSON object with every metric of the point; SLO values are keyed by the
// SLO labels in `slos`.
std::string PointToJson(const PointResult& point, const std::vector<Slo>& slos);

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_JSON_WRITER_H_
