// Each built-in policy's table entry, defined in the policy's own file and
// listed once in registry.cc.
#ifndef KVROUTE_POLICIES_BUILTIN_POLICIES_H_
#define KVROUTE_POLICIES_BUILTIN_POLICIES_H_

#include "policies/registry.h"

namespace kvroute::policies {

PolicyInfo RoundRobinPolicyInfo();
PolicyInfo RandomPolicyInfo();
PolicyInfo FlatLbPolicyInfo();
PolicyInfo StickyPolicyInfo();
PolicyInfo CacheRoutePolicyInfo();
PolicyInfo LeastLoadedPolicyInfo();
PolicyInfo ChwblPolicyInfo();
PolicyInfo PrefixHashPolicyInfo();
PolicyInfo SessionAffinityPolicyInfo();
PolicyInfo SoftmaxPolicyInfo();
PolicyInfo FlexLbPolicyInfo();
PolicyInfo DynamoKvPolicyInfo();
PolicyInfo LlmdPolicyInfo();
PolicyInfo SglangCacheAwarePolicyInfo();
PolicyInfo DualMapPolicyInfo();
PolicyInfo PreblePolicyInfo();

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_BUILTIN_POLICIES_H_
