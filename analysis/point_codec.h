// A PointResult as one self-contained text record, exact to the bit: doubles
// travel as their IEEE-754 bit patterns, so a decoded point equals the point
// that was encoded, NaN and infinity included. Used for the records of a
// sweep's partial file (resume) and for points sent between MPI ranks.
#ifndef KVROUTE_ANALYSIS_POINT_CODEC_H_
#define KVROUTE_ANALYSIS_POINT_CODEC_H_

#include <stdexcept>
#include <string>
#include <string_view>

#include "analysis/point_metrics.h"

namespace kvroute::analysis {

class PointCodecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string EncodePoint(const PointResult& point);

// Throws PointCodecError if `record` is not a record EncodePoint wrote.
PointResult DecodePoint(std::string_view record);

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_POINT_CODEC_H_
