// prefix_hash: consistent hashing of the prompt's first n blocks (seed 002 §2,
// "前缀指纹" hashed onto a ring; §4 tenant-aware hashing puts the tenant id into
// the hash key so tenants sharing a prompt prefix do not share a replica).
// Block hashes are chained, so the hash of block n-1 fingerprints the whole
// n-block prefix; a prompt with fewer full blocks uses the ones it has, and one
// with none falls back to its routing key. Load-blind; an unhealthy owner's
// keys walk on clockwise.
#include <algorithm>

#include "policies/builtin_policies.h"
#include "policies/hash_ring.h"
#include "sim/core/hashing.h"

namespace kvroute::policies {
namespace {

enum class HashBy { kPrefix = 0, kTenant = 1 };

class PrefixHashPolicy : public Policy {
 public:
  PrefixHashPolicy(const Params& params, const PolicyContext& ctx)
      : ring_(ctx.num_replicas, static_cast<uint32_t>(params.Get("virtual_nodes"))),
        blocks_(static_cast<size_t>(params.Get("blocks"))),
        hash_by_(static_cast<HashBy>(params.Get("hash_by"))) {}

  uint32_t Route(const models::Request& request, const ClusterView& view) override {
    size_t n = std::min(blocks_, request.hashes.prompt().size());
    uint64_t prefix = n > 0 ? request.hashes.prompt()[n - 1] : sim::Mix64(request.key);
    uint64_t hash =
        hash_by_ == HashBy::kTenant ? sim::Combine(request.tenant, prefix) : sim::Mix64(prefix);
    // prefix_hash / key_hash (no full block to hash), owner_down when the
    // hash's owner was unhealthy; score: the leading blocks hashed (n).
    const uint32_t pick = ring_.SuccessorHealthy(hash, view);
    Explain(pick != ring_.Successor(hash) ? "owner_down"
            : n > 0                       ? "prefix_hash"
                                          : "key_hash",
            static_cast<double>(n));
    return pick;
  }

 private:
  HashRing ring_;
  size_t blocks_;
  HashBy hash_by_;
};

}  // namespace

PolicyInfo PrefixHashPolicyInfo() {
  return {
      "prefix_hash",
      "consistent hashing of the first n prompt blocks (optionally with the tenant), load-blind",
      {{"blocks", 8, "n, leading full blocks hashed", true, 1},
       {"hash_by",
        0,
        "hash key: the prefix, or tenant id + prefix",
        false,
        0,
        {"prefix", "tenant"}},
       {"virtual_nodes", 100, "points per replica on the hash ring", true, 1}},
      [](const Params& params, const PolicyContext& ctx) {
        return std::make_unique<PrefixHashPolicy>(params, ctx);
      },
      "",
      {{"prefix_hash", "the owner of the prompt's leading blocks"},
       {"key_hash", "no full block: the owner of the routing key"},
       {"owner_down", "the owner was unhealthy; the next healthy one on the ring"}},
      "the leading blocks hashed (0 for key_hash)"};
}

}  // namespace kvroute::policies
