// Every key table of the scenario loader, in document order, printed for the
// docs (scenario_keys.h).
#include "sim/runner/markdown.h"
#include "sim/runner/scenario_keys.h"
#include "sim/runner/scenario_loader_internal.h"

namespace kvroute::sim {
namespace {

std::vector<const YamlKeyTable*> AllTables() {
  using namespace scenario;
  return {&TopLevelKeys(),
          &ClusterKeys(),
          &DeploymentKeys(),
          &WeightStepKeys(),
          &AutoscaleKeys(),
          &ReplicaStepKeys(),
          &ScalingPolicyKeys(),
          &EngineKeys(),
          &CostModelKeys(),
          &KvEventsKeys(),
          &KvTierKeys(),
          &DisaggregationKeys(),
          &WorkloadKeys(),
          &RateSkewKeys(),
          &PromptKeys(),
          &RagKeys(),
          &SessionKeys(),
          &AgentKeys(),
          &ArrivalKeys(),
          &LoadStepKeys(),
          &DriftKeys(),
          &ClientsKeys(),
          &TraceKeys(),
          &SharedPrefixKeys(),
          &InferencePerfDistributionKeys(),
          &LengthKeys(),
          &PolicyEntryKeys(),
          &SweepKeys(),
          &SloKeys(),
          &FailureKeys(),
          &FailureEventKeys()};
}

std::string Meaning(const YamlKey& key) {
  return key.description + (key.applies.empty() ? "" : " (only with " + key.applies + ")");
}

}  // namespace

void PrintScenarioKeys(std::ostream& out, bool markdown) {
  for (const YamlKeyTable* table : AllTables()) {
    const std::string title = table->path.empty() ? "top level" : table->path;
    if (markdown) {
      out << "### `" << title << "`\n\n| key | type | default | meaning |\n|---|---|---|---|\n";
      for (const YamlKey& k : table->keys) {
        out << "| `" << k.name << "` | " << MarkdownCell(k.TypeText()) << " | "
            << MarkdownCell(k.DefaultText()) << " | " << MarkdownCell(Meaning(k)) << " |\n";
      }
      out << "\n";
      continue;
    }
    out << title << ":\n";
    for (const YamlKey& k : table->keys) {
      out << "  " << k.name << " (" << k.TypeText() << "; default " << k.DefaultText()
          << "): " << Meaning(k) << "\n";
    }
    out << "\n";
  }
}

}  // namespace kvroute::sim
