// The built-in policies. Each lives in one file that defines, in namespace
// kvroute::policies, a function `PolicyInfo <Name>PolicyInfo()` returning its
// table entry (name, description, parameters, factory); the list in
// policies/CMakeLists.txt (KVROUTE_POLICIES) names the file and the function,
// and CMake generates BuiltinPolicyInfos() from it. Adding a policy is its
// file plus that one line.
#ifndef KVROUTE_POLICIES_BUILTIN_POLICIES_H_
#define KVROUTE_POLICIES_BUILTIN_POLICIES_H_

#include <vector>

#include "policies/registry.h"

namespace kvroute::policies {

// Every built-in policy's entry, in KVROUTE_POLICIES order.
std::vector<PolicyInfo> BuiltinPolicyInfos();

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_BUILTIN_POLICIES_H_
