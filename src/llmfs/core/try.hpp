// Chapter 0
#pragma once
/// \file
/// \brief LLMFS_TRY and LLMFS_TRY_AT: unwrap a `std::expected` or return its error from
/// the enclosing function, so that a function body reads as its data flow (Chapter 0).
///
/// Both are GNU statement expressions (GCC and Clang; `__extension__` keeps
/// `-Wpedantic` quiet). They evaluate `expr` once. On success the macro's value is the
/// moved-out value (nothing, for `std::expected<void, E>`); on failure the enclosing
/// function returns: LLMFS_TRY with the same error, LLMFS_TRY_AT with the error wrapped
/// by at_stage() (core/error.hpp), which converts to the enclosing function's
/// `std::expected<T, E>`. Rust's `?` operator is the same idea. Do not nest one inside
/// another.

#include <expected>
#include <utility>

#include <llmfs/core/error.hpp>

// region: try-macros
/// `auto x = LLMFS_TRY(f());`: x is f()'s value, or f()'s error is returned as it is.
#define LLMFS_TRY(expr)                                             \
  __extension__({                                                   \
    auto llmfs_try_result_ = (expr);                                \
    if (!llmfs_try_result_) [[unlikely]]                            \
      return std::unexpected(std::move(llmfs_try_result_).error()); \
    *std::move(llmfs_try_result_);                                  \
  })

/// `auto x = LLMFS_TRY_AT(stage, f());`: x is f()'s value, or the function returns
/// f()'s error wrapped with `stage` (at_stage(stage, error)).
#define LLMFS_TRY_AT(stage, expr)                                              \
  __extension__({                                                              \
    auto llmfs_try_result_ = (expr);                                           \
    if (!llmfs_try_result_) [[unlikely]]                                       \
      return ::llmfs::at_stage((stage), std::move(llmfs_try_result_).error()); \
    *std::move(llmfs_try_result_);                                             \
  })
// endregion: try-macros
