// Chapter 20's claims: the fixture's values derived by hand in
// chapters/20-swiglu-feed-forward.md, the hidden-width rule and the parameter count,
// the layer against PyTorch float64 (tests/reference/data/nn/ch20_swiglu.txt,
// make_swiglu_reference.py), seeded random layers against a naive loop, the refusals,
// and the exercises' hand answers.

#include <cmath>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/nn/swiglu.hpp>

#include "evidence.hpp"
#include "support/random_tensor.hpp"
#include "support/records.hpp"

namespace {

using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::nn::SwiGluFeedForward;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

const ch20::Evidence& ch20_evidence() {
  static const ch20::Evidence e = [] {
    auto gathered = ch20::gather();
    EXPECT_TRUE(gathered.has_value());
    return gathered.value_or(ch20::Evidence{});
  }();
  return e;
}

void ch20_expect_near(std::span<const double> got, const std::vector<double>& want,
                      double tolerance, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tolerance * (1.0 + std::abs(want[i])))
        << what << " element " << i;
}

double silu(double a) {
  return a / (1.0 + std::exp(-a));
}
double silu_slope(double a) {
  const double s = 1.0 / (1.0 + std::exp(-a));
  return s * (1.0 + a * (1.0 - s));
}

TEST(Fixture, ForwardMatchesTheHandDerivation) {
  const ch20::Pass& p = ch20_evidence().pass;
  const double l = std::log(3.0);
  // X = I: A = W₁, U = W₃; SiLU(0) = 0, SiLU(±ln 3) = (3/4)ln 3 and −(1/4)ln 3.
  ch20_expect_near(p.gate.values(), {0, 0.75 * l, -0.25 * l, 0.75 * l, 0, 0}, 1e-15,
                   "S");
  ch20_expect_near(p.hidden.values(), {0, 1.5 * l, -l, 1.5 * l, 0, 0}, 1e-15, "H");
  // Y = H·W₂: (−ln 3, ln 3 / 2) and (3/2 ln 3, 0); L = Σ Y = ln 3.
  ch20_expect_near(p.output.values(), {-l, 0.5 * l, 1.5 * l, 0}, 1e-15, "Y");
  EXPECT_NEAR(p.loss, l, 1e-15);
  EXPECT_EQ(p.parameters, 18u);  // 3·2·3
}

TEST(Fixture, BackwardMatchesTheHandDerivation) {
  const ch20::Pass& p = ch20_evidence().pass;
  const double l = std::log(3.0);
  // ∂H = 1·W₂ᵀ = (1, 1, 2) per token; ∂U = ∂H ⊙ S; ∂A = ∂H ⊙ U ⊙ SiLU'(A).
  ch20_expect_near(p.up_gradient.values(), {0, 0.75 * l, -0.5 * l, 0.75 * l, 0, 0},
                   1e-15, "dU");
  const double up = 0.75 + 3.0 / 16.0 * l;    // SiLU'(ln 3)
  const double down = 0.25 - 3.0 / 16.0 * l;  // SiLU'(−ln 3)
  ch20_expect_near(p.gate_input_gradient.values(),
                   {0.5, 2 * up, 8 * down, 2 * up, 0.5, 1}, 1e-15, "dA");
  // X = I: ∂W₁ = ∂A, ∂W₃ = ∂U; ∂W₂ = Hᵀ·1: column sums of H, twice.
  ch20_expect_near(p.gradients[1].values(), {0.5, 2 * up, 8 * down, 2 * up, 0.5, 1},
                   1e-15, "dW1");
  ch20_expect_near(p.gradients[3].values(),
                   {1.5 * l, 1.5 * l, 1.5 * l, 1.5 * l, -l, -l}, 1e-15, "dW2");
  // ∂X row 0 = ∂A₀·W₁ᵀ + ∂U₀·W₃ᵀ: its first entry is −ln 3 + (15/8)(ln 3)².
  EXPECT_NEAR(p.gradients[0].values()[0], -l + 15.0 / 8.0 * l * l, 1e-14);
  EXPECT_TRUE(p.check.passed());
  EXPECT_LT(p.check.max_abs_error(), 1e-8);
}

