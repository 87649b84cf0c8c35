// The documentation held to the program: README.md and docs/*.md show what muster prints, and
// their links lead somewhere.
//
// A ```console block shows muster commands with their output, as a terminal would: each line
// "$ PROGRAM ARGS" (PROGRAM is muster, build/release/muster or ./build/release/muster) is
// followed by what the command prints, a line "..." standing for lines left out. A command
// ending "# exit status N" exits N; any other exits 0. Such a block is run here from the
// checkout. A command that cannot run in a test (a live cluster, kubectl, an extender to start,
// a benchmark of minutes) is shown in a ```sh block, without its output, and is not run.

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "program.h"

namespace {

namespace fs = std::filesystem;

using muster::testing::CommandResult;
using muster::testing::Doc;
using muster::testing::kRoot;
using muster::testing::MusterInCheckout;

// The pages whose commands are run: README.md, then docs/*.md by name.
std::vector<std::string> Pages() {
  std::vector<std::string> docs;
  for (const fs::directory_entry& entry : fs::directory_iterator(kRoot + "/docs")) {
    if (entry.path().extension() == ".md") {
      docs.push_back("docs/" + entry.path().filename().string());
    }
  }
  std::sort(docs.begin(), docs.end());
  docs.insert(docs.begin(), "README.md");
  return docs;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A line without its trailing blanks: a table's last column pads, an editor may not keep it.
std::string TrimRight(std::string line) {
  line.erase(line.find_last_not_of(" \t\r") + 1);
  return line;
}

// A fenced block of a page.
struct Block {
  size_t line = 0;   // the page's line (from 1) of its first line
  std::string info;  // what follows the opening ```: "console", "sh", ""
  std::vector<std::string> lines;
};

std::vector<Block> Blocks(const std::vector<std::string>& lines) {
  std::vector<Block> blocks;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].starts_with("```")) continue;
    Block block;
    block.line = i + 2;
    block.info = lines[i].substr(3);
    for (++i; i < lines.size() && !lines[i].starts_with("```"); ++i) {
      block.lines.push_back(lines[i]);
    }
    blocks.push_back(std::move(block));
  }
  return blocks;
}

// One command of a console block and what the block shows of its output.
struct ShownCommand {
  std::string line;  // as written, after "$ "
  std::string args;  // what follows the program's name
  int status = 0;
  std::vector<std::string> shown;
};

constexpr std::string_view kPrograms[] = {"muster ", "build/release/muster ",
                                          "./build/release/muster "};

// The commands of a console block; *error says what is not as the convention wants.
std::vector<ShownCommand> Commands(const Block& block, std::string* error) {
  static const std::regex exit_status(R"(\s+# exit status (\d+)$)");
  std::vector<ShownCommand> commands;
  for (const std::string& line : block.lines) {
    if (!line.starts_with("$ ")) {
      if (commands.empty()) {
        *error = "a console block begins with \"$ COMMAND\"";
        return {};
      }
      commands.back().shown.push_back(line);
      continue;
    }
    ShownCommand command;
    command.line = line.substr(2);
    std::string rest = command.line;
    std::smatch m;
    if (std::regex_search(rest, m, exit_status)) {
      command.status = std::stoi(m[1].str());
      rest = rest.substr(0, static_cast<size_t>(m.position(0)));
    }
    auto program = std::find_if(std::begin(kPrograms), std::end(kPrograms),
                                [&](std::string_view p) { return rest.starts_with(p); });
    if (program == std::end(kPrograms)) {
      *error = "not a muster command (show other commands in a sh block): " + command.line;
      return {};
    }
    command.args = rest.substr(program->size());
    commands.push_back(std::move(command));
  }
  return commands;
}

// What of `shown` is not in `output`, empty when all is: each run of lines between "..." lines
// must be a run of whole lines of the output (trailing blanks aside), the runs in order.
std::string NotPrinted(const std::vector<std::string>& shown, const std::string& output) {
  std::vector<std::string> printed = Lines(output);
  for (std::string& line : printed) line = TrimRight(line);
  std::vector<std::vector<std::string>> runs(1);
  for (const std::string& line : shown) {
    if (TrimRight(line) == "...") {
      runs.emplace_back();
    } else {
      runs.back().push_back(TrimRight(line));
    }
  }
  auto at = printed.begin();
  for (const std::vector<std::string>& run : runs) {
    if (run.empty()) continue;
    auto found = std::search(at, printed.end(), run.begin(), run.end());
    if (found == printed.end()) {
      std::string missing;
      for (const std::string& line : run) missing += line + "\n";
      return missing;
    }
    at = found + static_cast<std::ptrdiff_t>(run.size());
  }
  return "";
}

