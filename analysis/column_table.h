// A table of named, typed columns that becomes one HDF5 compound dataset.
#ifndef KVROUTE_ANALYSIS_COLUMN_TABLE_H_
#define KVROUTE_ANALYSIS_COLUMN_TABLE_H_

#include <H5Cpp.h>

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace kvroute::analysis {

class ColumnTable {
 public:
  explicit ColumnTable(size_t rows) : rows_(rows) {}

  // REQUIRES: each column has exactly `rows` values.
  void Add(std::string name, std::vector<double> values);
  void Add(std::string name, std::vector<uint64_t> values);
  void Add(std::string name, std::vector<std::string> values);

  // Writes the table as a compound dataset named `name` under `parent`;
  // `compress`: chunked and deflated, for tables of many rows (time series).
  void Write(H5::Group& parent, const std::string& name, bool compress = false) const;

 private:
  using Values = std::variant<std::vector<double>, std::vector<uint64_t>, std::vector<std::string>>;
  struct Column {
    std::string name;
    Values values;
  };
  size_t rows_;
  std::vector<Column> columns_;
};

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_COLUMN_TABLE_H_
