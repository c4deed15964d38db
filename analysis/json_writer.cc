#include "analysis/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "analysis/point_fields.h"

namespace kvroute::analysis {

void JsonWriter::Separate() {
  if (need_comma_) out_ += ',';
  need_comma_ = true;
}

void JsonWriter::BeginObject() {
  Separate();
  out_ += '{';
  need_comma_ = false;
}

void JsonWriter::EndObject() {
  out_ += '}';
  need_comma_ = true;
}

void JsonWriter::BeginArray() {
  Separate();
  out_ += '[';
  need_comma_ = false;
}

void JsonWriter::EndArray() {
  out_ += ']';
  need_comma_ = true;
}

void JsonWriter::Key(std::string_view key) {
  String(key);
  out_ += ':';
  need_comma_ = false;
}

void JsonWriter::Number(double value) {
  if (!std::isfinite(value)) {
    Null();
    return;
  }
  Separate();
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out_.append(buffer, result.ptr);
}

void JsonWriter::Integer(uint64_t value) {
  Separate();
  out_ += std::to_string(value);
}

void JsonWriter::String(std::string_view value) {
  Separate();
  out_ += '"';
  for (char c : value) {
    if (c == '"' || c == '\\') {
      out_ += '\\';
      out_ += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned char>(c));
      out_ += escaped;
    } else {
      out_ += c;
    }
  }
  out_ += '"';
}

void JsonWriter::Bool(bool value) {
  Separate();
  out_ += value ? "true" : "false";
}

void JsonWriter::Null() {
  Separate();
  out_ += "null";
}

namespace {

bool HasLatency(const PointTable& table) {
  for (const PointField& f : table.fields) {
    if (f.range == FieldRange::kLatency) return true;
  }
  return false;
}

// Writes a real; an infinite one is null and its key joins `unbounded`.
void Real(JsonWriter& json, std::string_view key, double value,
          std::vector<std::string_view>* unbounded) {
  json.Key(key);
  json.Number(value);
  if (std::isinf(value)) unbounded->push_back(key);
}

void Unbounded(JsonWriter& json, const std::vector<std::string_view>& unbounded) {
  json.Key("unbounded");
  json.BeginArray();
  for (std::string_view key : unbounded) json.String(key);
  json.EndArray();
}

// The fields of one row of `table`, inside an object the caller opened.
void Fields(JsonWriter& json, const PointTable& table, const PointResult& p, size_t row,
            std::vector<std::string_view>* unbounded) {
  for (const PointField& f : table.fields) {
    switch (f.type) {
      case FieldType::kText:
        json.Key(f.name);
        json.String(f.text(p, row));
        break;
      case FieldType::kCount:
        json.Key(f.name);
        json.Integer(f.count(p, row));
        break;
      case FieldType::kReal:
        Real(json, f.name, f.real(p, row), unbounded);
        break;
    }
  }
}

}  // namespace

std::string PointToJson(const PointResult& p, const std::vector<Slo>& slos) {
  JsonWriter json;
  json.BeginObject();
  std::vector<std::string_view> unbounded;
  Fields(json, PointScalars(), p, 0, &unbounded);
  std::vector<std::string> slo_keys;
  for (size_t i = 0; i < p.slo_values.size(); ++i) slo_keys.push_back(SloValueColumn(i));
  for (size_t i = 0; i < p.slo_values.size(); ++i)
    Real(json, slo_keys[i], p.slo_values[i], &unbounded);
  json.Key("slos");
  json.BeginArray();
  for (size_t i = 0; i < slos.size() && i < p.slo_values.size(); ++i) {
    json.BeginObject();
    json.Key("index");
    json.Integer(i);
    json.Key("label");
    json.String(slos[i].Label());
    std::vector<std::string_view> slo_unbounded;
    Real(json, "value_s", p.slo_values[i], &slo_unbounded);
    json.Key("met");
    json.Bool(slos[i].Met(p.slo_values[i]));
    Unbounded(json, slo_unbounded);
    json.EndObject();
  }
  json.EndArray();
  json.Key("replica_requests");
  json.BeginArray();
  for (uint64_t n : p.replica_requests) json.Integer(n);
  json.EndArray();
  json.Key("policy_stats");
  json.BeginObject();
  for (const auto& [name, value] : p.policy_stats) {
    json.Key(name);
    json.Number(value);
  }
  json.EndObject();
  for (const PointTable& table : PointRowTables()) {
    json.Key(table.name);
    json.BeginArray();
    const bool latency = HasLatency(table);
    for (size_t row = 0; row < table.rows(p); ++row) {
      json.BeginObject();
      std::vector<std::string_view> row_unbounded;
      Fields(json, table, p, row, &row_unbounded);
      if (latency) Unbounded(json, row_unbounded);
      json.EndObject();
    }
    json.EndArray();
  }
  Unbounded(json, unbounded);
  json.EndObject();
  return json.str();
}

}  // namespace kvroute::analysis