// Every console block of the README and docs/ shows what its commands print now, and exit as
// it says; a command shown with output anywhere else would not be checked, so it is refused.
TEST(DocsTest, EveryConsoleBlockShowsWhatItsCommandsPrint) {
  int commands = 0;
  for (const std::string& page : Pages()) {
    for (const Block& block : Blocks(Lines(Doc(page)))) {
      const std::string where = page + ":" + std::to_string(block.line);
      if (block.info != "console") {
        const bool prompt = std::any_of(block.lines.begin(), block.lines.end(),
                                        [](const std::string& l) { return l.starts_with("$ "); });
        EXPECT_FALSE(prompt) << where << ": a command with its output goes in a console block";
        continue;
      }
      std::string error;
      const std::vector<ShownCommand> shown = Commands(block, &error);
      EXPECT_EQ(error, "") << where;
      for (const ShownCommand& command : shown) {
        SCOPED_TRACE(where + ": $ " + command.line);
        EXPECT_FALSE(command.shown.empty())
            << "a console block shows the output; a command alone goes in a sh block";
        const CommandResult run = MusterInCheckout(command.args);
        EXPECT_EQ(run.status, command.status) << run.output;
        EXPECT_EQ(NotPrinted(command.shown, run.output), "")
            << "shown above but not printed, in order, as whole lines; printed:\n"
            << run.output;
        ++commands;
      }
    }
  }
  EXPECT_GE(commands, 10);
}

// The anchor GitHub gives a heading: lowercase, punctuation other than '-' and '_' removed,
// each space a '-'. Bytes beyond ASCII are kept, as GitHub keeps letters beyond ASCII.
std::string Slug(std::string_view heading) {
  std::string slug;
  for (const char c : heading) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '_' || byte >= 0x80) {
      slug += static_cast<char>(std::tolower(byte));
    } else if (c == ' ') {
      slug += '-';
    }
  }
  return slug;
}

// The anchors of a page's headings (outside code blocks); a heading whose anchor another before
// it has gets "-1", the next "-2", as GitHub numbers them.
std::set<std::string> Anchors(const std::string& text) {
  std::set<std::string> anchors;
  std::map<std::string, int> seen;
  bool code = false;
  for (const std::string& line : Lines(text)) {
    if (line.starts_with("```")) code = !code;
    if (code || !line.starts_with("#")) continue;
    const size_t begin = line.find_first_not_of('#');
    if (begin == std::string::npos || line[begin] != ' ') continue;
    const std::string slug = Slug(TrimRight(line.substr(begin + 1)));
    const int before = seen[slug]++;
    anchors.insert(before == 0 ? slug : slug + "-" + std::to_string(before));
  }
  return anchors;
}

TEST(DocsTest, AnchorsAreGitHubs) {
  EXPECT_EQ(Slug("What if, on my cluster: `simulate --kubeconfig`"),
            "what-if-on-my-cluster-simulate---kubeconfig");
  EXPECT_EQ(Slug("Gang scheduling: Kubernetes' own gang API"),
            "gang-scheduling-kubernetes-own-gang-api");
  EXPECT_EQ(Anchors("# A\n```sh\n# not a heading\n```\n## A\n### A.\n#no\n"),
            (std::set<std::string>{"a", "a-1", "a-2"}));
}

// Every relative link of the README, docs/ and BENCHMARKS.md ([text](path), [text](path#anchor),
// [text](#anchor), images too) leads to a file of the checkout and, with an anchor, to a heading
// of that page. Links to the web are not followed.
TEST(DocsTest, EveryLinkLeadsToAFileAndAHeading) {
  static const std::regex link(R"(\]\(([^)\s]+)\))");
  std::vector<std::string> pages = Pages();
  pages.push_back("BENCHMARKS.md");
  std::map<std::string, std::set<std::string>> anchors;  // by page
  int links = 0;
  for (const std::string& page : pages) {
    const std::vector<std::string> lines = Lines(Doc(page));
    bool code = false;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].starts_with("```")) code = !code;
      if (code) continue;
      for (auto it = std::sregex_iterator(lines[i].begin(), lines[i].end(), link);
           it != std::sregex_iterator(); ++it) {
        const std::string target = (*it)[1].str();
        if (target.starts_with("http://") || target.starts_with("https://") ||
            target.starts_with("mailto:")) {
          continue;
        }
        ++links;
        const std::string where = page + ":" + std::to_string(i + 1) + ": " + target;
        const size_t hash = target.find('#');
        const std::string path = target.substr(0, hash);
        const std::string file =
            path.empty() ? page : (fs::path(page).parent_path() / path).lexically_normal().string();
        if (file.starts_with("..") || !fs::exists(kRoot + "/" + file)) {
          ADD_FAILURE() << where << ": no file " << file << " in the checkout";
          continue;
        }
        if (hash == std::string::npos) continue;
        if (!anchors.contains(file)) anchors[file] = Anchors(Doc(file));
        EXPECT_TRUE(anchors[file].contains(target.substr(hash + 1)))
            << where << ": no heading of " << file << " has that anchor";
      }
    }
  }
  EXPECT_GE(links, 40);
}

}  // namespace
