// Chapter 19's claims: the fixture's values derived by hand in
// chapters/19-linear-layers.md, the square-matrix trap, the layer against PyTorch
// float64 (tests/reference/data/nn/ch19_linear.txt, make_linear_reference.py), seeded
// random layers against a naive loop, the refusals, and the exercises' hand answers.

#include <cmath>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/nn/linear.hpp>

#include "evidence.hpp"
#include "support/random_tensor.hpp"
#include "support/records.hpp"

namespace {

using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::nn::Linear;
using llmfs::nn::NamedParameter;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

const ch19::Evidence& ch19_evidence() {
  static const ch19::Evidence e = [] {
    auto gathered = ch19::gather();
    EXPECT_TRUE(gathered.has_value());
    return gathered.value_or(ch19::Evidence{});
  }();
  return e;
}

std::vector<double> ch19_values(const Tensor& t) {
  return {t.values().begin(), t.values().end()};
}

void ch19_expect_near(std::span<const double> got, const std::vector<double>& want,
                      double tolerance, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tolerance * (1.0 + std::abs(want[i])))
        << what << " element " << i;
}

TEST(Fixture, ForwardAndBackwardMatchTheHandDerivation) {
  const ch19::Pass& p = ch19_evidence().pass;
  // Y = X·W + b: (1·1 + 2·2, 1·(−1)) + b and (2, −3) + b.
  EXPECT_EQ(ch19_values(p.output), (std::vector<double>{5.5, -1.5, 2.5, -3.5}));
  EXPECT_EQ(p.output.shape(), (Shape{2, 2}));
  EXPECT_EQ(p.loss, 14.0);  // 5.5 + 2·2.5 + 3.5
  // ∂W = Xᵀ·G [3, 2], ∂b = column sums of G, ∂X = G·Wᵀ [2, 3]: exact small integers.
  EXPECT_EQ(ch19_values(p.weight_gradient), (std::vector<double>{1, 0, 4, -1, -2, 1}));
  EXPECT_EQ(p.weight_gradient.shape(), (Shape{3, 2}));
  EXPECT_EQ(ch19_values(p.bias_gradient), (std::vector<double>{3, -1}));
  EXPECT_EQ(ch19_values(p.input_gradient), (std::vector<double>{1, 2, 0, 3, 4, -3}));
  EXPECT_EQ(p.input_gradient.shape(), (Shape{2, 3}));
  EXPECT_EQ(p.parameters, 8u);  // 3·2 + 2
  EXPECT_TRUE(p.check.passed());
  EXPECT_LT(p.check.max_abs_error(), 1e-8);
}

TEST(Trap, TheWrongLayoutRunsOnASquareWeightAndIsRefusedOnTheFixture) {
  const ch19::Trap& t = ch19_evidence().trap;
  // X = [[1,2],[0,1]], W = [[1,2],[3,4]]: X·W by hand, and X·Wᵀ.
  EXPECT_EQ(ch19_values(t.right), (std::vector<double>{7, 10, 3, 4}));
  EXPECT_EQ(ch19_values(t.wrong), (std::vector<double>{5, 11, 2, 4}));
  EXPECT_EQ(t.non_square, "linear fc.weight: input width mismatch (expected 2, got 3)");
}

TEST(Refusals, EachNamesTheLayerAndTheNumbers) {
  std::map<std::string, std::string> errors;
  for (const auto& [name, text] : ch19_evidence().errors)
    errors[name] = text;
  ASSERT_EQ(errors.size(), 6u);
  EXPECT_EQ(errors.at("weight_rank"),
            "linear fc.weight: weight must be a matrix [in, out] (got shape [6])");
  EXPECT_EQ(errors.at("bias_shape"),
            "linear fc.weight: bias must be a vector [out] (expected [2], got [3])");
  EXPECT_EQ(errors.at("input_rank"),
            "linear fc.weight: input must have at least two axes [..., T, in] (got "
            "shape [3])");
  EXPECT_EQ(errors.at("input_width"),
            "linear fc.weight: input width mismatch (expected 3, got 2)");
  EXPECT_EQ(errors.at("zero_width"), "linear fc: zero width (in 0 and out 2)");
  EXPECT_EQ(errors.at("empty_name"), "linear (no name): empty name");
}

TEST(Exercises, AnswersMatchTheHandDerivations) {
  const ch19::Exercises& x = ch19_evidence().exercises;
  EXPECT_EQ(x.wide_with_bias, 64u * 256u + 256u);
  EXPECT_EQ(x.wide_without_bias, 64u * 256u);
  // e₂ reads row 2 of W, (0, 3), plus b = (0.5, −0.5).
  EXPECT_EQ(ch19_values(x.probe), (std::vector<double>{0.5, 2.5}));
  EXPECT_EQ(x.symmetric_difference, 0.0);
}

