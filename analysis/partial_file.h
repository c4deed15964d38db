// The file a sweep writes while it runs, FILE.h5.partial: an HDF5 file whose
// root attribute scenario_hash and text dataset /scenario_yaml identify the
// scenario, and whose dataset /point_records (extendible, chunked) holds one
// encoded point per finished point (point_codec.h). Each append is flushed to
// disk, so an interrupted sweep loses at most the points that were still
// running. When the sweep completes the finished file is written and this one
// is removed. On resume every record is decoded and checked (point_check.h):
// one that is damaged or inconsistent refuses the whole file, naming it.
#ifndef KVROUTE_ANALYSIS_PARTIAL_FILE_H_
#define KVROUTE_ANALYSIS_PARTIAL_FILE_H_

#include <H5Cpp.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/point_check.h"
#include "analysis/point_metrics.h"

namespace kvroute::analysis {

// A partial file that belongs to another scenario, or cannot be read.
class PartialFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class PartialFile {
 public:
  // Creates `path`, replacing any file there. Throws PartialFileError naming it.
  static PartialFile Create(const std::string& path, const std::string& scenario_hash,
                            const std::string& scenario_yaml);
  // Opens `path` to continue it and appends its points to `points`. Throws
  // PartialFileError, leaving the file untouched, if it was written for a
  // scenario whose hash is not `scenario_hash`, cannot be read, or holds a
  // record that is damaged, fails CheckPoint against `expected`, or repeats
  // the point of an earlier record; the message names the record.
  static PartialFile Resume(const std::string& path, const std::string& scenario_hash,
                            const PointExpectations& expected, std::vector<PointResult>* points);

  // Appends one point and flushes the file to disk.
  void Append(const PointResult& point);
  // Closes and deletes the file.
  void Remove();

  size_t size() const { return rows_; }

 private:
  PartialFile(std::string path, H5::H5File file, size_t rows);

  std::string path_;
  std::unique_ptr<H5::H5File> file_;
  size_t rows_ = 0;
};

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_PARTIAL_FILE_H_