TEST(Width, TheRuleRoundsEightThirdsUpToTheMultiple) {
  const std::vector<std::size_t> want = {8, 16, 176, 344, 2048};
  ASSERT_EQ(ch20_evidence().widths.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const ch20::Width& w = ch20_evidence().widths[i];
    EXPECT_EQ(w.hidden_width, want[i]) << w.model_width;
    EXPECT_EQ(w.hidden_width % 8, 0u);
    EXPECT_GE(3 * w.hidden_width, 8 * w.model_width);  // never below 8d/3
    EXPECT_LT(w.hidden_width, (8 * w.model_width + 2) / 3 + 8);
    EXPECT_EQ(w.parameters, 3 * w.model_width * w.hidden_width);
  }
  EXPECT_EQ(ch20_evidence().widths[4].parameters, 8u * 768u * 768u);  // exact at 768
}

TEST(Refusals, EachNamesTheStageAndTheShapes) {
  std::map<std::string, std::string> errors;
  for (const auto& [name, text] : ch20_evidence().errors)
    errors[name] = text;
  ASSERT_EQ(errors.size(), 6u);
  EXPECT_EQ(errors.at("up_width"),
            "swiglu: projection widths disagree (gate [2,3], up [2,4], down [3,2]: "
            "expected [d_model, d_ff] twice and [d_ff, d_model])");
  EXPECT_NE(errors.at("down_layout").find("down [2,3]"), std::string::npos);
  EXPECT_EQ(errors.at("input_width"),
            "linear ffn.gate.weight: input width mismatch (expected 2, got 3)");
  EXPECT_EQ(errors.at("zero_multiple"),
            "swiglu hidden width: zero width (d_model 64, multiple 0)");
  EXPECT_EQ(errors.at("empty_name"), "swiglu: empty name (layer name)");
  EXPECT_NE(errors.at("duplicate_name").find("duplicate parameter name"),
            std::string::npos);
}

TEST(Exercises, AnswersMatchTheHandDerivations) {
  const ch20::Exercises& x = ch20_evidence().exercises;
  EXPECT_EQ(x.created_parameters, 3u * 64u * 176u);
  EXPECT_EQ(x.closed_gates, 3u);            // A = 0 at (0,0), (1,1), (1,2)
  EXPECT_EQ(x.zero_up_gradients, 3u);       // ∂W₃ = ∂H ⊙ S is 0 exactly there
  EXPECT_EQ(x.zero_gate_gradients, 0u);     // SiLU'(0) = 1/2: W₁ still learns
  EXPECT_EQ(x.llama_hidden_width, 11008u);  // LLaMA-7B's feed-forward width
  EXPECT_EQ(ch20_evidence().ungated_parameters, 3u * 64u * 256u);
}

