// Chapter 0
#pragma once
// Helpers shared by the chapter programs in snippets/: turn a library error into text
// that names the step of the program that met it. Included by relative path
// (`#include "../common/expect.hpp"`), so no build target is needed.

#include <expected>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

namespace snippets {

/// A step of a chapter program failed. The fixtures are constants, so this is a bug in
/// the program, reported with the step that raised it.
struct StepFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The value of `result`, or throws StepFailed with `step: error`.
template <class T, class E>
T ok(std::expected<T, E> result, std::string_view step) {
  if (!result) throw StepFailed(fmt::format("{}: {}", step, result.error()));
  if constexpr (!std::is_void_v<T>) return std::move(*result);
}

/// `result` with its error replaced by the text `step: error`.
template <class T, class E>
std::expected<T, std::string> need(std::expected<T, E> result, std::string_view step) {
  if (!result) return std::unexpected(fmt::format("{}: {}", step, result.error()));
  if constexpr (std::is_void_v<T>) {
    return {};
  } else {
    return std::move(*result);
  }
}

/// Runs `body`, turning a StepFailed it throws into the error of the result.
template <class F>
auto guarded(F&& body) -> std::expected<decltype(body()), std::string> {
  try {
    return body();
  } catch (const StepFailed& failure) {
    return std::unexpected(std::string(failure.what()));
  }
}

}  // namespace snippets
