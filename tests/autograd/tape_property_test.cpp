// Chapter 15 property tests: for every tensor op, many seeded random shapes (with
// broadcasting where the op broadcasts) and values; the tape's gradient from one
// backward pass against a naive central difference written here, coordinate by
// coordinate, on the loss Σ op(inputs) ⊙ C for a random C.

#include <cmath>
#include <random>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>

#include "autograd/support.hpp"

namespace {

using namespace llmfs::autograd;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::test::random_tensor;

constexpr int kCh15Cases = 25;

// One random case: the inputs and how to record the op on them.
struct Ch15Case {
  std::vector<Tensor> inputs;
  std::function<std::expected<TensorValue, AutogradError>(std::span<const TensorValue>)>
      op;
  std::string what;
};

std::size_t ch15_dim(std::mt19937_64& rng, std::size_t lo, std::size_t hi) {
  return lo + rng() % (hi - lo + 1);
}

std::vector<std::size_t> ch15_dims(std::mt19937_64& rng, std::size_t rank) {
  std::vector<std::size_t> dims;
  for (std::size_t i = 0; i < rank; ++i)
    dims.push_back(ch15_dim(rng, 1, 3));
  return dims;
}

// b's shape broadcasts against a's: a suffix of a's axes, some of them set to 1.
std::vector<std::size_t> ch15_broadcast_partner(std::mt19937_64& rng,
                                                const std::vector<std::size_t>& a) {
  const std::size_t keep = ch15_dim(rng, 1, a.size());
  std::vector<std::size_t> b(a.end() - static_cast<std::ptrdiff_t>(keep), a.end());
  for (auto& d : b)
    if (rng() % 3 == 0) d = 1;
  return b;
}

std::string ch15_shapes(const std::vector<Tensor>& inputs) {
  std::string out;
  for (const auto& t : inputs)
    out += fmt::format("{} ", t.shape());
  return out;
}

Ch15Case ch15_make(const std::string& op, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Ch15Case c;
  auto tensor = [&](std::vector<std::size_t> dims) {
    c.inputs.push_back(random_tensor(Shape(std::move(dims)), rng()));
  };
  using In = std::span<const TensorValue>;
  if (op == "add" || op == "subtract" || op == "multiply") {
    auto a = ch15_dims(rng, ch15_dim(rng, 1, 3));
    auto b = ch15_broadcast_partner(rng, a);
    if (rng() % 2) std::swap(a, b);  // either side may be the broadcast one
    tensor(a);
    tensor(b);
    if (op == "add") c.op = [](In in) { return add(in[0], in[1]); };
    if (op == "subtract") c.op = [](In in) { return subtract(in[0], in[1]); };
    if (op == "multiply") c.op = [](In in) { return multiply(in[0], in[1]); };
  } else if (op == "scale") {
    tensor(ch15_dims(rng, ch15_dim(rng, 0, 3)));
    const double factor = static_cast<double>(rng() % 7) - 3.5;
    c.op = [factor](In in) { return scale(in[0], factor); };
  } else if (op == "matmul") {
    const std::size_t n = ch15_dim(rng, 1, 3), k = ch15_dim(rng, 1, 3),
                      m = ch15_dim(rng, 1, 3), batch = ch15_dim(rng, 1, 2);
    tensor({batch, n, k});
    if (rng() % 2)
      tensor({k, m});
    else
      tensor({batch, k, m});
    c.op = [](In in) { return matmul(in[0], in[1]); };
  } else if (op == "reshape") {
    auto dims = ch15_dims(rng, ch15_dim(rng, 1, 3));
    tensor(dims);
    std::size_t count = 1;
    for (auto d : dims)
      count *= d;
    c.op = [count](In in) { return reshape(in[0], Shape{count, 1}); };
  } else if (op == "transpose") {
    const auto rank = ch15_dim(rng, 2, 3);
    tensor(ch15_dims(rng, rank));
    const std::size_t i = rng() % rank, j = rng() % rank;
    c.op = [i, j](In in) { return transpose(in[0], i, j); };
  } else if (op == "slice_last_axis") {
    auto dims = ch15_dims(rng, ch15_dim(rng, 1, 3));
    dims.back() = ch15_dim(rng, 2, 4);
    tensor(dims);
    const std::size_t begin = rng() % dims.back();
    const std::size_t end = begin + 1 + rng() % (dims.back() - begin);
    c.op = [begin, end](In in) { return slice_last_axis(in[0], begin, end); };
  } else {  // sum
    tensor(ch15_dims(rng, ch15_dim(rng, 0, 3)));
    c.op = [](In in) { return sum(in[0]); };
  }
  c.what = fmt::format("{} seed {} shapes {}", op, seed, ch15_shapes(c.inputs));
  return c;
}

// The naive reference: (f(x + h) − f(x − h)) / 2h, one coordinate at a time.
double ch15_central(const LossBuilder& loss, std::vector<Tensor> x, std::size_t input,
                    std::size_t coordinate) {
  const double h = 1e-6;
  const double original = x[input].values()[coordinate];
  x[input].mutable_values()[coordinate] = original + h;
  const double plus = evaluate_loss(loss, x).value().values()[0];
  x[input].mutable_values()[coordinate] = original - h;
  const double minus = evaluate_loss(loss, x).value().values()[0];
  return (plus - minus) / (2 * h);
}

class Ch15OpProperty : public ::testing::TestWithParam<std::string> {};

TEST_P(Ch15OpProperty, TapeGradientMatchesCentralDifferences) {
  for (int k = 0; k < kCh15Cases; ++k) {
    const std::uint64_t seed = 15000 + 100 * static_cast<std::uint64_t>(k);
    const Ch15Case c = ch15_make(GetParam(), seed);
    const LossBuilder loss = [&c, seed](Tape& tape, std::span<const TensorValue> in)
        -> std::expected<TensorValue, AutogradError> {
      auto y = c.op(in);
      if (!y) return y;
      return llmfs::test::weighted_sum(tape, *y, seed + 7);
    };
    const auto analytic = tape_gradients(loss, c.inputs);
    ASSERT_TRUE(analytic.has_value())
        << c.what << ": " << fmt::format("{}", analytic.error());
    for (std::size_t i = 0; i < c.inputs.size(); ++i) {
      ASSERT_EQ((*analytic)[i].shape(), c.inputs[i].shape()) << c.what;
      for (std::size_t j = 0; j < c.inputs[i].size(); ++j) {
        const double numeric = ch15_central(loss, c.inputs, i, j);
        EXPECT_NEAR((*analytic)[i].values()[j], numeric,
                    1e-7 + 1e-7 * std::abs(numeric))
            << c.what << " input " << i << " coordinate " << j;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryOp, Ch15OpProperty,
                         ::testing::Values("add", "subtract", "multiply", "scale",
                                           "matmul", "reshape", "transpose",
                                           "slice_last_axis", "sum"));

TEST(Ch15TapeIntrospection, NodesAndBackwardOrderDescribeTheTape) {
  // z = Σ (a ⊙ c) with c a constant: nodes a, c, multiply(0,1), sum(2); backward runs
  // the closures of 3 then 2, and a failed or absent pass records nothing.
  Tape tape;
  auto a = tape.parameter(llmfs::test::T(Shape{2}, {1, 2}));
  auto c = tape.constant(llmfs::test::T(Shape{2}, {3, 4}));
  auto z = sum(multiply(a, c).value()).value();
  EXPECT_TRUE(tape.last_backward_order().empty());
  const auto nodes = tape.nodes();
  ASSERT_EQ(nodes.size(), 4u);
  EXPECT_EQ(nodes[1].op, "constant");
  EXPECT_FALSE(nodes[1].requires_gradient);
  EXPECT_EQ(nodes[2].op, "multiply");
  EXPECT_EQ(nodes[2].parents, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(nodes[3].shape, Shape{});
  ASSERT_TRUE(backward(z, Tensor::scalar(1.0)).has_value());
  EXPECT_EQ(tape.last_backward_order(), (std::vector<std::size_t>{3, 2}));
  EXPECT_EQ(a.gradient().value(), llmfs::test::T(Shape{2}, {3, 4}));
  EXPECT_FALSE(backward(z, Tensor::zeros(Shape{2})).has_value());
  EXPECT_EQ(tape.last_backward_order(), (std::vector<std::size_t>{3, 2}));
  tape.release();
  EXPECT_TRUE(tape.nodes().empty());
  EXPECT_TRUE(tape.last_backward_order().empty());
}

}  // namespace
