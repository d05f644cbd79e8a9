// The Chapter-16 model ops: each forward against a naive loop written from its
// formula, each backward against central differences (Chapter 13's checker through the
// tape), over many seeded random shapes; the stability of the fused cross-entropy; the
// scatter-add of a repeated id; and every typed refusal.

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include <llmfs/autograd/model_ops.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/core/splitmix64.hpp>

#include "autograd/support.hpp"

namespace {

using namespace llmfs::autograd;
using llmfs::SplitMix64;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::tensor::TensorErrorCode;
using llmfs::test::random_tensor;
using llmfs::test::weighted_sum;

// As in tape_gradcheck_test.cpp: δ = 1e-6 on values of size ~1 bounds the central
// difference's error by ~1e-10; 1e-7 rejects a wrong factor.
constexpr GradientCheckOptions kCh16Options{
    .step = 1e-6, .absolute_tolerance = 1e-7, .relative_tolerance = 1e-7};
constexpr int kCh16Cases = 24;

// A random [B, T] grid of ids below `vocab`.
TokenGrid ch16_grid(SplitMix64& rng, std::size_t batch, std::size_t time,
                    std::size_t vocab) {
  TokenGrid grid{batch, time, {}};
  for (std::size_t p = 0; p < batch * time; ++p)
    grid.ids.push_back(static_cast<llmfs::text::TokenId>(rng.next_u64() % vocab));
  return grid;
}

std::size_t ch16_between(SplitMix64& rng, std::size_t low, std::size_t high) {
  return low + rng.next_u64() % (high - low + 1);
}

// The tensor error wrapped by a refusal.
TensorErrorCode ch16_cause(const std::expected<TensorValue, AutogradError>& r) {
  EXPECT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, AutogradErrorCode::tensor);
  EXPECT_TRUE(r.error().cause.has_value());
  return r.error().cause->code;
}

TEST(ModelOps, EmbeddingMatchesGatherAndScatterAddsOverRandomShapes) {
  SplitMix64 rng(1600);
  for (int c = 0; c < kCh16Cases; ++c) {
    const std::size_t b = ch16_between(rng, 1, 3), t = ch16_between(rng, 1, 4);
    const std::size_t v = ch16_between(rng, 1, 5), d = ch16_between(rng, 1, 4);
    const TokenGrid ids = ch16_grid(rng, b, t, v);
    const Tensor table = random_tensor(Shape{v, d}, 100 + c);
    Tape tape;
    const TensorValue w = tape.parameter(table);
    const TensorValue out = embedding(w, ids).value();
    ASSERT_EQ(out.shape(), (Shape{b, t, d}));
    const Tensor g = random_tensor(out.shape(), 200 + c);
    ASSERT_TRUE(backward(out, g).has_value());
    // Naive: out[p, k] = table[id_p, k]; gtable[r, k] = Σ_{p: id_p = r} g[p, k].
    const Tensor y = out.value().value();
    std::vector<double> expected_gradient(v * d, 0.0);
    for (std::size_t p = 0; p < b * t; ++p)
      for (std::size_t k = 0; k < d; ++k) {
        const auto row = static_cast<std::size_t>(ids.ids[p]);
        EXPECT_EQ(y.values()[p * d + k], table.values()[row * d + k]);
        expected_gradient[row * d + k] += g.values()[p * d + k];
      }
    const Tensor gw = w.gradient().value();
    for (std::size_t i = 0; i < v * d; ++i)
      EXPECT_DOUBLE_EQ(gw.values()[i], expected_gradient[i]) << "case " << c;
  }
}

TEST(ModelOps, EmbeddingRowUsedTwiceReceivesBothRows) {
  Tape tape;
  const TensorValue w = tape.parameter(llmfs::test::T(Shape{2, 1}, {5, 7}));
  const TensorValue out = embedding(w, TokenGrid{1, 3, {1, 0, 1}}).value();
  ASSERT_TRUE(backward(out, llmfs::test::T(Shape{1, 3, 1}, {1, 10, 100})).has_value());
  EXPECT_EQ(out.value().value().values()[2], 7.0);
  EXPECT_EQ(w.gradient().value(), llmfs::test::T(Shape{2, 1}, {10, 101}));
}

