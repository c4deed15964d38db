// Field tables (field_table.h) to and from HDF5 column tables: every field
// becomes a column of its name and type; reading checks each value's range.
#ifndef KVROUTE_ANALYSIS_FIELD_COLUMNS_H_
#define KVROUTE_ANALYSIS_FIELD_COLUMNS_H_

#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "analysis/column_table.h"
#include "analysis/field_table.h"

namespace kvroute::analysis {

// Adds a column per field for `rows` rows; `at(i)` gives row i as (record, row
// within the record).
template <typename Record, typename At>
void AddFieldColumns(ColumnTable& table, std::span<const Field<Record>> fields, size_t rows,
                     At at) {
  for (const Field<Record>& f : fields) {
    switch (f.type) {
      case FieldType::kText: {
        std::vector<std::string> values(rows);
        for (size_t i = 0; i < rows; ++i) {
          auto [record, row] = at(i);
          values[i] = f.text(*record, row);
        }
        table.Add(std::string(f.name), std::move(values));
        break;
      }
      case FieldType::kCount: {
        std::vector<uint64_t> values(rows);
        for (size_t i = 0; i < rows; ++i) {
          auto [record, row] = at(i);
          values[i] = f.count(*record, row);
        }
        table.Add(std::string(f.name), std::move(values));
        break;
      }
      case FieldType::kReal: {
        std::vector<double> values(rows);
        for (size_t i = 0; i < rows; ++i) {
          auto [record, row] = at(i);
          values[i] = f.real(*record, row);
        }
        table.Add(std::string(f.name), std::move(values));
        break;
      }
    }
  }
}

// Sets every stored (not derived) field from its column; `at(i)` gives row i
// of the table as (record, row within the record). Throws ColumnError naming
// the table, row and column of a missing column or a value out of range.
template <typename Record, typename At>
void ReadFieldColumns(const ColumnReader& table, std::span<const Field<Record>> fields, At at) {
  auto set = [&](const Field<Record>& f, const auto& values) {
    for (size_t i = 0; i < values.size(); ++i) {
      auto [record, row] = at(i);
      std::string problem;
      try {
        problem = SetChecked(f, *record, row, values[i]);
      } catch (const std::invalid_argument& e) {
        problem = e.what();
      }
      if (!problem.empty()) {
        throw ColumnError("/" + table.name() + " row " + std::to_string(i) + ": column '" +
                          std::string(f.name) + "' " + problem);
      }
    }
  };
  for (const Field<Record>& f : fields) {
    if (f.derived()) continue;
    const std::string column(f.name);
    switch (f.type) {
      case FieldType::kText:
        set(f, table.Texts(column));
        break;
      case FieldType::kCount:
        set(f, table.Counts(column));
        break;
      case FieldType::kReal:
        set(f, table.Reals(column));
        break;
    }
  }
}

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_FIELD_COLUMNS_H_
