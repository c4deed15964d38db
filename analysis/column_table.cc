#include "analysis/column_table.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace kvroute::analysis {

void ColumnTable::Add(std::string name, std::vector<double> values) {
  assert(values.size() == rows_);
  columns_.push_back({std::move(name), std::move(values)});
}

void ColumnTable::Add(std::string name, std::vector<uint64_t> values) {
  assert(values.size() == rows_);
  columns_.push_back({std::move(name), std::move(values)});
}

void ColumnTable::Add(std::string name, std::vector<std::string> values) {
  assert(values.size() == rows_);
  columns_.push_back({std::move(name), std::move(values)});
}

void ColumnTable::Write(H5::Group& parent, const std::string& name, bool compress) const {
  // Lay out one row: doubles and integers at 8 bytes, strings fixed-length at
  // the longest value plus a terminating NUL.
  std::vector<size_t> offsets, widths;
  std::vector<H5::DataType> types;
  size_t row_size = 0;
  for (const Column& column : columns_) {
    size_t width = 8;
    H5::DataType type = H5::PredType::NATIVE_DOUBLE;
    if (std::holds_alternative<std::vector<uint64_t>>(column.values)) {
      type = H5::PredType::NATIVE_UINT64;
    } else if (auto* strings = std::get_if<std::vector<std::string>>(&column.values)) {
      width = 1;
      for (const std::string& s : *strings) width = std::max(width, s.size() + 1);
      type = H5::StrType(H5::PredType::C_S1, width);
    }
    offsets.push_back(row_size);
    widths.push_back(width);
    types.push_back(type);
    row_size += width;
  }
  H5::CompType compound(std::max<size_t>(row_size, 1));
  for (size_t c = 0; c < columns_.size(); ++c) {
    compound.insertMember(columns_[c].name, offsets[c], types[c]);
  }
  std::vector<char> buffer(std::max<size_t>(rows_ * row_size, 1), 0);
  for (size_t c = 0; c < columns_.size(); ++c) {
    for (size_t r = 0; r < rows_; ++r) {
      char* cell = buffer.data() + r * row_size + offsets[c];
      std::visit(
          [&](const auto& values) {
            using T = typename std::decay_t<decltype(values)>::value_type;
            if constexpr (std::is_same_v<T, std::string>) {
              std::memcpy(cell, values[r].data(), values[r].size());
            } else {
              std::memcpy(cell, &values[r], sizeof(T));
            }
          },
          columns_[c].values);
    }
  }
  hsize_t dims[1] = {rows_};
  H5::DataSpace space(1, dims);
  H5::DSetCreatPropList properties;
  if (compress && rows_ > 0) {
    // About 1 MiB per chunk: large enough for deflate to find the repeats of
    // slowly changing columns, small enough to read one part of a large file.
    hsize_t chunk[1] = {std::clamp<hsize_t>((1u << 20) / std::max<size_t>(row_size, 1), 1, rows_)};
    properties.setChunk(1, chunk);
    properties.setShuffle();
    properties.setDeflate(6);
  }
  H5::DataSet dataset = parent.createDataSet(name, compound, space, properties);
  if (rows_ > 0) dataset.write(buffer.data(), compound);
}

}  // namespace kvroute::analysis
