#pragma once
// Autograd test helpers: tensor literals and a weighted-sum loss for gradient checks.

#include <cmath>

#include <llmfs/autograd/ops.hpp>

#include "support/random_tensor.hpp"

namespace llmfs::test {

inline tensor::Tensor T(tensor::Shape shape, std::vector<double> values) {
  return tensor::Tensor::from(std::move(shape), std::move(values)).value();
}

/// loss = Σ y ⊙ W for a fixed random W of y's shape, so the upstream gradient is not
/// uniform.
inline std::expected<autograd::TensorValue, autograd::AutogradError> weighted_sum(
    autograd::Tape& tape, const autograd::TensorValue& y, std::uint64_t seed) {
  auto w = tape.constant(random_tensor(y.shape(), seed));
  auto product = autograd::multiply(y, w);
  if (!product) return product;
  return autograd::sum(*product);
}

// y = x³ elementwise; backward adds 3x²·g.
inline std::expected<autograd::TensorValue, autograd::AutogradError> cube(
    const autograd::TensorValue& x, double derivative_factor = 3.0) {
  auto v = x.value();
  if (!v) return std::unexpected(v.error());
  tensor::Tensor y = *v;
  for (double& e : y.mutable_values())
    e = e * e * e;
  return autograd::record_op("cube", std::move(y), {x},
                             [derivative_factor](autograd::BackwardContext& ctx)
                                 -> std::expected<void, autograd::AutogradError> {
                               tensor::Tensor g = ctx.upstream();
                               const auto xv = ctx.parent_value(0).values();
                               auto gv = g.mutable_values();
                               for (std::size_t i = 0; i < gv.size(); ++i)
                                 gv[i] *= derivative_factor * xv[i] * xv[i];
                               return ctx.accumulate(0, g);
                             });
}

// y = exp(x) elementwise; backward adds derivative_factor·exp(x)·g (1 is correct).
inline std::expected<autograd::TensorValue, autograd::AutogradError> exponential(
    const autograd::TensorValue& x, double derivative_factor = 1.0) {
  auto v = x.value();
  if (!v) return std::unexpected(v.error());
  tensor::Tensor y = *v;
  for (double& e : y.mutable_values())
    e = std::exp(e);
  return autograd::record_op("exp", std::move(y), {x},
                             [derivative_factor](autograd::BackwardContext& ctx)
                                 -> std::expected<void, autograd::AutogradError> {
                               tensor::Tensor g = ctx.upstream();
                               const auto yv = ctx.output().values();
                               auto gv = g.mutable_values();
                               for (std::size_t i = 0; i < gv.size(); ++i)
                                 gv[i] *= derivative_factor * yv[i];
                               return ctx.accumulate(0, g);
                             });
}

}  // namespace llmfs::test

namespace llmfs::autograd {
inline void PrintTo(const AutogradError& e, std::ostream* os) {
  *os << fmt::format("{}", e);
}
}  // namespace llmfs::autograd
