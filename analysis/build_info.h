// What kvroute was built from, for the provenance of its results (DESIGN.md,
// "Output"): the project version (CMakeLists.txt) and the git revision of the
// source tree, taken at build time by cmake/write_build_info.cmake ("unknown"
// outside a git checkout; "-dirty" when tracked files were modified).
#ifndef KVROUTE_ANALYSIS_BUILD_INFO_H_
#define KVROUTE_ANALYSIS_BUILD_INFO_H_

namespace kvroute::analysis {

const char* KvrouteVersion();  // "0.1.0"
const char* GitRevision();     // "6f3f10e1a2b3", "6f3f10e1a2b3-dirty" or "unknown"

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_BUILD_INFO_H_
