// README's options table (flag | environment variable | default | meaning) against the option table: a flag, a
// variable or a default changed on one side only fails here.
#include "profiler/options.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

namespace umbra {
namespace {

struct ReadmeRow {
  std::string flags, variable, default_value;
};

// A cell as the reader sees it: no code quotes, no escaped pipes, no surrounding spaces.
std::string plain(std::string cell) {
  std::string out;
  for (size_t i = 0; i < cell.size(); ++i) {
    if (cell[i] == '`') continue;
    if (cell[i] == '\\' && i + 1 < cell.size() && cell[i + 1] == '|') continue;
    out += cell[i];
  }
  out.erase(0, out.find_first_not_of(' '));
  out.erase(out.find_last_not_of(' ') + 1);
  return out;
}

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  for (size_t i = 1; i < line.size(); ++i) {  // past the leading '|'
    if (line[i] == '|' && line[i - 1] != '\\') {
      out.push_back(plain(cell));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return out;
}

// The rows of the table in README's "## Options" section, header and rule left out.
std::vector<ReadmeRow> readme_rows() {
  std::ifstream in(UMBRA_SOURCE_DIR "/README.md");
  std::vector<ReadmeRow> rows;
  bool in_section = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## Options";
    if (!in_section || line.rfind("|", 0) != 0) continue;
    auto row = cells(line);
    if (row.size() != 4 || row[0] == "flag" || row[0].rfind("---", 0) == 0) continue;
    rows.push_back({row[0], row[1], row[2]});
  }
  return rows;
}

TEST(Options, EveryFlagIsInTheReadmeWithItsVariableAndDefault) {
  auto rows = readme_rows();
  ASSERT_FALSE(rows.empty()) << "no options table in " UMBRA_SOURCE_DIR "/README.md";
  for (const Option& option : options()) {
    if (option.flags.empty()) continue;
    auto same = [&](const ReadmeRow& r) { return r.flags == shown_flags(option); };
    auto row = std::find_if(rows.begin(), rows.end(), same);
    ASSERT_TRUE(row != rows.end()) << "README's options table has no row for " << shown_flags(option);
    EXPECT_EQ(row->variable, shown_variable(option)) << row->flags;
    EXPECT_EQ(row->default_value, shown_default(option)) << row->flags;
  }
}

TEST(Options, EveryReadmeRowIsAnOption) {
  for (const ReadmeRow& row : readme_rows()) {
    auto same = [&](const Option& option) { return !option.flags.empty() && shown_flags(option) == row.flags; };
    EXPECT_TRUE(std::any_of(options().begin(), options().end(), same))
        << "README names " << row.flags << ", which is not in the option table (profiler/options.cpp)";
  }
}

}  // namespace
}  // namespace umbra
