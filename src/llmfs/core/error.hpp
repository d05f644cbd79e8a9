// Chapter 0
#pragma once
/// \file
/// \brief The one shape of a typed error above the tensor layer: what went wrong (a
/// code), where (a stage), the numbers (a detail), and why (the lower error it wraps).
/// Every module names its own `StageError<...>`; reject() starts an error and
/// at_stage() wraps a lower one (Chapter 0).

#include <concepts>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include <fmt/format.h>

namespace llmfs {

// region: stage-error
/// A module's typed error. `Code` is the module's enum of what can go wrong; `wrapped`
/// is the code that means "a lower stage failed, see `cause`"; `Stage` names where (a
/// string such as `"head split"`, or an enum with a `describe()`). Formats as `stage:
/// description (detail): cause`; detail and cause only when present.
template <class Code, Code Wrapped, class Cause, class Stage = std::string>
struct StageError {
  static constexpr Code wrapped = Wrapped;  ///< the code of a wrapped lower error

  Code code{};                   ///< what went wrong
  Stage stage{};                 ///< where: the layer, step or stage
  std::string detail{};          ///< the numbers involved (shapes, sizes); may be empty
  std::optional<Cause> cause{};  ///< the lower error, when `code == wrapped`

  /// Equal when every field is equal (useful in tests).
  friend bool operator==(const StageError&, const StageError&) = default;
};
// endregion: stage-error

// region: reject
/// A new error of the current stage, before it knows its module's error type:
/// `return reject(HeadLayoutErrorCode::split_rank, "head split", detail);` converts to
/// the function's `std::expected<T, HeadLayoutError>`.
template <class Code, class Stage>
struct Rejection {
  Code code;           ///< what went wrong
  Stage stage;         ///< where
  std::string detail;  ///< the numbers involved; may be empty

  /// The module error with no cause.
  template <class C, C W, class Cause, class S>
  requires std::same_as<C, Code> && std::constructible_from<S, Stage>
  operator StageError<C, W, Cause, S>() && {
    return {code, S(std::move(stage)), std::move(detail), std::nullopt};
  }
  /// The failed result of a function returning `std::expected<T, E>`.
  template <class T, class E>
  requires std::constructible_from<E, Rejection&&>
  operator std::expected<T, E>() && { return std::unexpected(E(std::move(*this))); }
};

/// Starts a new error at `stage`: `return reject(code, stage, detail);`.
template <class Code, class Stage>
[[nodiscard]] Rejection<Code, Stage> reject(Code code, Stage stage,
                                            std::string detail = {}) {
  return {code, std::move(stage), std::move(detail)};
}
// endregion: reject

// region: at-stage
/// A lower error on its way up, tagged with the stage that called the failing function:
/// converts to any StageError whose cause can hold it (its code becomes `wrapped`).
template <class Stage, class Lower>
struct StageFailure {
  Stage stage;  ///< the stage of the caller
  Lower lower;  ///< the error the callee returned

  /// The module error wrapping `lower`.
  template <class C, C W, class Cause, class S>
  requires std::constructible_from<Cause, Lower&&> && std::constructible_from<S, Stage>
  operator StageError<C, W, Cause, S>() && {
    return {W, S(std::move(stage)), {}, Cause(std::move(lower))};
  }
  /// The failed result of a function returning `std::expected<T, E>`.
  template <class T, class E>
  requires std::constructible_from<E, StageFailure&&>
  operator std::expected<T, E>() && { return std::unexpected(E(std::move(*this))); }
};

/// Wraps the error `lower` of a called function with the caller's `stage`. The one
/// spelling of "wrap with stage"; LLMFS_TRY_AT (try.hpp) calls it.
template <class Stage, class Lower>
[[nodiscard]] StageFailure<Stage, Lower> at_stage(Stage stage, Lower lower) {
  return {std::move(stage), std::move(lower)};
}
// endregion: at-stage

namespace detail {

/// The printed name of a stage: a string as it is, an enum through its describe().
template <class Stage>
std::string_view stage_label(const Stage& stage) {
  if constexpr (std::is_convertible_v<const Stage&, std::string_view>) {
    return stage;
  } else {
    return describe(stage);
  }
}

/// Writes `: cause` for a cause or for whichever alternative a variant cause holds.
template <class Out, class Cause>
Out format_cause(Out out, const Cause& cause) {
  if constexpr (requires { std::visit([](const auto&) {}, cause); }) {
    return std::visit(
        [&](const auto& lower) { return fmt::format_to(out, ": {}", lower); }, cause);
  } else {
    return fmt::format_to(out, ": {}", cause);
  }
}

}  // namespace detail

}  // namespace llmfs

/// Formats every StageError as `stage: description (detail): cause`.
template <class Code, Code W, class Cause, class Stage>
struct fmt::formatter<llmfs::StageError<Code, W, Cause, Stage>>
    : fmt::formatter<fmt::string_view> {
  /// Writes the error into the context's output.
  auto format(const llmfs::StageError<Code, W, Cause, Stage>& error,
              fmt::format_context& ctx) const -> decltype(ctx.out()) {
    auto out =
        fmt::format_to(ctx.out(), "{}: {}", llmfs::detail::stage_label(error.stage),
                       describe(error.code));
    if (!error.detail.empty()) out = fmt::format_to(out, " ({})", error.detail);
    if (error.cause) out = llmfs::detail::format_cause(out, *error.cause);
    return out;
  }
};
