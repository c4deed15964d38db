// A table of named, typed columns that becomes one HDF5 compound dataset, and
// the reader of such a dataset, a column at a time by name.
#ifndef KVROUTE_ANALYSIS_COLUMN_TABLE_H_
#define KVROUTE_ANALYSIS_COLUMN_TABLE_H_

#include <H5Cpp.h>

#include <cstdint>
#include <stdexcept>
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
  // Throws std::invalid_argument if two columns share a name.
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

// A column that is missing or of the wrong type, or a value out of range.
class ColumnError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads a compound dataset written by ColumnTable::Write.
class ColumnReader {
 public:
  // Throws H5::Exception if there is no such dataset.
  ColumnReader(const H5::Group& parent, const std::string& name);

  const std::string& name() const { return name_; }
  size_t rows() const { return rows_; }
  const std::vector<std::string>& columns() const { return columns_; }
  bool Has(const std::string& column) const;

  // Each throws ColumnError naming the dataset and column if the column is
  // missing or not of that type.
  std::vector<double> Reals(const std::string& column) const;
  std::vector<uint64_t> Counts(const std::string& column) const;
  std::vector<std::string> Texts(const std::string& column) const;

 private:
  H5T_class_t Require(const std::string& column, H5T_class_t type) const;

  std::string name_;
  H5::DataSet dataset_;
  size_t rows_ = 0;
  std::vector<std::string> columns_;
};

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_COLUMN_TABLE_H_
