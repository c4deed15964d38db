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

}  // namespace kvroute::analysis
