// Chapter 25
#pragma once
// Chapter 25's frozen fixtures, shared by the demo and tests/chapters/ch25_*_test.cpp.

#include <array>
#include <string_view>
#include <vector>

namespace ch25 {

// region: fixture
/// Two rows of width d = 4, shape [2, 4]: mean(x²) = (1 + 49 + 1 + 49)/4 = 25 for the
/// first, so its RMS is 5 (to 1 part in 10⁸); the second is the zero vector.
inline const std::vector<double> kInput = {1, 7, 1, 7, 0, 0, 0, 0};
/// The gain g [4].
inline const std::vector<double> kGain = {1, 1, 2, 0.5};
/// LLaMA's ε, added to the mean square inside the root. The loss is Σ y.
inline constexpr double kEpsilon = 1e-6;
// endregion: fixture

// region: variant-inputs
/// Rows for comparing the variants: zero-mean at two scales, and one with mean 4.
struct VariantInput {
  std::string_view name;      ///< its report name
  std::array<double, 4> row;  ///< the activations
};
inline constexpr std::array<VariantInput, 3> kVariantInputs = {{
    {"large", {-3, -1, 1, 3}},
    {"small", {-3e-3, -1e-3, 1e-3, 3e-3}},
    {"offset", {1, 7, 1, 7}},
}};
// endregion: variant-inputs

}  // namespace ch25
