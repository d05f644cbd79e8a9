#pragma once
// Reading the text reference data of tests/reference/data/ whose lines are records
// `KIND|key=value|key=value|...` (the trace format of DESIGN.md), `#` lines being
// comments. One reader for every chapter test that compares with such a file.

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace llmfs::testing {

/// One record: its kind (the first field) and its `key=value` fields.
struct KeyedRecord {
  std::string kind;                           ///< e.g. `CASE`
  std::map<std::string, std::string> fields;  ///< key → value, as written

  /// The field `key` read as a double (throws std::out_of_range when it is absent).
  [[nodiscard]] double number(const std::string& key) const {
    return std::stod(fields.at(key));
  }
};

/// Every record of the file `relative_path` under the source tree (LLMFS_SOURCE_DIR),
/// in file order, skipping empty and `#` lines. A missing file is a test failure (and
/// no records), so a test over the records cannot pass vacuously when it also counts
/// them.
[[nodiscard]] inline std::vector<KeyedRecord> read_keyed_records(
    const std::string& relative_path) {
  std::vector<KeyedRecord> records;
  std::ifstream file(std::string(LLMFS_SOURCE_DIR) + "/" + relative_path);
  EXPECT_TRUE(file) << relative_path << " is missing";
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream parts(line);
    KeyedRecord record;
    std::getline(parts, record.kind, '|');
    for (std::string field; std::getline(parts, field, '|');) {
      const std::size_t equals = field.find('=');
      if (equals != std::string::npos)
        record.fields[field.substr(0, equals)] = field.substr(equals + 1);
    }
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace llmfs::testing
