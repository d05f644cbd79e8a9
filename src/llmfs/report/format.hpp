// Chapter 8
#pragma once
/// \file
/// \brief Number, list and tensor formatting shared by every chapter's report and
/// trace (Chapter 8, where the first tensor is printed).

#include <cstddef>
#include <span>
#include <string>

namespace llmfs::tensor {
class Tensor;
}  // namespace llmfs::tensor

namespace llmfs::report {

/// A double with six decimals: `0.540302`, `-0.841471`, `-inf`, `inf`, `nan`.
/// Anything that rounds to zero prints as `0.000000` (never `-0.000000`).
[[nodiscard]] std::string format_number(double value);

/// A list of doubles as `[a,b,c]` (each via format_number, no spaces; `[]` when empty).
[[nodiscard]] std::string format_values(std::span<const double> values);

/// A tensor as `shape:[1,3,4] values:[1.000000,...]` (row-major, via format_values).
[[nodiscard]] std::string format_tensor(const tensor::Tensor& value);

/// Row `index` of a tensor's values read as consecutive rows of `width` values: for
/// values `[a,b,c,d,e,f]`, `row(t, 1, 2)` is `[c,d]` (one token's row of a `[1,3,2]`
/// tensor). Empty when the row lies outside the values.
[[nodiscard]] std::span<const double> row(const tensor::Tensor& value,
                                          std::size_t index, std::size_t width);

}  // namespace llmfs::report
