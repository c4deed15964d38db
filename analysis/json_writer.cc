#include "analysis/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>

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
  if (std::isnan(value)) {
    Separate();
    out_ += "null";
    return;
  }
  if (std::isinf(value)) {
    String(value > 0 ? "inf" : "-inf");
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
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
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

namespace {

void WriteSummary(JsonWriter& json, std::string_view name, const LatencySummary& s) {
  json.Key(name);
  json.BeginObject();
  json.Key("p50_s");
  json.Number(s.p50);
  json.Key("p90_s");
  json.Number(s.p90);
  json.Key("p99_s");
  json.Number(s.p99);
  json.Key("max_s");
  json.Number(s.max);
  json.Key("mean_s");
  json.Number(s.mean);
  json.EndObject();
}

}  // namespace

std::string PointToJson(const PointResult& p, const std::vector<Slo>& slos) {
  JsonWriter json;
  json.BeginObject();
  json.Key("policy");
  json.String(p.policy);
  json.Key("qps");
  json.Number(p.qps);
  json.Key("seed");
  json.Integer(p.seed);
  for (auto [name, value] : {std::pair{"offered", p.offered},
                             {"completed", p.completed},
                             {"unfinished", p.unfinished},
                             {"rejected", p.rejected},
                             {"failed", p.failed},
                             {"retried", p.retried},
                             {"measured", p.measured}}) {
    json.Key(name);
    json.Integer(value);
  }
  WriteSummary(json, "ttft", p.ttft);
  WriteSummary(json, "tpot", p.tpot);
  WriteSummary(json, "e2e", p.e2e);
  json.Key("slo");
  json.BeginArray();
  for (size_t i = 0; i < slos.size() && i < p.slo_values.size(); ++i) {
    json.BeginObject();
    json.Key("label");
    json.String(slos[i].Label());
    json.Key("value_s");
    json.Number(p.slo_values[i]);
    json.Key("met");
    json.Bool(slos[i].Met(p.slo_values[i]));
    json.EndObject();
  }
  json.EndArray();
  json.Key("token_hit_rate");
  json.Number(p.token_hit_rate);
  json.Key("request_hit_rate");
  json.Number(p.request_hit_rate);
  json.Key("prefill_tokens_computed");
  json.Integer(p.prefill_tokens_computed);
  json.Key("cache_evictions");
  json.Integer(p.cache_evictions);
  json.Key("preemptions");
  json.Integer(p.preemptions);
  json.Key("replica_failures");
  json.Integer(p.replica_failures);
  json.Key("mean_in_system");
  json.Number(p.mean_in_system);
  json.Key("mean_held_kv_blocks");
  json.Number(p.mean_held_kv_blocks);
  json.Key("replica_requests");
  json.BeginArray();
  for (uint64_t n : p.replica_requests) json.Integer(n);
  json.EndArray();
  json.Key("imbalance");
  json.Number(p.imbalance);
  json.Key("policy_stats");
  json.BeginObject();
  for (const auto& [name, value] : p.policy_stats) {
    json.Key(name);
    json.Number(value);
  }
  json.EndObject();
  if (!p.deployment_series.empty()) {
    // share = the deployment's requests / all requests of the bucket.
    json.Key("deployment_series");
    json.BeginArray();
    for (size_t i = 0; i < p.deployment_series.size(); ++i) {
      const DeploymentSample& s = p.deployment_series[i];
      json.BeginObject();
      json.Key("start_s");
      json.Number(s.start_s);
      json.Key("deployment");
      json.String(p.deployment_names[s.deployment]);
      json.Key("requests");
      json.Integer(s.requests);
      json.Key("share");
      json.Number(ShareOrNaN(s.requests, BucketRequests(p, i)));
      json.Key("share_of_hit_elsewhere");
      json.Number(ShareOrNaN(s.hit_elsewhere_taken, s.hit_elsewhere));
      json.Key("cold_hit_elsewhere");
      json.Integer(s.cold_hit_elsewhere);
      json.Key("cold_hit_elsewhere_taken");
      json.Integer(s.cold_hit_elsewhere_taken);
      json.Key("token_hit_rate");
      json.Number(ShareOrNaN(s.hit_tokens, s.prompt_tokens));
      json.EndObject();
    }
    json.EndArray();
  }
  json.Key("series");
  json.BeginArray();
  for (const SeriesSample& s : p.series) {
    json.BeginObject();
    json.Key("start_s");
    json.Number(s.start_s);
    json.Key("arrived");
    json.Integer(s.arrived);
    json.Key("completed");
    json.Integer(s.completed);
    json.Key("token_hit_rate");
    json.Number(ShareOrNaN(s.hit_tokens, s.prompt_tokens));
    json.Key("mean_waiting");
    json.Number(s.mean_waiting);
    json.Key("max_waiting");
    json.Integer(s.max_waiting);
    json.Key("kv_utilization");
    json.Number(s.kv_utilization);
    json.Key("failures");
    json.Integer(s.failures);
    json.Key("recoveries");
    json.Integer(s.recoveries);
    json.EndObject();
  }
  json.EndArray();
  json.Key("simulated_s");
  json.Number(p.simulated_s);
  json.Key("events");
  json.Integer(p.events);
  json.EndObject();
  return json.str();
}

}  // namespace kvroute::analysis
