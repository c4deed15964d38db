// Text for a cell of a Markdown table in the generated docs: a '|' would end
// the cell and '<' start an HTML tag.
#ifndef KVROUTE_SIM_RUNNER_MARKDOWN_H_
#define KVROUTE_SIM_RUNNER_MARKDOWN_H_

#include <string>

namespace kvroute::sim {

inline std::string MarkdownCell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_MARKDOWN_H_
