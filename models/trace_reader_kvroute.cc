// kvroute's trace format for users' own logs (docs/WORKLOADS.md): one request
// per CSV row (header naming the columns) or JSONL line, with
//   time_s         arrival, seconds (any origin), non-decreasing   required
//   prompt_tokens  prompt length, >= 1                             required
//   output_tokens  output length, >= 1                             required
//   session        conversation id (text or number)                optional
//   tenant         tenant id (text or number)                      optional
//   key            routing key (text or number); default the session, else
//                  the first key_blocks hash ids, else its own     optional
//   hash_ids       ids of the prompt's blocks of block_tokens tokens (CSV:
//                  space-separated; JSONL: an array); equal ids = equal
//                  prefix blocks, as in Mooncake                   optional
#include <algorithm>
#include <cmath>
#include <sstream>

#include "models/json_line.h"
#include "models/trace_reader_internal.h"
#include "sim/core/hashing.h"

namespace kvroute::models::trace_internal {
namespace {

enum Field { kTime, kPrompt, kOutput, kSession, kTenant, kKey, kHashIds };
const std::vector<std::string> kFields = {"time_s", "prompt_tokens", "output_tokens", "session",
                                          "tenant", "key",           "hash_ids"};
const std::vector<std::string> kRequired = {"time_s", "prompt_tokens", "output_tokens"};

// One request's fields as text; `given` says which are set.
struct Row {
  std::string text[7] = {};
  bool given[7] = {};
  std::vector<uint64_t> ids = {};
};

void ParseIdList(const std::string& text, const Where& where, std::vector<uint64_t>* ids) {
  std::istringstream in(text);
  std::string id;
  while (in >> id) ids->push_back(WholeField(id, 0, UINT64_MAX >> 11, "hash_ids", where));
}

// One JSONL line's fields as text: numbers as written, strings decoded.
void ParseJsonFields(JsonLine& json, const Where& where, Row* row) {
  if (!json.Peek('{')) where.Fail("", "not a JSON object");
  json.Expect('{', "");
  if (!json.Peek('}')) {
    for (;;) {
      const std::string name = json.Key();
      const auto it = std::find(kFields.begin(), kFields.end(), name);
      if (it == kFields.end()) {
        where.Fail(name,
                   "unknown field (valid: time_s, prompt_tokens, output_tokens, session, "
                   "tenant, key, hash_ids)");
      }
      const size_t f = static_cast<size_t>(it - kFields.begin());
      if (row->given[f]) where.Fail(name, "given twice");
      row->given[f] = true;
      if (f == kHashIds) {
        if (!json.Peek('[')) where.Fail(name, "expected an array of block ids");
        json.Expect('[', name);
        while (!json.Peek(']')) {
          if (json.Peek('"') || json.Peek('[') || json.Peek('{')) {
            where.Fail(name, "expected an array of block ids");
          }
          const std::string id(json.NumberText(name));
          row->ids.push_back(WholeField(id, 0, UINT64_MAX >> 11, name, where));
          if (!json.Peek(']')) json.Expect(',', name);
        }
        json.Expect(']', name);
      } else if (json.Peek('"')) {
        row->text[f] = json.String(name);
      } else if (json.Peek('[') || json.Peek('{')) {
        where.Fail(name, "expected a number or a string");
      } else {
        row->text[f] = json.NumberText(name);
      }
      if (json.Peek('}')) break;
      json.Expect(',', name);
    }
  }
  json.Expect('}', "");
  if (!json.AtEnd()) where.Fail("", "unexpected text after the object");
}

void ParseJson(const std::string& line, const Where& where, Row* row) {
  JsonLine json(line);
  try {
    ParseJsonFields(json, where, row);
  } catch (const JsonLineError& e) {
    where.Fail(e.field(), std::string("not a JSON object: ") + e.what());
  }
  for (const std::string& name : kRequired) {
    const size_t f =
        static_cast<size_t>(std::find(kFields.begin(), kFields.end(), name) - kFields.begin());
    if (!row->given[f]) where.Fail(name, "required field is missing");
  }
}

}  // namespace

void ReadKvroute(std::istream& in, const TraceConfig& config, Trace* trace) {
  std::string line;
  uint64_t number = 0, index = 0;
  bool json = false, started = false;
  std::vector<size_t> columns;  // CSV: each field's column
  NameIds sessions, tenants, keys;
  std::unordered_map<uint64_t, uint32_t> key_of_prefix;
  std::vector<uint32_t> own_key;  // records keyed by themselves, numbered last
  double first_s = 0, previous_s = 0;
  bool any_tenant = false;
  Row row;
  while (std::getline(in, line)) {
    const Where where{config.file, ++number};
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    if (!started) {
      started = true;
      json = line[line.find_first_not_of(" \t")] == '{';
      if (!json) {
        columns = HeaderColumns(SplitCsvLine(line), kFields, kRequired, where);
        continue;
      }
    }
    std::vector<uint64_t> ids = std::move(row.ids);  // keeps its capacity
    row = Row{};
    row.ids = std::move(ids);
    row.ids.clear();
    if (json) {
      ParseJson(line, where, &row);
    } else {
      const std::vector<std::string> cells = SplitCsvLine(line);
      size_t expected = 0;
      for (size_t c : columns) expected += c != SIZE_MAX;
      if (cells.size() != expected) {
        where.Fail("", "expected " + std::to_string(expected) + " comma-separated fields, got " +
                           std::to_string(cells.size()));
      }
      for (size_t f = 0; f < kFields.size(); ++f) {
        if (columns[f] == SIZE_MAX || cells[columns[f]].empty()) continue;
        row.given[f] = true;
        row.text[f] = cells[columns[f]];
      }
      if (row.given[kHashIds]) ParseIdList(row.text[kHashIds], where, &row.ids);
      for (int f : {kTime, kPrompt, kOutput}) {
        if (!row.given[f]) where.Fail(kFields[f], "empty");
      }
    }
    const double s = SecondsField(row.text[kTime], "time_s", where);
    const uint64_t prompt = WholeField(row.text[kPrompt], 1, UINT32_MAX, "prompt_tokens", where);
    const uint64_t output = WholeField(row.text[kOutput], 1, UINT32_MAX, "output_tokens", where);
    if (row.ids.size() > (prompt + config.block_tokens - 1) / config.block_tokens) {
      where.Fail("hash_ids", "more blocks of " + std::to_string(config.block_tokens) +
                                 " tokens (workload.trace.block_tokens) than prompt_tokens covers");
    }
    if (index++ < config.skip) continue;
    if (config.limit > 0 && trace->records.size() >= config.limit) break;
    if (trace->records.empty()) first_s = previous_s = s;
    if (s < previous_s) where.Fail("time_s", "earlier than the previous request's");
    previous_s = s;
    TraceRecord r;
    r.time_ns = std::llround((s - first_s) * 1e9);
    r.input_tokens = static_cast<uint32_t>(prompt);
    r.output_tokens = static_cast<uint32_t>(output);
    if (row.given[kSession]) r.session = sessions.Id(row.text[kSession]);
    // Requests without a tenant share one of their own.
    r.tenant = tenants.Id(row.given[kTenant] ? Tagged('t', row.text[kTenant]) : "");
    any_tenant |= row.given[kTenant];
    // Keys: named ones first, then prefixes, then the requests' own (see top).
    if (row.given[kKey]) {
      r.key = keys.Id(Tagged('k', row.text[kKey]));
    } else if (row.given[kSession]) {
      r.key = keys.Id(Tagged('s', row.text[kSession]));
    } else if (!row.ids.empty()) {
      uint64_t prefix = 0;
      for (size_t j = 0; j < std::min<size_t>(config.key_blocks, row.ids.size()); ++j) {
        prefix = sim::Combine(prefix, row.ids[j] + 1);
      }
      r.key = keys.Id(Tagged('p', std::to_string(prefix)));
    } else {
      r.key = UINT32_MAX;
      own_key.push_back(static_cast<uint32_t>(trace->records.size()));
    }
    r.hash_begin = static_cast<uint32_t>(trace->hash_ids.size());
    r.hash_count = static_cast<uint32_t>(row.ids.size());
    if (trace->hash_ids.size() + row.ids.size() > UINT32_MAX) {
      where.Fail("hash_ids", "the trace holds more than 2^32 block ids in all");
    }
    trace->hash_ids.insert(trace->hash_ids.end(), row.ids.begin(), row.ids.end());
    trace->records.push_back(r);
  }
  if (!started) return;
  trace->keys = keys.size();
  for (uint32_t i : own_key) trace->records[i].key = trace->keys++;
  trace->tenants = any_tenant ? tenants.size() : 0;  // none named: a tenant is its key
  trace->block_tokens = config.block_tokens;
}

}  // namespace kvroute::models::trace_internal
