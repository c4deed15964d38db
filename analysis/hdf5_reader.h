// Reads back a results file written by WriteResultsHdf5, for `kvroute report`
// and for checking a file just written: the provenance and every table,
// turned back into SweepResults. Every value is checked against its field's
// range and every point against the invariants of point_check.h, and the
// tables must agree with one another (a /summary policy that /points lacks, a
// capacity of a seed never run): a file that fails is refused with a message
// naming the table and row, never half-read.
#ifndef KVROUTE_ANALYSIS_HDF5_READER_H_
#define KVROUTE_ANALYSIS_HDF5_READER_H_

#include <stdexcept>
#include <string>

#include "analysis/hdf5_writer.h"
#include "analysis/sweep_results.h"

namespace kvroute::analysis {

struct StoredResults {
  Provenance provenance;
  SweepResults results;
};

class ResultsFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws ResultsFileError naming `path` (and the dataset, row or column at fault).
StoredResults ReadResultsHdf5(const std::string& path);

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_HDF5_READER_H_
