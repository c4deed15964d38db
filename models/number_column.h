// One column of numbers from a user's file, for empirical length
// distributions (LengthDistribution::Empirical): a named column of a CSV file
// with a header row (BurstGPT's "Response tokens", Azure's ContextTokens...),
// a named field of each line of a JSONL file, or a file of one number per line
// when no column is named. Blank lines and lines starting with '#' are skipped.
#ifndef KVROUTE_MODELS_NUMBER_COLUMN_H_
#define KVROUTE_MODELS_NUMBER_COLUMN_H_

#include <string>
#include <vector>

namespace kvroute::models {

// Throws std::runtime_error as FILE:LINE: field 'COLUMN': what is wrong (a
// missing column, a cell that is not a finite non-negative number, a file
// with no number), or naming the file when it cannot be read.
std::vector<double> ReadNumberColumn(const std::string& path, const std::string& column);

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_NUMBER_COLUMN_H_
