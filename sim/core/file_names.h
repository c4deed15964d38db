// Names kvroute turns into files (a scenario's name becomes `<name>.h5`, --out
// names a file): they must be visible and printable, so that a typo or a stray
// byte cannot write a hidden or unreadable file.
#ifndef KVROUTE_SIM_CORE_FILE_NAMES_H_
#define KVROUTE_SIM_CORE_FILE_NAMES_H_

#include <string>
#include <string_view>

namespace kvroute::sim {

// What is wrong with `name` as the last component of a file path: empty,
// starting with '.', containing '/', a control character or bytes that are not
// UTF-8. Empty when it is fine.
std::string FileNameProblem(std::string_view name);

// `text` with control characters and bytes that are not UTF-8 written as
// \xNN, so that a message can show a bad name without garbling the terminal.
std::string EscapeForMessage(std::string_view text);

// True when `text` is well-formed UTF-8.
bool IsUtf8(std::string_view text);

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_CORE_FILE_NAMES_H_