// Seeded random layers against a naive loop: Y = (SiLU(X·W₁) ⊙ X·W₃)·W₂ and ∂X.
TEST(Property, RandomLayersMatchANaiveLoop) {
  for (std::uint64_t seed = 0; seed < 24; ++seed) {
    const std::size_t rows = 1 + seed % 4, d = 1 + seed % 3, f = 1 + (seed * 5) % 7;
    const Tensor xs = llmfs::test::random_tensor(Shape{rows, d}, 500 + seed);
    const Tensor w1 = llmfs::test::random_tensor(Shape{d, f}, 600 + seed);
    const Tensor w3 = llmfs::test::random_tensor(Shape{d, f}, 700 + seed);
    const Tensor w2 = llmfs::test::random_tensor(Shape{f, d}, 800 + seed);
    Tape tape;
    const TensorValue x = tape.parameter(xs);
    auto layer = SwiGluFeedForward::from_parameters({"g", tape.parameter(w1)},
                                                    {"u", tape.parameter(w3)},
                                                    {"d", tape.parameter(w2)});
    ASSERT_TRUE(layer.has_value());
    auto y = layer->forward(x);
    ASSERT_TRUE(y.has_value());
    ASSERT_TRUE(
        llmfs::autograd::backward(*y, Tensor::full(y->shape(), 1.0)).has_value());
    std::vector<double> want_y(rows * d), want_dx(rows * d);
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t j = 0; j < f; ++j) {
        double a = 0.0, u = 0.0, dh = 0.0;
        for (std::size_t i = 0; i < d; ++i) {
          a += xs.values()[r * d + i] * w1.values()[i * f + j];
          u += xs.values()[r * d + i] * w3.values()[i * f + j];
          dh += w2.values()[j * d + i];
        }
        for (std::size_t k = 0; k < d; ++k) {
          want_y[r * d + k] += silu(a) * u * w2.values()[j * d + k];
          want_dx[r * d + k] += dh * (u * silu_slope(a) * w1.values()[k * f + j] +
                                      silu(a) * w3.values()[k * f + j]);
        }
      }
    ch20_expect_near(y->value()->values(), want_y, 1e-12, "y");
    ch20_expect_near(x.gradient()->values(), want_dx, 1e-12, "dx");
  }
}

std::vector<double> ch20_numbers(const std::string& text) {
  std::vector<double> out;
  std::istringstream parts(text);
  for (std::string item; std::getline(parts, item, ',');)
    out.push_back(std::stod(item));
  return out;
}

TEST(Reference, TheLayerMatchesPyTorchFloat64) {
  const auto records =
      llmfs::testing::read_keyed_records("tests/reference/data/nn/ch20_swiglu.txt");
  ASSERT_EQ(records.size(), 3u);
  for (const auto& record : records) {
    const auto& c = record.fields;
    std::vector<std::size_t> dims;
    for (const double v : ch20_numbers(c.at("x_shape")))
      dims.push_back(std::size_t(v));
    const std::size_t d = dims.back(), f = std::stoul(c.at("d_ff"));
    Tape tape;
    const TensorValue x =
        tape.parameter(*Tensor::from(Shape(dims), ch20_numbers(c.at("x"))));
    const TensorValue w1 =
        tape.parameter(*Tensor::from(Shape{d, f}, ch20_numbers(c.at("w1"))));
    const TensorValue w3 =
        tape.parameter(*Tensor::from(Shape{d, f}, ch20_numbers(c.at("w3"))));
    const TensorValue w2 =
        tape.parameter(*Tensor::from(Shape{f, d}, ch20_numbers(c.at("w2"))));
    auto layer = SwiGluFeedForward::from_parameters({"g", w1}, {"u", w3}, {"d", w2});
    ASSERT_TRUE(layer.has_value());
    auto y = layer->forward(x);
    ASSERT_TRUE(y.has_value());
    ASSERT_TRUE(llmfs::autograd::backward(
                    *y, *Tensor::from(y->shape(), ch20_numbers(c.at("g"))))
                    .has_value());
    const std::string name = c.at("name");
    ch20_expect_near(y->value()->values(), ch20_numbers(c.at("y")), 1e-13, name + " y");
    ch20_expect_near(x.gradient()->values(), ch20_numbers(c.at("dx")), 1e-13,
                     name + " dx");
    ch20_expect_near(w1.gradient()->values(), ch20_numbers(c.at("dw1")), 1e-13,
                     name + " dw1");
    ch20_expect_near(w3.gradient()->values(), ch20_numbers(c.at("dw3")), 1e-13,
                     name + " dw3");
    ch20_expect_near(w2.gradient()->values(), ch20_numbers(c.at("dw2")), 1e-13,
                     name + " dw2");
  }
}

}  // namespace