TEST(ModelOps, SiluMatchesFormulaAndPassesGradientCheck) {
  SplitMix64 rng(1601);
  for (int c = 0; c < kCh16Cases; ++c) {
    const Shape shape{ch16_between(rng, 1, 3), ch16_between(rng, 1, 5)};
    Tensor x = random_tensor(shape, 300 + c);
    for (double& e : x.mutable_values())
      e *= 8.0;  // [-8, 8): both tails of the sigmoid
    Tape tape;
    const Tensor y = silu(tape.constant(x)).value().value().value();
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double e = x.values()[i];
      EXPECT_NEAR(y.values()[i], e / (1.0 + std::exp(-e)), 1e-15 * (1 + std::abs(e)));
    }
    const std::vector<Tensor> point{x};
    const auto report = check_tape_gradients(
        [c](Tape& t, std::span<const TensorValue> in)
            -> std::expected<TensorValue, AutogradError> {
          auto s = silu(in[0]);
          if (!s) return s;
          return weighted_sum(t, *s, 400 + c);
        },
        point, kCh16Options);
    ASSERT_TRUE(report.has_value());
    EXPECT_TRUE(report->passed()) << "case " << c << " " << report->max_abs_error();
  }
}

TEST(ModelOps, SiluIsFiniteAtHugeInputs) {
  Tape tape;
  const TensorValue x = tape.parameter(llmfs::test::T(Shape{2}, {-1000, 1000}));
  const TensorValue y = silu(x).value();
  ASSERT_TRUE(backward(y, Tensor::full(Shape{2}, 1.0)).has_value());
  EXPECT_EQ(y.value().value(), llmfs::test::T(Shape{2}, {-0.0, 1000}));
  EXPECT_EQ(x.gradient().value(), llmfs::test::T(Shape{2}, {0, 1}));
}

TEST(ModelOps, LogSoftmaxMatchesNaiveRowsAndPassesGradientCheck) {
  SplitMix64 rng(1602);
  for (int c = 0; c < kCh16Cases; ++c) {
    const Shape shape{ch16_between(rng, 1, 3), ch16_between(rng, 1, 3),
                      ch16_between(rng, 1, 6)};
    const Tensor x = random_tensor(shape, 500 + c);
    Tape tape;
    const Tensor y = log_softmax_last_axis(tape.constant(x)).value().value().value();
    const std::size_t width = shape[2];
    for (std::size_t start = 0; start < x.size(); start += width) {
      double total = 0.0;  // values in [-1, 1): exp cannot overflow, no shift needed
      for (std::size_t j = 0; j < width; ++j)
        total += std::exp(x.values()[start + j]);
      for (std::size_t j = 0; j < width; ++j)
        EXPECT_NEAR(y.values()[start + j], x.values()[start + j] - std::log(total),
                    1e-14);
    }
    const std::vector<Tensor> point{x};
    const auto report = check_tape_gradients(
        [c](Tape& t, std::span<const TensorValue> in)
            -> std::expected<TensorValue, AutogradError> {
          auto s = log_softmax_last_axis(in[0]);
          if (!s) return s;
          return weighted_sum(t, *s, 600 + c);
        },
        point, kCh16Options);
    ASSERT_TRUE(report.has_value());
    EXPECT_TRUE(report->passed()) << "case " << c << " " << report->max_abs_error();
  }
}

TEST(ModelOps, CrossEntropyMatchesNaiveLossAndSoftmaxMinusOneHot) {
  SplitMix64 rng(1603);
  for (int c = 0; c < kCh16Cases; ++c) {
    const std::size_t b = ch16_between(rng, 1, 3), t = ch16_between(rng, 1, 4);
    const std::size_t v = ch16_between(rng, 1, 6);
    const TokenGrid targets = ch16_grid(rng, b, t, v);
    const Tensor z = random_tensor(Shape{b, t, v}, 700 + c);
    Tape tape;
    const TensorValue logits = tape.parameter(z);
    const TensorValue loss = cross_entropy(logits, targets).value();
    ASSERT_EQ(loss.shape(), Shape{});
    ASSERT_TRUE(backward(loss, Tensor::scalar(1.0)).has_value());
    // Naive: −log p_t with p = exp(z)/Σ exp(z), averaged; gradient (p − onehot)/N.
    const std::size_t n = b * t;
    double expected = 0.0;
    const Tensor g = logits.gradient().value();
    for (std::size_t p = 0; p < n; ++p) {
      double total = 0.0;
      for (std::size_t j = 0; j < v; ++j)
        total += std::exp(z.values()[p * v + j]);
      const auto target = static_cast<std::size_t>(targets.ids[p]);
      expected -= std::log(std::exp(z.values()[p * v + target]) / total);
      for (std::size_t j = 0; j < v; ++j) {
        const double want =
            (std::exp(z.values()[p * v + j]) / total - (j == target ? 1.0 : 0.0)) /
            static_cast<double>(n);
        EXPECT_NEAR(g.values()[p * v + j], want, 1e-15);
      }
    }
    EXPECT_NEAR(loss.value().value().values()[0], expected / static_cast<double>(n),
                1e-14);
    const std::vector<Tensor> point{z};
    const auto report = check_tape_gradients(
        [&targets](Tape&, std::span<const TensorValue> in) {
          return cross_entropy(in[0], targets);
        },
        point, kCh16Options);
    ASSERT_TRUE(report.has_value());
    EXPECT_TRUE(report->passed()) << "case " << c;
  }
}

