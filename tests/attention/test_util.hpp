#pragma once
// Small helpers shared by the attention unit tests.

#include <cmath>
#include <cstdint>
#include <expected>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/nn/init.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "support/tensors.hpp"
#include "support/values.hpp"

namespace llmfs::testing {

/// Central differences (δ=1e-6, tolerance 1e-8) on Σ head(q,k,v).output ⊙ upstream,
/// with q, k: `qk_shape`, v and upstream: `v_shape`, drawn from SplitMix64(seed).
/// `head` is an attention op returning a struct with `.output`, or an error with
/// `.cause`.
template <class Head>
void expect_head_gradients_pass(Head head, std::uint64_t seed,
                                const tensor::Shape& qk_shape,
                                const tensor::Shape& v_shape, std::size_t coordinates) {
  SplitMix64 rng(seed);
  std::vector<tensor::Tensor> inputs{*nn::uniform_fan_in(qk_shape, 1, rng),
                                     *nn::uniform_fan_in(qk_shape, 1, rng),
                                     *nn::uniform_fan_in(v_shape, 1, rng)};
  const tensor::Tensor upstream = *nn::uniform_fan_in(v_shape, 1, rng);
  auto loss = [&](autograd::Tape& tape, std::span<const autograd::TensorValue> in)
      -> std::expected<autograd::TensorValue, autograd::AutogradError> {
    auto result = head(in[0], in[1], in[2]);
    if (!result) return std::unexpected(*result.error().cause);
    auto weighted = autograd::multiply(result->output, tape.constant(upstream));
    if (!weighted) return std::unexpected(weighted.error());
    return autograd::sum(*weighted);
  };
  auto report = autograd::check_tape_gradients(
      loss, inputs,
      {.step = 1e-6, .absolute_tolerance = 1e-8, .relative_tolerance = 0.0});
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->coordinates(), coordinates);
  EXPECT_TRUE(report->passed()) << report->max_abs_error();
}

}  // namespace llmfs::testing
