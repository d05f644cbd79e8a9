// Chapter 0
#pragma once
/// \file
/// \brief Reading a chapter's reference file (tests/reference/data/): lines of records
/// `KIND|key=value|key=value|...`, `#` lines being comments, and comma-separated
/// numbers inside a value. One reader for every chapter program that replays such a
/// file (the tests have theirs in tests/support/records.hpp).
///
/// Included by relative path (`#include "../common/reference_records.hpp"`); no build
/// target. The files are the project's own, written by its scripts: a malformed number
/// throws (std::invalid_argument from std::stod), a bug in the script that wrote it.

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace snippets {

/// One record's `key=value` fields, as written.
using ReferenceRecord = std::map<std::string, std::string>;

/// Every record of the file at `path`, in file order, as (kind, fields); an unreadable
/// file gives no records, which the caller's counts then expose.
[[nodiscard]] inline std::vector<std::pair<std::string, ReferenceRecord>>
read_reference_records(const char* path) {
  std::vector<std::pair<std::string, ReferenceRecord>> out;
  std::ifstream file(path);
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream parts(line);
    std::string kind, field;
    std::getline(parts, kind, '|');
    ReferenceRecord r;
    while (std::getline(parts, field, '|'))
      r[field.substr(0, field.find('='))] = field.substr(field.find('=') + 1);
    out.emplace_back(kind, std::move(r));
  }
  return out;
}

/// The comma-separated numbers of one value, e.g. `"1.5,-2,3e-4"`.
[[nodiscard]] inline std::vector<double> reference_numbers(const std::string& text) {
  std::vector<double> out;
  std::istringstream parts(text);
  for (std::string item; std::getline(parts, item, ',');)
    out.push_back(std::stod(item));
  return out;
}

}  // namespace snippets