TEST(ModelOps, CrossEntropyEqualsMeanOfPickedLogSoftmax) {
  // The fused op and the composition log_softmax → pick → mean agree (the composition
  // is built from the other ops: the pick is a weighted sum with a one-hot constant).
  const Tensor z = random_tensor(Shape{2, 2, 4}, 800);
  const TokenGrid targets{2, 2, {3, 0, 1, 1}};
  Tape tape;
  const TensorValue logits = tape.constant(z);
  const double fused =
      cross_entropy(logits, targets).value().value().value().values()[0];
  Tensor onehot = Tensor::zeros(Shape{2, 2, 4});
  for (std::size_t p = 0; p < 4; ++p)
    onehot.mutable_values()[p * 4 + static_cast<std::size_t>(targets.ids[p])] = -4.0;
  const TensorValue lp = log_softmax_last_axis(logits).value();
  const TensorValue picked = multiply(lp, tape.constant(onehot)).value();
  const double composed = mean(picked).value().value().value().values()[0];
  EXPECT_NEAR(fused, composed, 1e-15);
}

TEST(ModelOps, CrossEntropyIsExactAtLogitsOfTenThousand) {
  // Row 0: logsumexp = 1e4 (+ e^-2e4, below rounding), loss 2e4 for target 1.
  // Row 1: two logits of 1e4, loss ln 2 for target 2. Mean (2e4 + ln 2)/2.
  Tape tape;
  const TensorValue z =
      tape.parameter(llmfs::test::T(Shape{1, 2, 3}, {1e4, -1e4, 0, -1e4, 1e4, 1e4}));
  const TensorValue loss = cross_entropy(z, TokenGrid{1, 2, {1, 2}}).value();
  ASSERT_TRUE(backward(loss, Tensor::scalar(1.0)).has_value());
  EXPECT_DOUBLE_EQ(loss.value().value().values()[0], (2e4 + std::log(2.0)) / 2);
  EXPECT_EQ(z.gradient().value(),
            llmfs::test::T(Shape{1, 2, 3}, {0.5, -0.5, 0, 0, 0.25, -0.25}));
  const Tensor y = log_softmax_last_axis(z).value().value().value();
  EXPECT_EQ(y.values()[1], -2e4);
  EXPECT_DOUBLE_EQ(y.values()[4], -std::log(2.0));
}

TEST(ModelOps, MeanAveragesAndSpreadsTheGradient) {
  Tape tape;
  const TensorValue x = tape.parameter(llmfs::test::T(Shape{2, 2}, {1, 2, 3, 6}));
  const TensorValue m = mean(x).value();
  ASSERT_TRUE(backward(m, Tensor::scalar(2.0)).has_value());
  EXPECT_EQ(m.value().value().values()[0], 3.0);
  EXPECT_EQ(x.gradient().value(), Tensor::full(Shape{2, 2}, 0.5));
}

TEST(ModelOps, RefusesOutOfRangeIdsAndTargets) {
  Tape tape;
  const TensorValue w = tape.parameter(Tensor::zeros(Shape{3, 2}));
  const TensorValue z = tape.parameter(Tensor::zeros(Shape{1, 2, 3}));
  EXPECT_EQ(ch16_cause(embedding(w, TokenGrid{1, 2, {0, 3}})),
            TensorErrorCode::index_out_of_range);
  EXPECT_EQ(ch16_cause(embedding(w, TokenGrid{1, 2, {-1, 0}})),
            TensorErrorCode::index_out_of_range);
  EXPECT_EQ(ch16_cause(cross_entropy(z, TokenGrid{1, 2, {2, 3}})),
            TensorErrorCode::index_out_of_range);
  // No ignore index: PyTorch's −100 is out of range like any other negative id.
  EXPECT_EQ(ch16_cause(cross_entropy(z, TokenGrid{1, 2, {-100, 0}})),
            TensorErrorCode::index_out_of_range);
  const auto error = embedding(w, TokenGrid{1, 2, {0, 3}}).error();
  EXPECT_EQ(error.stage, "embedding");
  EXPECT_EQ(error.cause->detail, "id 3 at [0,1] not in [0, 3)");
  EXPECT_EQ(tape.node_count(), 2u);  // nothing was recorded
}

