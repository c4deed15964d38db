#include "analysis/column_table.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <stdexcept>

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
  for (size_t c = 0; c < columns_.size(); ++c) {
    for (size_t d = 0; d < c; ++d) {
      if (columns_[c].name == columns_[d].name) {
        throw std::invalid_argument("/" + name + ": two columns named '" + columns_[c].name + "'");
      }
    }
  }
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
    try {
      compound.insertMember(columns_[c].name, offsets[c], types[c]);
    } catch (const H5::Exception& e) {
      throw std::invalid_argument("/" + name + ": cannot add column '" + columns_[c].name + "'");
    }
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

ColumnReader::ColumnReader(const H5::Group& parent, const std::string& name) : name_(name) {
  dataset_ = parent.openDataSet(name);
  if (dataset_.getTypeClass() != H5T_COMPOUND) throw ColumnError("/" + name + " is not a table");
  H5::DataSpace space = dataset_.getSpace();
  if (space.getSimpleExtentNdims() != 1) throw ColumnError("/" + name + " is not a table");
  rows_ = static_cast<size_t>(space.getSimpleExtentNpoints());
  H5::CompType type = dataset_.getCompType();
  for (int i = 0; i < type.getNmembers(); ++i) columns_.push_back(type.getMemberName(i));
}

bool ColumnReader::Has(const std::string& column) const {
  return std::find(columns_.begin(), columns_.end(), column) != columns_.end();
}

H5T_class_t ColumnReader::Require(const std::string& column, H5T_class_t type) const {
  if (!Has(column)) throw ColumnError("/" + name_ + " has no column '" + column + "'");
  H5::CompType stored = dataset_.getCompType();
  H5T_class_t found = stored.getMemberClass(stored.getMemberIndex(column));
  if (found != type) {
    throw ColumnError("/" + name_ + " column '" + column + "' is not of the type kvroute writes");
  }
  return found;
}

std::vector<double> ColumnReader::Reals(const std::string& column) const {
  Require(column, H5T_FLOAT);
  H5::CompType memory(sizeof(double));
  memory.insertMember(column, 0, H5::PredType::NATIVE_DOUBLE);
  std::vector<double> values(rows_);
  if (rows_ > 0) dataset_.read(values.data(), memory);
  return values;
}

std::vector<uint64_t> ColumnReader::Counts(const std::string& column) const {
  Require(column, H5T_INTEGER);
  H5::CompType memory(sizeof(uint64_t));
  memory.insertMember(column, 0, H5::PredType::NATIVE_UINT64);
  std::vector<uint64_t> values(rows_);
  if (rows_ > 0) dataset_.read(values.data(), memory);
  return values;
}

std::vector<std::string> ColumnReader::Texts(const std::string& column) const {
  Require(column, H5T_STRING);
  H5::CompType stored = dataset_.getCompType();
  H5::StrType stored_type = stored.getMemberStrType(stored.getMemberIndex(column));
  if (stored_type.isVariableStr()) {
    throw ColumnError("/" + name_ + " column '" + column + "' is not of the type kvroute writes");
  }
  size_t width = stored_type.getSize();
  H5::CompType memory(width);
  memory.insertMember(column, 0, H5::StrType(H5::PredType::C_S1, width));
  std::vector<char> buffer(std::max<size_t>(rows_ * width, 1), 0);
  if (rows_ > 0) dataset_.read(buffer.data(), memory);
  std::vector<std::string> values(rows_);
  for (size_t r = 0; r < rows_; ++r) {
    const char* cell = buffer.data() + r * width;
    values[r].assign(cell, strnlen(cell, width));
  }
  return values;
}

}  // namespace kvroute::analysis