// Seeded random layers against a naive triple loop, forward and backward.
TEST(Property, RandomLayersMatchANaiveLoop) {
  for (std::uint64_t seed = 0; seed < 24; ++seed) {
    const std::size_t rows = 1 + seed % 4, in = 1 + seed % 5, out = 1 + (seed * 7) % 6;
    const bool with_bias = seed % 2 == 0;
    const Tensor xs = llmfs::test::random_tensor(Shape{1, rows, in}, 100 + seed);
    const Tensor ws = llmfs::test::random_tensor(Shape{in, out}, 200 + seed);
    const Tensor bs = llmfs::test::random_tensor(Shape{out}, 300 + seed);
    const Tensor gs = llmfs::test::random_tensor(Shape{1, rows, out}, 400 + seed);
    Tape tape;
    const TensorValue x = tape.parameter(xs);
    auto layer = with_bias
                     ? Linear::from_parameters({"w", tape.parameter(ws)},
                                               NamedParameter{"b", tape.parameter(bs)})
                     : Linear::from_parameters({"w", tape.parameter(ws)});
    ASSERT_TRUE(layer.has_value());
    auto y = layer->forward(x);
    ASSERT_TRUE(y.has_value());
    ASSERT_TRUE(llmfs::autograd::backward(*y, gs).has_value());
    std::vector<double> want_y(rows * out), want_dx(rows * in), want_dw(in * out);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t j = 0; j < out; ++j) {
        double sum = with_bias ? bs.values()[j] : 0.0;
        for (std::size_t i = 0; i < in; ++i) {
          sum += xs.values()[r * in + i] * ws.values()[i * out + j];
          want_dx[r * in + i] += gs.values()[r * out + j] * ws.values()[i * out + j];
          want_dw[i * out + j] += xs.values()[r * in + i] * gs.values()[r * out + j];
        }
        want_y[r * out + j] = sum;
      }
    ch19_expect_near(y->value()->values(), want_y, 1e-13, "y");
    ch19_expect_near(x.gradient()->values(), want_dx, 1e-13, "dx");
    ch19_expect_near(layer->weight().value.gradient()->values(), want_dw, 1e-13, "dw");
  }
}

std::vector<double> ch19_numbers(const std::string& text) {
  std::vector<double> out;
  std::istringstream parts(text);
  for (std::string item; std::getline(parts, item, ',');)
    out.push_back(std::stod(item));
  return out;
}

Shape ch19_shape(const std::string& text) {
  std::vector<std::size_t> dims;
  for (const double d : ch19_numbers(text))
    dims.push_back(static_cast<std::size_t>(d));
  return Shape(dims);
}

TEST(Reference, TheLayerMatchesPyTorchFloat64) {
  const auto records =
      llmfs::testing::read_keyed_records("tests/reference/data/nn/ch19_linear.txt");
  ASSERT_EQ(records.size(), 4u);
  for (const auto& record : records) {
    const auto& c = record.fields;
    if (c.at("name") == "square_trap") {
      // nn.Linear's weight [[1,3],[2,4]] ([out, in]) is our W = [[1,2],[3,4]] ([in,
      // out]).
      EXPECT_EQ(ch19_numbers(c.at("y")), ch19_values(ch19_evidence().trap.right));
      EXPECT_NE(ch19_numbers(c.at("y")), ch19_values(ch19_evidence().trap.wrong));
      continue;
    }
    Tape tape;
    const Shape w_shape = ch19_shape(c.at("w_shape"));
    const TensorValue x = tape.parameter(
        *Tensor::from(ch19_shape(c.at("x_shape")), ch19_numbers(c.at("x"))));
    const NamedParameter w{
        "w", tape.parameter(*Tensor::from(w_shape, ch19_numbers(c.at("w"))))};
    const auto b_values = ch19_numbers(c.at("b"));
    auto layer = b_values.empty()
                     ? Linear::from_parameters(w)
                     : Linear::from_parameters(
                           w, NamedParameter{"b", tape.parameter(*Tensor::from(
                                                      Shape{w_shape[1]}, b_values))});
    ASSERT_TRUE(layer.has_value()) << c.at("name");
    auto y = layer->forward(x);
    ASSERT_TRUE(y.has_value()) << c.at("name");
    ASSERT_TRUE(llmfs::autograd::backward(
                    *y, *Tensor::from(y->shape(), ch19_numbers(c.at("g"))))
                    .has_value());
    const std::string name = c.at("name");
    ch19_expect_near(y->value()->values(), ch19_numbers(c.at("y")), 1e-13, name + " y");
    ch19_expect_near(x.gradient()->values(), ch19_numbers(c.at("dx")), 1e-13,
                     name + " dx");
    ch19_expect_near(w.value.gradient()->values(), ch19_numbers(c.at("dw")), 1e-13,
                     name + " dw");
    if (!b_values.empty())
      ch19_expect_near(layer->bias()->value.gradient()->values(),
                       ch19_numbers(c.at("db")), 1e-13, name + " db");
  }
}

}  // namespace
