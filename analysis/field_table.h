// A table of named, typed fields of a record type: the one place that says
// what a column of kvroute's output is called, its unit, its type, what values
// it may hold and how to get it from (and put it back into) the record. The
// JSON writer, the HDF5 writer and reader, the point codec, the checks on
// read-back and the docs all iterate these tables (DESIGN.md, "One table of
// point metrics"), so a new field is one row.
//
// A record may hold several rows of a table (a point's time series has one
// per bucket): accessors take the record and the row index.
#ifndef KVROUTE_ANALYSIS_FIELD_TABLE_H_
#define KVROUTE_ANALYSIS_FIELD_TABLE_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace kvroute::analysis {

enum class FieldType {
  kText,   // UTF-8 string (HDF5: fixed-length string; JSON: string)
  kCount,  // unsigned 64-bit integer (HDF5: uint64; JSON: integer)
  kReal,   // IEEE double (HDF5: float64; JSON: number, null for NaN)
};

// The values a field may hold, checked whenever a record is read back (resume,
// MPI results, `kvroute report`); anything else is refused with the field's
// name. Cross-field invariants (counts that conserve) are checked elsewhere.
enum class FieldRange {
  kName,         // text: 1 to 1024 bytes, no control characters
  kAnyCount,     // any integer
  kSmallCount,   // integer < 2^32 (stored in 32 bits)
  kFlag,         // integer 0 or 1
  kPositive,     // finite and > 0
  kNonNegative,  // finite and >= 0, or NaN when there is nothing to measure
  kShare,        // in [0, 1], or NaN when there is nothing to measure
  kLatency,      // >= 0 seconds; +inf when censored (unbounded); NaN when no data
  kAnyReal,      // any value (a confidence bound may be negative; NaN: none)
};

template <typename Record>
struct Field {
  std::string_view name;
  std::string_view unit;  // "" when dimensionless
  FieldType type;
  FieldRange range;
  std::string_view description;
  // The getter of `type`; the others are null.
  std::string (*text)(const Record&, size_t row) = nullptr;
  uint64_t (*count)(const Record&, size_t row) = nullptr;
  double (*real)(const Record&, size_t row) = nullptr;
  // The setter of `type`, or all null for a derived field: one computed from
  // other fields, written for convenience but not read back. A setter may
  // throw std::invalid_argument for a value its range cannot express.
  void (*set_text)(Record&, size_t row, std::string value) = nullptr;
  void (*set_count)(Record&, size_t row, uint64_t value) = nullptr;
  void (*set_real)(Record&, size_t row, double value) = nullptr;

  bool derived() const { return !set_text && !set_count && !set_real; }
};

// A table of fields and how many rows of it a record holds.
template <typename Record>
struct RecordTable {
  std::string_view name;         // the HDF5 dataset and the JSON key
  std::string_view description;  // "one row per ..."
  size_t (*rows)(const Record&);
  void (*resize)(Record&, size_t rows);
  std::span<const Field<Record>> fields;
};

// "" if `value` is allowed by `range`, else what is wrong with it.
std::string CheckText(FieldRange range, std::string_view value);
std::string CheckCount(FieldRange range, uint64_t value);
std::string CheckReal(FieldRange range, double value);

// Check, then set (setters of derived fields are null: nothing is set). Each
// returns "" or what is wrong with the value, as CheckText and co.
template <typename Record>
std::string SetChecked(const Field<Record>& f, Record& record, size_t row, std::string value) {
  std::string problem = CheckText(f.range, value);
  if (problem.empty() && f.set_text) f.set_text(record, row, std::move(value));
  return problem;
}
template <typename Record>
std::string SetChecked(const Field<Record>& f, Record& record, size_t row, uint64_t value) {
  std::string problem = CheckCount(f.range, value);
  if (problem.empty() && f.set_count) f.set_count(record, row, value);
  return problem;
}
template <typename Record>
std::string SetChecked(const Field<Record>& f, Record& record, size_t row, double value) {
  std::string problem = CheckReal(f.range, value);
  if (problem.empty() && f.set_real) f.set_real(record, row, value);
  return problem;
}

std::string_view TypeName(FieldType type);     // "text", "integer", "real"
std::string_view RangeText(FieldRange range);  // for the docs: "≥ 0, +inf if censored, NaN if none"

