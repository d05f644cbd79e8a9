#pragma once
/// @file
/// Read the PyTorch reference data in tests/reference/data/ (written by
/// tests/reference/make_reference.py) so C++ tests can compare with it without torch.
///
/// Format: one tensor per line, `NAME|shape=[2,5,32]|values=v0,v1,...` (row-major, 17
/// significant digits, `-inf` allowed); lines starting with `#` are comments of the
/// form
/// `# key: value` (script, torch, blas, seed, case, dtype, inputs).

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <expected>
#include <fstream>
#include <functional>
#include <map>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace llmfs::testing {

/// A missing file, a malformed line or a missing tensor name; the message says which.
class ReferenceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One stored tensor: its shape (empty for a scalar) and its row-major values.
struct ReferenceTensor {
  std::vector<std::size_t> shape;
  std::vector<double> values;
};

/// Every tensor of one case file, by name, plus its `# key: value` comments.
class ReferenceData {
 public:
  ReferenceData(std::string path,
                std::map<std::string, ReferenceTensor, std::less<>> tensors,
                std::map<std::string, std::string, std::less<>> comments)
      : path_(std::move(path)),
        tensors_(std::move(tensors)),
        comments_(std::move(comments)) {}

  /// The tensor called `name`; throws ReferenceError naming the file and the known
  /// names.
  [[nodiscard]] const ReferenceTensor& at(std::string_view name) const {
    if (auto found = tensors_.find(name); found != tensors_.end()) return found->second;
    std::string known;
    for (const auto& [key, tensor] : tensors_)
      known += (known.empty() ? "" : ", ") + key;
    throw ReferenceError("reference tensor '" + std::string(name) + "' is not in " +
                         path_ + " (it has: " + known + ")");
  }

  /// The single value of a scalar (or one-element) tensor, e.g. `heads` or `rope_base`.
  [[nodiscard]] double scalar(std::string_view name) const {
    const auto& tensor = at(name);
    if (tensor.values.size() != 1)
      throw ReferenceError("reference tensor '" + std::string(name) + "' in " + path_ +
                           " has " + std::to_string(tensor.values.size()) +
                           " values, not one");
    return tensor.values.front();
  }

  [[nodiscard]] bool contains(std::string_view name) const {
    return tensors_.contains(name);
  }

  /// A `# key: value` comment, or "" when the file has none.
  [[nodiscard]] std::string comment(std::string_view key) const {
    auto found = comments_.find(key);
    return found == comments_.end() ? std::string{} : found->second;
  }

  [[nodiscard]] const std::map<std::string, ReferenceTensor, std::less<>>& tensors()
      const {
    return tensors_;
  }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::map<std::string, ReferenceTensor, std::less<>> tensors_;
  std::map<std::string, std::string, std::less<>> comments_;
};

