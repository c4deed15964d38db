// Every table the docs show that the binary can print is what it prints: the
// parts of docs/*.md between `<!-- BEGIN kvroute ARGS -->` and `<!-- END
// kvroute ARGS -->` equal `kvroute ARGS` (regenerate with scripts/update_docs.py).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "tests/e2e/cli_harness.h"

namespace kvroute::sim {
namespace {

std::string Read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> Words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// The generated parts, found by plain search: std::regex recurses once per
// character matched, and a long part overflows the stack of a sanitizer build.
TEST(DocsTest, GeneratedPartsEqualWhatTheBinaryPrints) {
  const std::string begin = "<!-- BEGIN kvroute ", close = " -->\n";
  int blocks = 0;
  for (const auto& entry : std::filesystem::directory_iterator("docs")) {
    if (entry.path().extension() != ".md") continue;
    const std::string text = Read(entry.path());
    for (size_t at = text.find(begin); at != std::string::npos; at = text.find(begin, at)) {
      // A marker is alone on its line (DEVELOPING.md quotes one inline).
      const size_t args_end = text.find(close, at);
      const size_t line_end = text.find('\n', at);
      if (args_end == std::string::npos || args_end + close.size() - 1 != line_end) {
        at += begin.size();
        continue;
      }
      const std::string args = text.substr(at + begin.size(), args_end - at - begin.size());
      const size_t from = args_end + close.size();
      const size_t to = text.find("<!-- END kvroute " + args + " -->", from);
      ASSERT_NE(to, std::string::npos) << entry.path() << ": no END marker for `" << args << "`";
      ++blocks;
      Outcome o = Cli(Words(args));
      ASSERT_EQ(o.status, 0) << args << ": " << o.err;
      EXPECT_EQ(text.substr(from, to - from), o.out)
          << entry.path() << ": the part `kvroute " << args
          << "` prints has changed; run scripts/update_docs.py";
      at = to;
    }
  }
  // CLI reference and limits, scenario keys, policies.
  EXPECT_GE(blocks, 4);
}

TEST(DocsTest, ReadmeTeachesInTwelveKilobytes) {
  const std::string readme = Read("README.md");
  EXPECT_LE(readme.size(), 12u * 1024);
  EXPECT_NE(readme.find("scripts/bootstrap.sh run\n"), std::string::npos);
  EXPECT_NE(readme.find("scripts/bootstrap.sh test\n"), std::string::npos);
  // The first scenario is on the first screen: its YAML starts within 40 lines.
  const size_t yaml = readme.find("```yaml\nname: quickstart");
  ASSERT_NE(yaml, std::string::npos);
  EXPECT_LT(std::count(readme.begin(), readme.begin() + static_cast<long>(yaml), '\n'), 40);
  // Every page it links to exists.
  const std::regex link(R"(\]\((docs/[A-Z_]+\.md)[#)])");
  for (auto it = std::sregex_iterator(readme.begin(), readme.end(), link);
       it != std::sregex_iterator(); ++it) {
    const std::string page = (*it)[1];
    EXPECT_TRUE(std::filesystem::exists(page)) << page;
  }
}

// The README's first scenario is scenarios/quickstart.yaml, comments aside.
TEST(DocsTest, ReadmeScenarioIsTheQuickstart) {
  const std::string readme = Read("README.md");
  const size_t begin = readme.find("```yaml\n") + 8;
  const std::string shown = readme.substr(begin, readme.find("```", begin) - begin);
  auto strip = [](const std::string& yaml) {
    std::string out;
    std::istringstream in(yaml);
    for (std::string line; std::getline(in, line);) {
      line = std::regex_replace(line, std::regex(R"(\s*#.*$)"), "");
      if (!line.empty()) out += line + "\n";
    }
    return out;
  };
  EXPECT_EQ(strip(shown), strip(Read("scenarios/quickstart.yaml")));
}

}  // namespace
}  // namespace kvroute::sim
