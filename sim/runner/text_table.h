// A table of text cells printed either as aligned columns (the terminal) or
// as Markdown (the generated docs); the first row is the header.
#ifndef KVROUTE_SIM_RUNNER_TEXT_TABLE_H_
#define KVROUTE_SIM_RUNNER_TEXT_TABLE_H_

#include <ostream>
#include <string>
#include <vector>

namespace kvroute::sim {

// REQUIRES: every row has as many cells as the header. Ends with a blank line.
void PrintTable(std::ostream& out, bool markdown,
                const std::vector<std::vector<std::string>>& rows);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_TEXT_TABLE_H_
