#include "analysis/partial_file.h"

#include <filesystem>

#include "analysis/hdf5_attributes.h"
#include "analysis/point_codec.h"

namespace kvroute::analysis {
namespace {

constexpr char kRecords[] = "point_records";

H5::StrType RecordType() { return H5::StrType(H5::PredType::C_S1, H5T_VARIABLE); }

}  // namespace

PartialFile::PartialFile(std::string path, H5::H5File file, size_t rows)
    : path_(std::move(path)), file_(std::make_unique<H5::H5File>(file)), rows_(rows) {}

PartialFile PartialFile::Create(const std::string& path, const std::string& scenario_hash,
                                const std::string& scenario_yaml) {
  try {
    H5::Exception::dontPrint();
    H5::H5File file(path, H5F_ACC_TRUNC);
    H5::Group root = file.openGroup("/");
    WriteStringAttribute(root, "scenario_hash", scenario_hash);
    WriteStringAttribute(root, "scenario_yaml", scenario_yaml);
    hsize_t dims[1] = {0}, max_dims[1] = {H5S_UNLIMITED}, chunk[1] = {16};
    H5::DataSpace space(1, dims, max_dims);
    H5::DSetCreatPropList properties;
    properties.setChunk(1, chunk);
    file.createDataSet(kRecords, RecordType(), space, properties);
    file.flush(H5F_SCOPE_GLOBAL);
    return PartialFile(path, file, 0);
  } catch (const H5::Exception& e) {
    throw PartialFileError(path + ": cannot write: " + e.getDetailMsg());
  }
}

PartialFile PartialFile::Resume(const std::string& path, const std::string& scenario_hash,
                                std::vector<PointResult>* points) {
  H5::Exception::dontPrint();
  std::string stored;
  try {
    H5::H5File file(path, H5F_ACC_RDONLY);
    stored = ReadStringAttribute(file.openGroup("/"), "scenario_hash");
  } catch (const H5::Exception& e) {
    throw PartialFileError(path + ": cannot read it to resume (" + e.getDetailMsg() +
                           "); delete it to start the sweep afresh");
  }
  if (stored != scenario_hash) {
    throw PartialFileError(path + ": written for a different scenario (hash " + stored +
                           ", this run " + scenario_hash +
                           "); refusing to mix their points — run without --resume to start "
                           "afresh, or resume with the scenario and options it was started with");
  }
  try {
    H5::H5File file(path, H5F_ACC_RDWR);
    H5::DataSet dataset = file.openDataSet(kRecords);
    size_t rows = static_cast<size_t>(dataset.getSpace().getSimpleExtentNpoints());
    std::vector<char*> records(rows);
    H5::StrType type = RecordType();
    if (rows > 0) dataset.read(records.data(), type);
    std::vector<PointResult> decoded;
    try {
      for (char* record : records) decoded.push_back(DecodePoint(record));
    } catch (const PointCodecError& e) {
      H5::DataSet::vlenReclaim(records.data(), type, dataset.getSpace());
      throw PartialFileError(path + ": " + e.what());
    }
    if (rows > 0) H5::DataSet::vlenReclaim(records.data(), type, dataset.getSpace());
    points->insert(points->end(), decoded.begin(), decoded.end());
    return PartialFile(path, file, rows);
  } catch (const H5::Exception& e) {
    throw PartialFileError(path + ": cannot read it to resume (" + e.getDetailMsg() +
                           "); delete it to start the sweep afresh");
  }
}

void PartialFile::Append(const PointResult& point) {
  std::string record = EncodePoint(point);
  try {
    H5::DataSet dataset = file_->openDataSet(kRecords);
    hsize_t size[1] = {rows_ + 1};
    dataset.extend(size);
    H5::DataSpace file_space = dataset.getSpace();
    hsize_t start[1] = {rows_}, count[1] = {1};
    file_space.selectHyperslab(H5S_SELECT_SET, count, start);
    H5::DataSpace memory_space(1, count);
    const char* data[1] = {record.c_str()};
    dataset.write(data, RecordType(), memory_space, file_space);
    file_->flush(H5F_SCOPE_GLOBAL);
    ++rows_;
  } catch (const H5::Exception& e) {
    throw PartialFileError(path_ + ": cannot write: " + e.getDetailMsg());
  }
}

void PartialFile::Remove() {
  file_->close();
  std::filesystem::remove(path_);
}

}  // namespace kvroute::analysis
