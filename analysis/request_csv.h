// Per-request records as CSV (`kvroute point --requests FILE`, `kvroute run
// --requests DIR`): one row per request the point offered, in the order they
// were done with, with the columns of RequestColumns(). Loads into pandas with
// pd.read_csv(FILE); the column table in docs/WORKLOADS.md is printed from
// the same table (kvroute help requests).
//
// The file is written under FILE.tmp, then closed, re-read to check it holds
// the header and every row, and only then renamed to FILE: an interrupted or
// failed point leaves no half-written FILE, and an existing FILE is replaced
// only by a complete one.
#ifndef KVROUTE_ANALYSIS_REQUEST_CSV_H_
#define KVROUTE_ANALYSIS_REQUEST_CSV_H_

#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "analysis/request_record.h"
#include "sim/core/time.h"

namespace kvroute::analysis {

// What a row needs besides its record.
struct RequestCsvContext {
  sim::Time warmup = 0;                         // rows arriving from here on are `measured`
  std::vector<std::string> replica_deployment;  // deployment name of each replica
};

struct RequestColumn {
  const char* name;
  const char* unit;
  const char* description;
  // Appends the cell (empty when it does not apply) to `out`.
  void (*write)(const RequestRecord& r, const RequestCsvContext& ctx, std::string* out);
};

// The columns, in file order: the one table the writer and the docs use.
std::span<const RequestColumn> RequestColumns();

class RequestCsvWriter : public RequestRecorder {
 public:
  // Opens `path`.tmp; throws std::runtime_error naming `path` if it cannot.
  RequestCsvWriter(std::string path, RequestCsvContext context);
  // Without Commit() the temporary file is removed.
  ~RequestCsvWriter() override;
  RequestCsvWriter(const RequestCsvWriter&) = delete;
  RequestCsvWriter& operator=(const RequestCsvWriter&) = delete;

  void OnRequest(const RequestRecord& record) override;
  // Closes, verifies and renames the file into place; throws
  // std::runtime_error naming the path when any step fails.
  void Commit();
  uint64_t rows() const { return rows_; }

 private:
  void Flush();

  std::string path_, temporary_;
  RequestCsvContext context_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
  uint64_t rows_ = 0;
  bool failed_ = false;
};

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_REQUEST_CSV_H_
