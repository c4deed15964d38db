#include "analysis/hdf5_attributes.h"

#include <algorithm>

namespace kvroute::analysis {

void WriteStringAttribute(H5::H5Object& object, const std::string& name, const std::string& value) {
  H5::StrType type(H5::PredType::C_S1, std::max<size_t>(value.size(), 1));
  H5::DataSpace scalar(H5S_SCALAR);
  H5::Attribute attribute = object.createAttribute(name, type, scalar);
  std::string padded = value.empty() ? std::string(1, '\0') : value;
  attribute.write(type, padded.data());
}

std::string ReadStringAttribute(const H5::H5Object& object, const std::string& name) {
  H5::Attribute attribute = object.openAttribute(name);
  std::string value;
  attribute.read(attribute.getStrType(), value);
  // Fixed-length strings come back with their padding.
  value.erase(std::find(value.begin(), value.end(), '\0'), value.end());
  return value;
}

void WriteText(H5::Group& group, const std::string& name, const std::string& text) {
  H5::StrType type(H5::PredType::C_S1, H5T_VARIABLE);
  type.setCset(H5T_CSET_UTF8);
  H5::DataSpace scalar(H5S_SCALAR);
  H5::DataSet dataset = group.createDataSet(name, type, scalar);
  const char* data = text.c_str();
  dataset.write(&data, type);
}

std::string ReadText(const H5::Group& group, const std::string& name) {
  H5::DataSet dataset = group.openDataSet(name);
  if (dataset.getSpace().getSimpleExtentNpoints() != 1 || dataset.getTypeClass() != H5T_STRING ||
      !dataset.getStrType().isVariableStr()) {
    throw H5::DataSetIException("ReadText", name + " is not one variable-length string");
  }
  H5::StrType type = dataset.getStrType();
  char* data = nullptr;
  dataset.read(&data, type);
  std::string text = data ? data : "";
  H5::DataSet::vlenReclaim(&data, type, dataset.getSpace());
  return text;
}

}  // namespace kvroute::analysis
