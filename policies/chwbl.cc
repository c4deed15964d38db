// chwbl: consistent hashing with bounded loads (Mirrokni et al. 2018;
// policies.md §7, as lafikl/consistent GetLeast and the CacheRoute paper's
// CHWBL baseline, seed 003 §4). The routing key hashes onto the same ring as
// `sticky`; walking clockwise from its successor, the first healthy replica
// whose in-flight count plus this request stays within
// C = ceil((1 + epsilon) * (in-flight + 1) / healthy replicas) takes it. The
// policy counts in-flight requests itself (lafikl's Inc/Done). Since the
// healthy replicas hold fewer than healthy * C requests, one always qualifies.
#include <vector>

#include "policies/bounded_load.h"
#include "policies/builtin_policies.h"
#include "policies/hash_ring.h"
#include "sim/core/hashing.h"

namespace kvroute::policies {
namespace {

class ChwblPolicy : public Policy {
 public:
  ChwblPolicy(const Params& params, const PolicyContext& ctx)
      : ring_(ctx.num_replicas, static_cast<uint32_t>(params.Get("virtual_nodes"))),
        epsilon_(params.Get("epsilon")),
        in_flight_(ctx.num_replicas, 0) {}

  uint32_t Route(const models::Request& request, const ClusterView& view) override {
    uint64_t total = 0, healthy = 0;
    for (uint32_t r = 0; r < view.size(); ++r) {
      if (!view.healthy(r)) continue;
      total += in_flight_[r];
      ++healthy;
    }
    const uint64_t capacity = BoundedLoadCapacity(total + 1, healthy, epsilon_);
    const uint64_t hash = sim::Mix64(request.key);
    const uint32_t pick = ring_.FirstAccepted(
        hash, [&](uint32_t r) { return view.healthy(r) && in_flight_[r] + 1 <= capacity; });
    // hash_owner: the key's successor took it; bounded_load: the walk passed
    // the owner (full at C, or unhealthy). Score: C, the bound in requests.
    Explain(pick == ring_.Successor(hash) ? "hash_owner" : "bounded_load",
            static_cast<double>(capacity));
    return pick;
  }

  void OnDispatch(const models::Request&, uint32_t replica, sim::Time) override {
    ++in_flight_[replica];
  }
  void OnComplete(const models::Request&, uint32_t replica, sim::Time) override {
    if (in_flight_[replica] > 0) --in_flight_[replica];
  }

 private:
  HashRing ring_;
  double epsilon_;
  std::vector<uint64_t> in_flight_;
};

}  // namespace

PolicyInfo ChwblPolicyInfo() {
  return {
      "chwbl",
      "consistent hashing with bounded loads: walk the ring past replicas at ceil((1+eps)*avg)",
      {{"epsilon", 0.25, "load slack over the average, capacity ceil((1+eps)*avg)", false, 0},
       {"virtual_nodes", 100, "points per replica on the hash ring", true, 1}},
      [](const Params& params, const PolicyContext& ctx) {
        return std::make_unique<ChwblPolicy>(params, ctx);
      },
      "",
      {{"hash_owner", "the key's owner on the ring"},
       {"bounded_load", "the owner was full (or unhealthy); the first replica under the bound"}},
      "the bound C on in-flight requests a replica may hold"};
}

}  // namespace kvroute::policies
