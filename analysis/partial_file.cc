#include "analysis/partial_file.h"

#include <bit>
#include <filesystem>
#include <set>
#include <tuple>

#include "analysis/hdf5_attributes.h"
#include "analysis/point_codec.h"

namespace kvroute::analysis {
namespace {

constexpr char kRecords[] = "point_records";
// More records than any sweep has: a larger count is damage.
constexpr size_t kMaxRecords = size_t{1} << 28;

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
    WriteText(root, "scenario_yaml", scenario_yaml);
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
                                const PointExpectations& expected,
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
    throw PartialFileError(path + ": written for a different scenario or kvroute (hash " + stored +
                           ", this run " + scenario_hash +
                           "); refusing to mix their points — run without --resume to start "
                           "afresh, or resume with the kvroute, scenario and options it was "
                           "started with");
  }
  const std::string refuse = "; the partial file is refused: delete it to start the sweep afresh";
  try {
    H5::H5File file(path, H5F_ACC_RDWR);
    H5::DataSet dataset = file.openDataSet(kRecords);
    H5::DataSpace space = dataset.getSpace();
    if (dataset.getTypeClass() != H5T_STRING || !dataset.getStrType().isVariableStr() ||
        space.getSimpleExtentNdims() != 1) {
      throw PartialFileError(path + ": /" + kRecords + " is not a list of records" + refuse);
    }
    size_t rows = static_cast<size_t>(space.getSimpleExtentNpoints());
    if (rows > kMaxRecords) {
      throw PartialFileError(path + ": implausibly many records (" + std::to_string(rows) + ")" +
                             refuse);
    }
    std::vector<char*> records(rows, nullptr);
    H5::StrType type = RecordType();
    if (rows > 0) dataset.read(records.data(), type);
    std::vector<PointResult> decoded;
    std::string problem;
    std::set<std::tuple<std::string, uint64_t, uint64_t>> seen;
    for (size_t i = 0; i < rows && problem.empty(); ++i) {
      const std::string record = "record " + std::to_string(i);
      if (records[i] == nullptr) {
        problem = record + " is empty";
        break;
      }
      try {
        PointResult p = DecodePoint(records[i]);
        try {
          CheckPoint(p, expected);
        } catch (const PointCheckError& e) {
          problem = record + " (" + DescribePoint(p) + ") " + e.what();
          break;
        }
        if (!seen.insert({p.policy, std::bit_cast<uint64_t>(p.qps), p.seed}).second) {
          problem = record + " (" + DescribePoint(p) + ") repeats an earlier record's point";
          break;
        }
        decoded.push_back(std::move(p));
      } catch (const PointCodecError& e) {
        problem = record + ": " + e.what();
      }
    }
    if (rows > 0) H5::DataSet::vlenReclaim(records.data(), type, space);
    if (!problem.empty()) throw PartialFileError(path + ": " + problem + refuse);
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
