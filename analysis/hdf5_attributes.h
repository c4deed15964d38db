// Strings in HDF5 files as kvroute stores them: short ones as fixed-length
// string attributes; text of any length (a scenario, a command line) as a
// scalar dataset of one variable-length string, since an attribute holds at
// most 64 KiB.
#ifndef KVROUTE_ANALYSIS_HDF5_ATTRIBUTES_H_
#define KVROUTE_ANALYSIS_HDF5_ATTRIBUTES_H_

#include <H5Cpp.h>

#include <string>

namespace kvroute::analysis {

void WriteStringAttribute(H5::H5Object& object, const std::string& name, const std::string& value);

// Throws H5::Exception if there is no such attribute.
std::string ReadStringAttribute(const H5::H5Object& object, const std::string& name);

void WriteText(H5::Group& group, const std::string& name, const std::string& text);

// Throws H5::Exception if there is no such dataset.
std::string ReadText(const H5::Group& group, const std::string& name);

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_HDF5_ATTRIBUTES_H_
