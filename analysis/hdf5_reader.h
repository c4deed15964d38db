// Reads back a results file written by WriteResultsHdf5, for `kvroute report`:
// the attributes and every table, turned back into SweepResults (points with
// every column the writer stores, capacities, summaries, SLOs).
#ifndef KVROUTE_ANALYSIS_HDF5_READER_H_
#define KVROUTE_ANALYSIS_HDF5_READER_H_

#include <stdexcept>
#include <string>

#include "analysis/hdf5_writer.h"
#include "analysis/sweep_results.h"

namespace kvroute::analysis {

struct StoredResults {
  FileAttributes attributes;
  SweepResults results;
};

class ResultsFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws ResultsFileError naming `path` (and the dataset or column at fault).
StoredResults ReadResultsHdf5(const std::string& path);

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_HDF5_READER_H_
