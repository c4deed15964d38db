// String attributes on HDF5 objects, as kvroute's files store them: fixed-length
// C strings.
#ifndef KVROUTE_ANALYSIS_HDF5_ATTRIBUTES_H_
#define KVROUTE_ANALYSIS_HDF5_ATTRIBUTES_H_

#include <H5Cpp.h>

#include <string>

namespace kvroute::analysis {

void WriteStringAttribute(H5::H5Object& object, const std::string& name, const std::string& value);

// Throws H5::Exception if there is no such attribute.
std::string ReadStringAttribute(const H5::H5Object& object, const std::string& name);

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_HDF5_ATTRIBUTES_H_