// Accessor builders for the common shapes: a member of the record, or a member
// of the element `row` of a vector member. Derived fields write their lambdas.
namespace field_detail {
template <typename T>
struct MemberTraits;
template <typename C, typename T>
struct MemberTraits<T C::*> {
  using Class = C;
  using Type = T;
};
}  // namespace field_detail

// A field that is `record.*Member` (the row is ignored).
template <auto Member>
auto Scalar(std::string_view name, std::string_view unit, FieldRange range,
            std::string_view description) {
  using Traits = field_detail::MemberTraits<decltype(Member)>;
  using Record = typename Traits::Class;
  using T = typename Traits::Type;
  Field<Record> f{.name = name,
                  .unit = unit,
                  .type = FieldType::kReal,
                  .range = range,
                  .description = description};
  if constexpr (std::is_same_v<T, std::string>) {
    f.type = FieldType::kText;
    f.text = [](const Record& r, size_t) { return r.*Member; };
    f.set_text = [](Record& r, size_t, std::string v) { r.*Member = std::move(v); };
  } else if constexpr (std::is_integral_v<T> || std::is_same_v<T, bool>) {
    f.type = FieldType::kCount;
    f.count = [](const Record& r, size_t) { return static_cast<uint64_t>(r.*Member); };
    f.set_count = [](Record& r, size_t, uint64_t v) { r.*Member = static_cast<T>(v); };
  } else {
    f.real = [](const Record& r, size_t) { return static_cast<double>(r.*Member); };
    f.set_real = [](Record& r, size_t, double v) { r.*Member = v; };
  }
  return f;
}

// A field that is `record.*Outer.*Inner` (a member of a member struct).
template <auto Outer, auto Inner>
auto Nested(std::string_view name, std::string_view unit, FieldRange range,
            std::string_view description) {
  using Record = typename field_detail::MemberTraits<decltype(Outer)>::Class;
  using T = typename field_detail::MemberTraits<decltype(Inner)>::Type;
  Field<Record> f{.name = name,
                  .unit = unit,
                  .type = FieldType::kReal,
                  .range = range,
                  .description = description};
  if constexpr (std::is_integral_v<T>) {
    f.type = FieldType::kCount;
    f.count = [](const Record& r, size_t) { return static_cast<uint64_t>((r.*Outer).*Inner); };
    f.set_count = [](Record& r, size_t, uint64_t v) { (r.*Outer).*Inner = static_cast<T>(v); };
  } else {
    f.real = [](const Record& r, size_t) { return static_cast<double>((r.*Outer).*Inner); };
    f.set_real = [](Record& r, size_t, double v) { (r.*Outer).*Inner = v; };
  }
  return f;
}

// A field that is `record.*Vector[row].*Member`.
template <auto Vector, auto Member>
auto Element(std::string_view name, std::string_view unit, FieldRange range,
             std::string_view description) {
  using Record = typename field_detail::MemberTraits<decltype(Vector)>::Class;
  using T = typename field_detail::MemberTraits<decltype(Member)>::Type;
  Field<Record> f{.name = name,
                  .unit = unit,
                  .type = FieldType::kReal,
                  .range = range,
                  .description = description};
  if constexpr (std::is_same_v<T, std::string>) {
    f.type = FieldType::kText;
    f.text = [](const Record& r, size_t i) { return (r.*Vector)[i].*Member; };
    f.set_text = [](Record& r, size_t i, std::string v) { (r.*Vector)[i].*Member = std::move(v); };
  } else if constexpr (std::is_integral_v<T>) {
    f.type = FieldType::kCount;
    f.count = [](const Record& r, size_t i) {
      return static_cast<uint64_t>((r.*Vector)[i].*Member);
    };
    f.set_count = [](Record& r, size_t i, uint64_t v) {
      (r.*Vector)[i].*Member = static_cast<T>(v);
    };
  } else {
    f.real = [](const Record& r, size_t i) { return static_cast<double>((r.*Vector)[i].*Member); };
    f.set_real = [](Record& r, size_t i, double v) { (r.*Vector)[i].*Member = v; };
  }
  return f;
}

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_FIELD_TABLE_H_
