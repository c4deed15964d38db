#include "models/trace_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <unordered_map>
#include <unordered_set>

#include "sim/core/hashing.h"
#include "sim/core/time.h"

namespace kvroute::models {
namespace {

// Reports errors as FILE:LINE: field 'NAME': message.
struct Where {
  const std::string& file;
  uint64_t line;
  [[noreturn]] void Fail(const std::string& field, const std::string& message) const {
    throw TraceError(file + ":" + std::to_string(line) +
                     (field.empty() ? "" : ": field '" + field + "'") + ": " + message);
  }
};

// A cursor over one JSON line holding a flat object of numbers and arrays of
// numbers, the whole of the Mooncake format.
class JsonLine {
 public:
  JsonLine(std::string_view text, const Where& where) : s_(text), where_(where) {}

  void Skip() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\r')) ++pos_;
  }
  bool Peek(char c) {
    Skip();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  void Expect(char c, const std::string& field) {
    if (!Peek(c)) where_.Fail(field, std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string Key() {
    Expect('"', "");
    size_t end = s_.find('"', pos_);
    if (end == std::string_view::npos) where_.Fail("", "unterminated string");
    std::string key(s_.substr(pos_, end - pos_));
    pos_ = end + 1;
    Expect(':', key);
    return key;
  }
  double Number(const std::string& field) {
    Skip();
    double value = 0;
    auto [ptr, ec] = std::from_chars(s_.data() + pos_, s_.data() + s_.size(), value);
    if (ec != std::errc() || !std::isfinite(value)) where_.Fail(field, "expected a number");
    pos_ = static_cast<size_t>(ptr - s_.data());
    return value;
  }
  uint64_t Whole(const std::string& field, uint64_t max) {
    double v = Number(field);
    if (v < 0 || v != std::floor(v) || v > static_cast<double>(max)) {
      where_.Fail(field, "expected a whole number in [0, " + std::to_string(max) + "], got " +
                             std::to_string(v));
    }
    return static_cast<uint64_t>(v);
  }
  bool AtEnd() {
    Skip();
    return pos_ == s_.size();
  }

 private:
  std::string_view s_;
  const Where& where_;
  size_t pos_ = 0;
};

void ReadMooncake(std::istream& in, const TraceConfig& config, Trace* trace) {
  std::unordered_map<uint64_t, uint32_t> key_of_prefix;
  std::string line;
  std::vector<uint64_t> ids;
  uint64_t index = 0;
  double first_ms = 0;
  for (uint64_t number = 1; std::getline(in, line); ++number) {
    Where where{config.file, number};
    JsonLine json(line, where);
    if (json.AtEnd()) continue;
    json.Expect('{', "");
    double timestamp = -1;
    int64_t input = -1, output = -1;
    bool has_ids = false;
    ids.clear();
    while (!json.Peek('}')) {
      std::string key = json.Key();
      if (key == "timestamp") {
        timestamp = json.Number(key);
        if (timestamp < 0) where.Fail(key, "must be non-negative");
      } else if (key == "input_length") {
        input = static_cast<int64_t>(json.Whole(key, UINT32_MAX));
      } else if (key == "output_length") {
        output = static_cast<int64_t>(json.Whole(key, UINT32_MAX));
      } else if (key == "hash_ids") {
        has_ids = true;
        json.Expect('[', key);
        while (!json.Peek(']')) {
          ids.push_back(json.Whole(key, UINT64_MAX >> 11));
          if (!json.Peek(']')) json.Expect(',', key);
        }
        json.Expect(']', key);
      } else {
        where.Fail(key, "unknown field (valid: timestamp, input_length, output_length, hash_ids)");
      }
      if (!json.Peek('}')) json.Expect(',', key);
    }
    json.Expect('}', "");
    if (!json.AtEnd()) where.Fail("", "unexpected text after the object");
    if (timestamp < 0) where.Fail("timestamp", "required field is missing");
    if (input < 0) where.Fail("input_length", "required field is missing");
    if (output < 0) where.Fail("output_length", "required field is missing");
    if (!has_ids) where.Fail("hash_ids", "required field is missing");
    if (ids.size() >
        (static_cast<uint64_t>(input) + kMooncakeBlockTokens - 1) / kMooncakeBlockTokens) {
      where.Fail("hash_ids", "more 512-token blocks than input_length covers");
    }
    if (index++ < config.skip) continue;
    if (config.limit > 0 && trace->records.size() >= config.limit) break;
    if (trace->records.empty()) first_ms = timestamp;
    TraceRecord r;
    r.time_ns = std::llround((timestamp - first_ms) * 1e6);
    if (!trace->records.empty() && r.time_ns < trace->records.back().time_ns) {
      where.Fail("timestamp", "earlier than the previous request's");
    }
    r.input_tokens = static_cast<uint32_t>(input);
    r.output_tokens = static_cast<uint32_t>(output);
    r.hash_begin = static_cast<uint32_t>(trace->hash_ids.size());
    r.hash_count = static_cast<uint32_t>(ids.size());
    uint64_t prefix = 0;
    for (size_t j = 0; j < std::min<size_t>(config.key_blocks, ids.size()); ++j) {
      prefix = sim::Combine(prefix, ids[j] + 1);
    }
    auto [it, inserted] = key_of_prefix.try_emplace(prefix, trace->keys);
    if (inserted) ++trace->keys;
    r.key = it->second;
    trace->hash_ids.insert(trace->hash_ids.end(), ids.begin(), ids.end());
    trace->records.push_back(r);
  }
}

// Days since 1970-01-01 of a civil date (H. Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

// "YYYY-MM-DD HH:MM:SS[.fraction]" to nanoseconds since the epoch.
bool ParseTimestamp(std::string_view s, int64_t* ns) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  auto field = [&](size_t at, size_t len, int* out) {
    if (at + len > s.size()) return false;
    auto [p, ec] = std::from_chars(s.data() + at, s.data() + at + len, *out);
    return ec == std::errc() && p == s.data() + at + len;
  };
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':' ||
      !field(0, 4, &y) || !field(5, 2, &mo) || !field(8, 2, &d) || !field(11, 2, &h) ||
      !field(14, 2, &mi) || !field(17, 2, &sec) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 ||
      mi > 59 || sec > 60) {
    return false;
  }
  int64_t fraction = 0, scale = 1'000'000'000;
  if (s.size() > 19) {
    if (s[19] != '.' || s.size() == 20) return false;
    for (size_t i = 20; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      if (scale > 1) fraction += (s[i] - '0') * (scale /= 10);
    }
  }
  *ns =
      ((DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 24 + h) * 60 + mi) *
          60 * 1'000'000'000LL +
      sec * 1'000'000'000LL + fraction;
  return true;
}

void ReadAzure(std::istream& in, const TraceConfig& config, Trace* trace) {
  std::string line;
  if (!std::getline(in, line) || line.rfind("TIMESTAMP,ContextTokens,GeneratedTokens", 0) != 0) {
    Where{config.file, 1}.Fail("", "expected the header TIMESTAMP,ContextTokens,GeneratedTokens");
  }
  uint64_t index = 0;
  int64_t first_ns = 0;
  for (uint64_t number = 2; std::getline(in, line); ++number) {
    Where where{config.file, number};
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    size_t c1 = line.find(','), c2 = line.find(',', c1 + 1);
    if (c1 == std::string::npos || c2 == std::string::npos ||
        line.find(',', c2 + 1) != std::string::npos) {
      where.Fail("", "expected three comma-separated fields");
    }
    int64_t ns = 0;
    if (!ParseTimestamp(std::string_view(line).substr(0, c1), &ns)) {
      where.Fail("TIMESTAMP",
                 "expected YYYY-MM-DD HH:MM:SS.fraction, got '" + line.substr(0, c1) + "'");
    }
    uint32_t tokens[2];
    const char* names[2] = {"ContextTokens", "GeneratedTokens"};
    size_t starts[2] = {c1 + 1, c2 + 1}, ends[2] = {c2, line.size()};
    for (int f = 0; f < 2; ++f) {
      auto [p, ec] = std::from_chars(line.data() + starts[f], line.data() + ends[f], tokens[f]);
      if (ec != std::errc() || p != line.data() + ends[f] || starts[f] == ends[f]) {
        where.Fail(names[f], "expected a whole number, got '" +
                                 line.substr(starts[f], ends[f] - starts[f]) + "'");
      }
    }
    if (index++ < config.skip) continue;
    if (config.limit > 0 && trace->records.size() >= config.limit) break;
    if (trace->records.empty()) first_ns = ns;
    TraceRecord r;
    r.time_ns = ns - first_ns;
    if (!trace->records.empty() && r.time_ns < trace->records.back().time_ns) {
      where.Fail("TIMESTAMP", "earlier than the previous request's");
    }
    r.input_tokens = tokens[0];
    r.output_tokens = tokens[1];
    r.key = trace->keys++;
    trace->records.push_back(r);
  }
}

}  // namespace

double NativeBlockHitRate(const Trace& trace) {
  std::unordered_set<uint64_t> seen;
  uint64_t hits = 0;
  for (const TraceRecord& r : trace.records) {
    for (uint32_t j = 0; j < r.hash_count; ++j)
      hits += seen.count(trace.hash_ids[r.hash_begin + j]);
    for (uint32_t j = 0; j < r.hash_count; ++j) seen.insert(trace.hash_ids[r.hash_begin + j]);
  }
  return trace.hash_ids.empty()
             ? 0
             : static_cast<double>(hits) / static_cast<double>(trace.hash_ids.size());
}

TraceConfig::Format GuessTraceFormat(const std::string& path) {
  auto ends_with = [&](const std::string& suffix) {
    return path.size() >= suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with(".jsonl")) return TraceConfig::Format::kMooncake;
  if (ends_with(".csv")) return TraceConfig::Format::kAzure;
  return TraceConfig::Format::kNone;
}

Trace ReadTrace(const TraceConfig& config) {
  std::ifstream in(config.file);
  if (!in) throw TraceError(config.file + ": cannot open trace file");
  Trace trace;
  trace.source = config.file;
  trace.format = config.format;
  if (config.format == TraceConfig::Format::kMooncake) {
    ReadMooncake(in, config, &trace);
  } else if (config.format == TraceConfig::Format::kAzure) {
    ReadAzure(in, config, &trace);
  } else {
    throw TraceError(config.file + ": unknown trace format (valid: mooncake, azure)");
  }
  if (trace.records.empty())
    throw TraceError(config.file + ": no requests in the trace (after skip)");
  return trace;
}

double TracePeriod(const Trace& trace) {
  double span = sim::ToSeconds(trace.records.back().time_ns);
  size_t n = trace.records.size();
  return n > 1 && span > 0 ? span * static_cast<double>(n) / static_cast<double>(n - 1) : 1.0;
}

double NativeQps(const Trace& trace) {
  return static_cast<double>(trace.records.size()) / TracePeriod(trace);
}

}  // namespace kvroute::models