TEST(ModelOps, RefusesShapeMismatches) {
  Tape tape;
  const TensorValue w = tape.parameter(Tensor::zeros(Shape{3, 2}));
  const TensorValue z = tape.parameter(Tensor::zeros(Shape{1, 2, 3}));
  const TensorValue cube = tape.parameter(Tensor::zeros(Shape{3, 2, 1}));
  EXPECT_EQ(ch16_cause(embedding(w, TokenGrid{1, 2, {0}})),
            TensorErrorCode::size_mismatch);
  EXPECT_EQ(ch16_cause(embedding(cube, TokenGrid{1, 1, {0}})),
            TensorErrorCode::size_mismatch);
  EXPECT_EQ(ch16_cause(cross_entropy(z, TokenGrid{2, 1, {0, 1}})),
            TensorErrorCode::size_mismatch);
  EXPECT_EQ(ch16_cause(cross_entropy(w, TokenGrid{3, 2, {0, 1, 0, 1, 0, 1}})),
            TensorErrorCode::size_mismatch);
  EXPECT_EQ(ch16_cause(cross_entropy(z, TokenGrid{1, 2, {0, 1, 2}})),
            TensorErrorCode::size_mismatch);
  const TensorValue empty = tape.parameter(Tensor::zeros(Shape{0, 0, 3}));
  EXPECT_EQ(ch16_cause(cross_entropy(empty, TokenGrid{0, 0, {}})),
            TensorErrorCode::size_mismatch);
  EXPECT_EQ(ch16_cause(mean(tape.parameter(Tensor::zeros(Shape{0})))),
            TensorErrorCode::size_mismatch);
  EXPECT_EQ(ch16_cause(log_softmax_last_axis(tape.parameter(Tensor::scalar(1.0)))),
            TensorErrorCode::rank_too_small);
}

TEST(ModelOps, RefusesNonFiniteLogitsAndReleasedTapes) {
  Tape tape;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (const double bad : {nan, inf, -inf}) {
    const TensorValue z = tape.parameter(llmfs::test::T(Shape{1, 1, 2}, {0, bad}));
    EXPECT_EQ(ch16_cause(cross_entropy(z, TokenGrid{1, 1, {0}})),
              TensorErrorCode::non_finite_input);
    EXPECT_EQ(ch16_cause(log_softmax_last_axis(z)), TensorErrorCode::non_finite_input);
  }
  const TensorValue x = tape.parameter(Tensor::zeros(Shape{3, 2}));
  tape.release();
  EXPECT_EQ(silu(x).error().code, AutogradErrorCode::released_input);
  EXPECT_EQ(embedding(x, TokenGrid{1, 1, {0}}).error().code,
            AutogradErrorCode::released_input);
  EXPECT_EQ(cross_entropy(x, TokenGrid{1, 1, {0}}).error().stage, "cross_entropy");
}

// B·T wrapping around to ids.size(): 2^63 · 2 is 0 mod 2^64, and an empty id list used
// to pass the count check, then ask for a [2^63, 2, D] output. Now it is refused.
TEST(ModelOps, RefusesAGridWhoseCountWraps) {
  Tape tape;
  const TensorValue w = tape.parameter(Tensor::zeros(Shape{3, 2}));
  const TensorValue z = tape.parameter(Tensor::zeros(Shape{1, 2, 3}));
  const std::size_t half = std::size_t{1} << 63;
  std::expected<TensorValue, AutogradError> looked_up, loss;
  EXPECT_NO_THROW(looked_up = embedding(w, TokenGrid{half, 2, {}}));
  EXPECT_EQ(ch16_cause(looked_up), TensorErrorCode::size_mismatch);
  EXPECT_NO_THROW(loss = cross_entropy(z, TokenGrid{half, 2, {}}));
  EXPECT_FALSE(loss.has_value());
  EXPECT_EQ(tape.node_count(), 2u);  // nothing was recorded
}

}  // namespace
