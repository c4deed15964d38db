// workload.clients: per-client arrivals from a clients file (ServeGen's
// per-client windows, models/client_arrivals.h), read when the scenario loads
// so that a bad row or a file too short for the run fails before the sweep.
// The clients replace the keys, tenants and arrival times of the synthetic
// workload; prompts, outputs and sessions stay the workload's own.
#include <array>
#include <cmath>
#include <memory>
#include <string>

#include "models/clients_file.h"
#include "sim/core/input_file.h"
#include "sim/runner/scenario_loader_internal.h"

namespace kvroute::sim::scenario {
namespace {

// The workload keys the clients take the place of.
constexpr std::array kReplacedKeys{"keys",          "tenants", "arrivals",
                                   "load_schedule", "drift",   "whales"};

// As workload.keys.
constexpr double kMaxClientKeys = 1e8;

}  // namespace

const ChoiceTable<models::ClientsConfig::Aggregate>& ClientAggregates() {
  using Aggregate = models::ClientsConfig::Aggregate;
  static const ChoiceTable<Aggregate> table(
      "aggregate", {{"constant", Aggregate::kConstant}, {"traced", Aggregate::kTraced}});
  return table;
}

const YamlKeyTable& ClientsKeys() {
  static const models::ClientsConfig d;
  static const YamlKeyTable table{
      "workload.clients",
      {StringKey("file", "",
                 "a clients file: CSV client,window_start_s,rate,cv,pattern,shape,scale "
                 "(scripts/servegen_clients.py cuts one from ServeGen)")
           .Required(),
       NumberKey("start_s", d.start_s, -1e12, 1e12,
                 "the file's second at simulated time 0; the file must cover start_s + "
                 "duration_s"),
       ChoiceKey("aggregate", ClientAggregates().names(), ClientAggregates().NameOf(d.aggregate),
                 "constant: the clients together send the point's load in every window; traced: "
                 "one scale, so the load is the mean and the trace's daily shape stays"),
       IntegerKey("keys_per_client", d.keys_per_client, 1, 1e6,
                  "client c's keys are c x keys_per_client + j, its traffic spread over them by "
                  "rate_skew")}};
  return table;
}

void ParseClients(YamlMap& w, const LoadContext& ctx, double duration_s,
                  models::WorkloadConfig* c) {
  for (const char* key : kReplacedKeys) {
    if (w.node()[key].IsDefined()) {
      w.Fail(key,
             "workload.clients gives the keys, tenants and arrival times; remove this key or "
             "clients");
    }
  }
  YamlMap m = w.Map("clients", &ClientsKeys());
  models::ClientsConfig& clients = c->clients;
  clients.file = ResolvePath(m, "file", m.String("file"), ctx.base_dir);
  clients.start_s = m.Number("start_s");
  clients.aggregate = m.Choice("aggregate", ClientAggregates());
  clients.keys_per_client = static_cast<uint32_t>(m.Integer("keys_per_client"));
  m.Finish();
  try {
    CheckInputFile(clients.file, kClientsInput);
    clients.table =
        std::make_shared<const models::ClientsTable>(models::ReadClientsFile(clients.file));
  } catch (const std::runtime_error& e) {
    m.Fail("file", e.what());
  }
  if (std::string gap = models::ClientsCoverageError(*clients.table, clients.start_s, duration_s);
      !gap.empty()) {
    m.Fail(m.node()["start_s"].IsDefined() ? "start_s" : "file", gap);
  }
  try {  // all rates zero over the run
    models::ClientRates(clients, 1.0, duration_s);
  } catch (const std::invalid_argument& e) {
    m.Fail("file", e.what());
  }
  const double keys = static_cast<double>(clients.table->clients.size()) * clients.keys_per_client;
  if (keys > kMaxClientKeys) {
    m.Fail("keys_per_client", "the file's clients times keys_per_client make more than " +
                                  std::to_string(static_cast<uint64_t>(kMaxClientKeys)) + " keys");
  }
  c->keys = static_cast<uint32_t>(keys);
}

}  // namespace kvroute::sim::scenario