namespace detail {

inline std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  while (true) {
    const auto at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

inline std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() &&
         (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
}

template <class Number>
bool parse_number(std::string_view text, Number& out) {
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc{} && ptr == end;
}

}  // namespace detail

/// Parse the text of one case file; `path` is used in error messages only.
inline ReferenceData parse_reference(std::string_view text, const std::string& path) {
  std::map<std::string, ReferenceTensor, std::less<>> tensors;
  std::map<std::string, std::string, std::less<>> comments;
  std::size_t line_number = 0;
  for (auto line : detail::split(text, '\n')) {
    ++line_number;
    line = detail::trim(line);
    if (line.empty()) continue;
    const auto where = path + ":" + std::to_string(line_number) + ": ";
    if (line.front() == '#') {
      line.remove_prefix(1);
      const auto colon = line.find(':');
      if (colon != std::string_view::npos)
        comments[std::string(detail::trim(line.substr(0, colon)))] =
            std::string(detail::trim(line.substr(colon + 1)));
      continue;
    }
    const auto fields = detail::split(line, '|');
    if (fields.size() != 3 || !fields[1].starts_with("shape=[") ||
        !fields[1].ends_with("]") || !fields[2].starts_with("values="))
      throw ReferenceError(where + "expected NAME|shape=[..]|values=.., got '" +
                           std::string(line.substr(0, 60)) + "'");
    ReferenceTensor tensor;
    auto dims = fields[1].substr(7, fields[1].size() - 8);
    std::size_t count = 1;
    if (!dims.empty()) {
      for (auto dim : detail::split(dims, ',')) {
        std::size_t extent = 0;
        if (!detail::parse_number(dim, extent))
          throw ReferenceError(where + "bad extent '" + std::string(dim) + "'");
        tensor.shape.push_back(extent);
        count *= extent;
      }
    }
    auto values = fields[2].substr(7);
    if (!values.empty()) {
      for (auto item : detail::split(values, ',')) {
        double value = 0.0;
        if (!detail::parse_number(item, value))
          throw ReferenceError(where + "bad value '" + std::string(item) + "'");
        tensor.values.push_back(value);
      }
    }
    if (tensor.values.size() != count)
      throw ReferenceError(where + std::string(fields[0]) + " has " +
                           std::to_string(tensor.values.size()) +
                           " values but its shape holds " + std::to_string(count));
    if (!tensors.emplace(std::string(fields[0]), std::move(tensor)).second)
      throw ReferenceError(where + "duplicate tensor '" + std::string(fields[0]) + "'");
  }
  return ReferenceData(path, std::move(tensors), std::move(comments));
}

/// Read one case file; throws ReferenceError when it is missing or malformed.
inline ReferenceData load_reference(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    throw ReferenceError(
        "cannot open reference data file " + path +
        " (generate it with /usr/bin/python3 tests/reference/make_reference.py)");
  std::stringstream buffer;
  buffer << file.rdbuf();
  return parse_reference(buffer.str(), path);
}

/// load_reference() for a program that reports errors as values (the appendix's demo):
/// the data, or the loader's message.
inline std::expected<ReferenceData, std::string> read_reference(
    const std::string& path) {
  try {
    return load_reference(path);
  } catch (const ReferenceError& error) {
    return std::unexpected(std::string(error.what()));
  }
}

#ifdef LLMFS_SOURCE_DIR
/// tests/reference/data/<case_name>.txt under the repository root.
inline std::string reference_path(std::string_view case_name) {
  return std::string(LLMFS_SOURCE_DIR) + "/tests/reference/data/" +
         std::string(case_name) + ".txt";
}

/// load_reference(reference_path(case_name)).
inline ReferenceData load_reference_case(std::string_view case_name) {
  return load_reference(reference_path(case_name));
}
#endif

/// How far `actual` is from `expected`, measured against the reference's largest
/// magnitude.
struct Discrepancy {
  double max_abs = 0.0;        ///< largest |actual - expected| over finite pairs
  double reference_max = 0.0;  ///< largest finite |expected|
  double relative =
      0.0;  ///< max_abs / reference_max (max_abs when the reference is all zero)
  std::size_t worst_index = 0;  ///< where max_abs occurs
  bool same_size = true;        ///< false when the element counts differ
  bool same_nonfinite =
      true;  ///< non-finite entries (e.g. -inf) equal and in the same places
};

/// Compare element by element; the relative figure is the max-norm error over the
/// max-norm of the reference, so entries that happen to be near zero do not dominate.
inline Discrepancy discrepancy(std::span<const double> actual,
                               std::span<const double> expected) {
  Discrepancy result;
  if (actual.size() != expected.size()) {
    result.same_size = false;
    return result;
  }
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i];
    const double e = expected[i];
    if (!std::isfinite(a) || !std::isfinite(e)) {
      if (!(a == e)) result.same_nonfinite = false;
      continue;
    }
    result.reference_max = std::max(result.reference_max, std::abs(e));
    const double diff = std::abs(a - e);
    if (diff > result.max_abs) {
      result.max_abs = diff;
      result.worst_index = i;
    }
  }
  result.relative = result.reference_max > 0.0 ? result.max_abs / result.reference_max
                                               : result.max_abs;
  return result;
}

}  // namespace llmfs::testing
