// Chapter 0
#pragma once
/// \file
/// \brief The skeleton every chapter program shares: its error type, its `main`, and
/// the `key=value` report lines. A chapter program gathers its evidence once from the
/// library, then prints the report (stdout, the golden `expected.txt`) or, with
/// `--trace`, the trace records its diagram is drawn from (`trace.txt`).
///
/// Included by relative path (`#include "../common/chapter.hpp"`); no build target.

#include <concepts>
#include <cstdio>
#include <expected>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <llmfs/core/error.hpp>
#include <llmfs/core/try.hpp>

namespace snippets {

// region: chapter-skeleton
/// A chapter program's only error code: a library call it made failed. The fixtures
/// are constants, so this is a bug in the program, reported with the step that met it.
enum class StepCode { failed };

/// The fixed description of StepCode.
[[nodiscard]] inline std::string_view describe(StepCode) noexcept {
  return "step failed";
}

/// Any library error, kept as its formatted text (its stage and cause chain).
struct ErrorText {
  std::string text;  ///< the formatted lower error

  /// Formats `error` with fmt.
  template <class E>
  requires fmt::is_formattable<E>::value ErrorText(const E& error)
      : text(fmt::format("{}", error)) {}  // NOLINT: implicit
  /// Equal when the texts are equal.
  friend bool operator==(const ErrorText&, const ErrorText&) = default;
};

/// The error of a chapter program's step: `LLMFS_TRY_AT("fixture forward", f(...))`
/// in a function returning Step<T> wraps any library error with the step's name.
using StepError = llmfs::StageError<StepCode, StepCode::failed, ErrorText>;

/// The result of a chapter program's step.
template <class T>
using Step = std::expected<T, StepError>;

/// The whole program: `gather()` once, then `report(evidence)` on stdout, or
/// `trace(evidence)` with `--trace`. A failed step prints `name: error` on stderr and
/// exits 1, so `make traces` keeps the old goldens.
template <class Gather, class Report, class Trace>
int run_chapter(std::string_view name, int argc, char** argv, Gather gather,
                Report report, Trace trace) {
  const bool want_trace = argc > 1 && std::string_view(argv[1]) == "--trace";
  const auto evidence = gather();
  if (!evidence) {
    fmt::print(stderr, "{}: {}\n", name, evidence.error());
    return 1;
  }
  fmt::print("{}", want_trace ? trace(*evidence) : report(*evidence));
  return 0;
}
// endregion: chapter-skeleton

}  // namespace snippets

/// Formats an ErrorText as its text.
template <>
struct fmt::formatter<snippets::ErrorText> : fmt::formatter<fmt::string_view> {
  /// Writes the text.
  auto format(const snippets::ErrorText& error, fmt::format_context& ctx) const {
    return fmt::formatter<fmt::string_view>::format(error.text, ctx);
  }
};

namespace snippets {

/// The report's text: each line followed by a newline.
[[nodiscard]] inline std::string join_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines)
    text += line + "\n";
  return text;
}

/// The formatted error of a call the chapter expects to be refused, or `accepted`.
template <class Result>
[[nodiscard]] std::string error_text(const Result& result) {
  return result ? std::string("accepted") : fmt::format("{}", result.error());
}

}  // namespace snippets
