#include "analysis/point_codec.h"

#include <bit>
#include <charconv>
#include <cstdint>
#include <cstdio>

#include "analysis/point_fields.h"

namespace kvroute::analysis {
namespace {

// Names the layout: the version of the record's frame and a hash of the
// stored fields' names and types in order (point_fields.h), so that a record
// written before a field was added, removed or reordered is refused rather
// than misread, without anyone remembering to bump a number.
const std::string& Magic() {
  static const std::string magic = [] {
    uint64_t hash = 14695981039346656037ULL;  // FNV-1a
    auto mix = [&](std::string_view text) {
      for (char c : text) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
      hash = (hash ^ 0xff) * 1099511628211ULL;
    };
    auto fields = [&](const PointTable& table) {
      mix(table.name);
      for (const PointField& f : table.fields) {
        if (f.derived()) continue;
        mix(f.name);
        mix(TypeName(f.type));
      }
    };
    fields(PointScalars());
    for (const PointTable& table : PointRowTables()) fields(table);
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
    return "kvroute-point-v5-" + std::string(hex);
  }();
  return magic;
}

class Writer {
 public:
  void U64(uint64_t v) { text_ += std::to_string(v) + ' '; }
  void F64(double v) {
    char buffer[24];
    std::snprintf(buffer, sizeof buffer, "%016llx ",
                  static_cast<unsigned long long>(std::bit_cast<uint64_t>(v)));
    text_ += buffer;
  }
  void Str(std::string_view s) {
    U64(s.size());
    text_.append(s);
    text_ += ' ';
  }
  void Value(const PointField& f, const PointResult& p, size_t row) {
    switch (f.type) {
      case FieldType::kText:
        Str(f.text(p, row));
        break;
      case FieldType::kCount:
        U64(f.count(p, row));
        break;
      case FieldType::kReal:
        F64(f.real(p, row));
        break;
    }
  }
  std::string Take() { return std::move(text_); }

 private:
  std::string text_;
};

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  uint64_t U64() { return Number(10); }
  double F64() { return std::bit_cast<double>(Number(16)); }
  std::string Str() {
    uint64_t size = U64();
    if (size > text_.size() - pos_) Fail();
    std::string s(text_.substr(pos_, size));
    pos_ += size;
    Space();
    return s;
  }
  // Bounds a count read from the record by what the rest could hold, at
  // `bytes_each` bytes or more per element, so that a damaged record cannot
  // ask for a huge allocation.
  size_t Count(size_t bytes_each) {
    uint64_t n = U64();
    if (n > (text_.size() - pos_) / bytes_each) Fail();
    return static_cast<size_t>(n);
  }
  void Value(const PointField& f, PointResult& p, size_t row) {
    std::string problem;
    switch (f.type) {
      case FieldType::kText:
        problem = SetChecked(f, p, row, Str());
        break;
      case FieldType::kCount:
        problem = SetChecked(f, p, row, U64());
        break;
      case FieldType::kReal:
        problem = SetChecked(f, p, row, F64());
        break;
    }
    if (!problem.empty()) throw PointCodecError("field '" + std::string(f.name) + "' " + problem);
  }
  void ExpectEnd() {
    if (pos_ != text_.size()) Fail();
  }
  [[noreturn]] void Fail() const {
    throw PointCodecError("not a kvroute point record (damaged at byte " + std::to_string(pos_) +
                          ")");
  }

 private:
  uint64_t Number(int base) {
    uint64_t v = 0;
    const char* begin = text_.data() + pos_;
    const char* end = text_.data() + text_.size();
    auto [ptr, ec] = std::from_chars(begin, end, v, base);
    if (ec != std::errc() || ptr == begin) Fail();
    pos_ += static_cast<size_t>(ptr - begin);
    Space();
    return v;
  }
  void Space() {
    if (pos_ >= text_.size() || text_[pos_] != ' ') Fail();
    ++pos_;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

size_t StoredFields(const PointTable& table) {
  size_t n = 0;
  for (const PointField& f : table.fields) n += f.derived() ? 0 : 1;
  return n;
}

}  // namespace

std::string EncodePoint(const PointResult& p) {
  Writer w;
  w.Str(Magic());
  for (const PointField& f : PointScalars().fields) {
    if (!f.derived()) w.Value(f, p, 0);
  }
  w.U64(p.slo_values.size());
  for (double v : p.slo_values) w.F64(v);
  w.U64(p.replica_requests.size());
  for (uint64_t v : p.replica_requests) w.U64(v);
  w.U64(p.policy_stats.size());
  for (const auto& [name, value] : p.policy_stats) {
    w.Str(name);
    w.F64(value);
  }
  w.U64(p.deployment_names.size());
  for (const std::string& name : p.deployment_names) w.Str(name);
  for (const PointTable& table : PointRowTables()) {
    const size_t rows = table.rows(p);
    w.U64(rows);
    for (size_t row = 0; row < rows; ++row) {
      for (const PointField& f : table.fields) {
        if (!f.derived()) w.Value(f, p, row);
      }
    }
  }
  return w.Take();
}

PointResult DecodePoint(std::string_view record) {
  Reader r(record);
  if (r.Str() != Magic()) r.Fail();
  PointResult p;
  for (const PointField& f : PointScalars().fields) {
    if (!f.derived()) r.Value(f, p, 0);
  }
  p.slo_values.resize(r.Count(17));  // 16 hex digits and a space each
  for (double& v : p.slo_values) v = r.F64();
  p.replica_requests.resize(r.Count(2));
  for (uint64_t& v : p.replica_requests) v = r.U64();
  p.policy_stats.resize(r.Count(2 + 17));
  for (auto& [name, value] : p.policy_stats) {
    name = r.Str();
    value = r.F64();
  }
  p.deployment_names.resize(r.Count(2));
  for (std::string& name : p.deployment_names) name = r.Str();
  for (const PointTable& table : PointRowTables()) {
    const size_t rows = r.Count(2 * StoredFields(table));
    table.resize(p, rows);
    for (size_t row = 0; row < rows; ++row) {
      for (const PointField& f : table.fields) {
        if (!f.derived()) r.Value(f, p, row);
      }
    }
  }
  r.ExpectEnd();
  return p;
}

}  // namespace kvroute::analysis
