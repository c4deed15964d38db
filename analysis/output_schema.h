// docs/OUTPUT.md's reference section, generated from the field tables
// (point_fields.h, sweep_fields.h) so that the docs cannot drift from what
// kvroute writes; `kvroute report --schema` prints it and a test keeps the
// file equal to it.
#ifndef KVROUTE_ANALYSIS_OUTPUT_SCHEMA_H_
#define KVROUTE_ANALYSIS_OUTPUT_SCHEMA_H_

#include <ostream>

namespace kvroute::analysis {

// Markdown: a table of columns (name, unit, type, values, description) per
// dataset of a results file, and the keys of `point --json`.
void PrintOutputSchemaMarkdown(std::ostream& out);

}  // namespace kvroute::analysis

#endif  // KVROUTE_ANALYSIS_OUTPUT_SCHEMA_H_
