// Chapter 8
#pragma once
/// \file
/// \brief A builder for trace records `KIND|key=value|key=value` (Chapter 8: it
/// writes shapes).

#include <concepts>
#include <span>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include <llmfs/tensor/shape.hpp>

namespace llmfs::report {

/// One trace record, built field by field: `Record("SHAPE").field("stage", "input")
/// .field("value", shape).str()` gives `SHAPE|stage=input|value=[1,3,4]`.
///
/// Floats print with six decimals (format_number), shapes as `[a,b]`, value lists as
/// `[a,b]`, booleans as `true`/`false`. Kinds, keys and values must not contain `|`,
/// `=` (keys) or newlines; the builder does not escape them.
class Record {
 public:
  /// Starts a record of the given kind (e.g. `CONFIG`).
  explicit Record(std::string_view kind) : line_(kind) {}

  /// Adds `key=value` with a text value.
  Record& field(std::string_view key, std::string_view value);
  /// Adds `key=value` with a double printed by format_number.
  Record& field(std::string_view key, double value);
  /// Adds `key=value` with a shape printed as `[a,b]`.
  Record& field(std::string_view key, const tensor::Shape& value);
  /// Adds `key=value` with a list of doubles printed as `[a,b]`.
  Record& field(std::string_view key, std::span<const double> value);
  /// Adds `key=value` with an integer.
  template <std::integral I>
  requires(!std::same_as<I, bool>) Record& field(std::string_view key, I value) {
    return field(key, std::string_view(fmt::format("{}", value)));
  }
  /// Adds `key=true` or `key=false`.
  template <std::same_as<bool> B>
  Record& field(std::string_view key, B value) {
    return field(key, std::string_view(value ? "true" : "false"));
  }
  /// Adds each `key, value` pair in order, each value as field() prints it:
  /// `fields("query", 0, "row_sum", 1.0)` adds `|query=0|row_sum=1.000000`.
  template <class Value, class... Rest>
  Record& fields(std::string_view key, const Value& value, const Rest&... rest) {
    field(key, value);
    if constexpr (sizeof...(rest) > 0) fields(rest...);
    return *this;
  }

  /// The finished line, without a trailing newline.
  [[nodiscard]] const std::string& str() const noexcept { return line_; }

 private:
  std::string line_;
};

/// A whole record from its kind and `key, value` pairs (Record::fields):
/// `record("MIX", "query", 0, "row_sum", 1.0)` gives `MIX|query=0|row_sum=1.000000`,
/// without a trailing newline.
template <class... KeyValues>
[[nodiscard]] std::string record(std::string_view kind,
                                 const KeyValues&... key_values) {
  Record line(kind);
  if constexpr (sizeof...(key_values) > 0) line.fields(key_values...);
  return line.str();
}

}  // namespace llmfs::report
