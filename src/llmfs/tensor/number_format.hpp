// Chapter 8
#pragma once
/// \file
/// \brief The text form of numbers used by the Tensor formatter and by every report and
/// trace (Chapter 8). The tensor module owns it so that it depends on nothing above it.

#include <span>
#include <string>

namespace llmfs::tensor {

/// A double with six decimals: `0.540302`, `-0.841471`, `-inf`, `inf`, `nan`.
/// Anything that rounds to zero prints as `0.000000` (never `-0.000000`).
[[nodiscard]] std::string format_number(double value);

/// A list of doubles as `[a,b,c]` (each via format_number, no spaces; `[]` when empty).
[[nodiscard]] std::string format_values(std::span<const double> values);

}  // namespace llmfs::tensor
