// Chapter 15
#pragma once
// Chapter 15's frozen fixture, shared by the demo and tests/chapters/ch15_*_test.cpp:
// the 2×2 linear layer of the prediction, and one small case per differentiable op.

#include <array>
#include <cstdint>
#include <expected>
#include <span>
#include <string_view>
#include <vector>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace ch15 {

using llmfs::autograd::AutogradError;
using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

/// The prediction: loss = Σ (X·W + b)² with X, W of shape [2,2] and b of shape [2]
/// (broadcast over the rows). By hand: X·W = [[-1,2],[4,-1]], Y = [[0,2],[5,-1]],
/// loss = 30; ∂loss/∂Y = 2Y, ∂W = Xᵀ·2Y = [[30,-2],[-10,10]], ∂b = column sums of 2Y
/// = [10,2], ∂X = 2Y·Wᵀ = [[0,4],[10,-12]].
inline const std::array<double, 4> kX{1, 2, 3, -1};
inline const std::array<double, 4> kW{1, 0, -1, 1};
inline const std::array<double, 2> kB{1, 0};

/// Records the prediction on the tape of `in` (X, W, b) and returns every handle it
/// made, in creation order: X, W, b, X·W, Y = X·W + b, Y⊙Y, loss.
[[nodiscard]] std::expected<std::vector<TensorValue>, AutogradError> record_fixture(
    std::span<const TensorValue> in);
/// The loss of the prediction from its three inputs, X, W and b.
[[nodiscard]] std::expected<TensorValue, AutogradError> fixture_loss(
    Tape& tape, std::span<const TensorValue> in);
/// Exercise 2: Σ (X·W + b), no square.
[[nodiscard]] std::expected<TensorValue, AutogradError> linear_loss(
    Tape& tape, std::span<const TensorValue> in);

/// The fixture's inputs as tensors: X [2,2], W [2,2], b [2].
[[nodiscard]] std::vector<Tensor> fixture_inputs();

/// One op applied to its inputs, the loss being Σ op(inputs) ⊙ C for a fixed C.
using OpResult = std::expected<TensorValue, AutogradError>;
/// How an op case records its op from the input handles.
using OpFn = OpResult (*)(std::span<const TensorValue> in);

/// A differentiable op at small random inputs of the given shapes.
struct OpCase {
  std::string_view name;      ///< the op, as the report and the reference name it
  std::vector<Shape> shapes;  ///< one per input
  OpFn op;                    ///< how to record it
};

/// Every tensor op of Chapter 15, one case each; broadcasting where the op allows it.
[[nodiscard]] const std::vector<OpCase>& op_cases();

/// SplitMix64 values in [−1, 1): the same stream as tests/reference/text_common.py,
/// (next() >> 11)·2⁻⁵³·2 − 1.
[[nodiscard]] std::vector<double> uniform_values(std::uint64_t seed, std::size_t count);

}  // namespace ch15
