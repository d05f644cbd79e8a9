// Chapter 24's claims: the fixture's values derived by hand in
// chapters/24-residual-connections.md, the depth table's shape, the stacks against
// PyTorch float64 (tests/reference/data/nn/ch24_ch25_nn.txt,
// make_norm_residual_reference.py), the refusals, and the exercises' hand answers.

#include <cmath>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include <llmfs/autograd/model_ops.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/nn/linear.hpp>
#include <llmfs/nn/residual.hpp>

#include "evidence.hpp"
#include "support/records.hpp"

namespace {

using namespace llmfs::autograd;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

const ch24::Evidence& ch24_evidence() {
  static const ch24::Evidence e = [] {
    auto gathered = ch24::gather();
    EXPECT_TRUE(gathered.has_value());
    return gathered.value_or(ch24::Evidence{});
  }();
  return e;
}

void ch24_expect_near(const std::vector<double>& got, const std::vector<double>& want,
                      double tolerance, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tolerance * (1.0 + std::abs(want[i])))
        << what << " " << i;
}

TEST(Fixture, PlainStackMatchesTheHandDerivation) {
  const ch24::Pass& p = ch24_evidence().fixture[0];
  // x·W³ = (1,2)·(½)³·swap = (2,1)/8; the gradient W³·1 = (½)³·(1,1).
  ch24_expect_near(p.output, {0.25, 0.125}, 0, "plain output");
  ch24_expect_near(p.input_gradient, {0.125, 0.125}, 0, "plain gradient");
  EXPECT_TRUE(p.check.passed());
}

TEST(Fixture, ResidualStackMatchesTheHandDerivation) {
  const ch24::Pass& p = ch24_evidence().fixture[1];
  // I + W has eigenvalues 3/2 on (1,1) and 1/2 on (1,−1); x = 1.5·(1,1) − 0.5·(1,−1).
  ch24_expect_near(p.output, {5.0, 5.125}, 1e-15, "residual output");
  ch24_expect_near(p.input_gradient, {3.375, 3.375}, 1e-15, "residual gradient");
  EXPECT_TRUE(p.check.passed());
  EXPECT_LT(p.check.max_abs_error(), 1e-6);
}

TEST(Depths, PlainGradientVanishesAndResidualGradientDoesNot) {
  const auto& table = ch24_evidence().table;
  ASSERT_EQ(table.size(), ch24::kDepths.size());
  EXPECT_DOUBLE_EQ(table[0].input_norm[0], 8.0);  // depth 0: ‖R‖ = √64
  EXPECT_DOUBLE_EQ(table[0].input_norm[1], 8.0);
  for (std::size_t i = 1; i < table.size(); ++i) {
    EXPECT_LT(table[i].input_norm[0], table[i - 1].input_norm[0]) << table[i].depth;
    EXPECT_GT(table[i].input_norm[1], table[i].input_norm[0]) << table[i].depth;
    EXPECT_GE(table[i].input_norm[1], 8.0) << table[i].depth;
  }
  EXPECT_LT(table.back().input_norm[0], 1e-30);
  // One block: the bottom weight gets the same gradient with or without the skip.
  EXPECT_DOUBLE_EQ(table[1].bottom_norm[0], table[1].bottom_norm[1]);
}

TEST(Refusals, EveryBadCallIsATypedError) {
  const auto& errors = ch24_evidence().errors;
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_NE(errors[0][1].find("residual branch changed the shape"), std::string::npos);
  EXPECT_NE(errors[1][1].find("residual stack.0: linear narrow.weight"),
            std::string::npos);
  EXPECT_NE(errors[2][1].find("released input"), std::string::npos);
}

TEST(Exercises, AnswersMatchTheHandDerivation) {
  const ch24::Evidence& e = ch24_evidence();
  ch24_expect_near(e.cancelled_gradient, {0, 0}, 0, "W = −I");
  // (½)^L < 1e-6 first at L = 20 (2^−20 ≈ 9.5e-7; 2^−19 ≈ 1.9e-6).
  EXPECT_EQ(e.plain_depth_below, 20u);
}

std::vector<double> ch24_numbers(const std::string& text) {
  std::vector<double> out;
  std::istringstream parts(text);
  for (std::string item; std::getline(parts, item, ',');)
    out.push_back(std::stod(item));
  return out;
}

TEST(Reference, StacksMatchPyTorchFloat64) {
  std::size_t cases = 0;
  for (const auto& r :
       llmfs::testing::read_keyed_records("tests/reference/data/nn/ch24_ch25_nn.txt")) {
    if (r.fields.at("kind") != "residual") continue;
    ++cases;
    const auto rows = static_cast<std::size_t>(r.number("rows"));
    const auto width = static_cast<std::size_t>(r.number("width"));
    const auto depth = static_cast<std::size_t>(r.number("depth"));
    Tape tape;
    const TensorValue x = tape.parameter(
        Tensor::from(Shape{rows, width}, ch24_numbers(r.fields.at("x"))).value());
    std::vector<llmfs::nn::Linear> layers;
    for (std::size_t i = 0; i < depth; ++i) {
      const auto w = ch24_numbers(r.fields.at(fmt::format("w{}", i)));
      const auto b = ch24_numbers(r.fields.at(fmt::format("b{}", i)));
      layers.push_back(
          llmfs::nn::Linear::from_parameters(
              {fmt::format("b{}.weight", i),
               tape.parameter(Tensor::from(Shape{width, width}, w).value())},
              llmfs::nn::NamedParameter{
                  fmt::format("b{}.bias", i),
                  tape.parameter(Tensor::from(Shape{width}, b).value())})
              .value());
    }
    std::vector<llmfs::nn::ResidualBranch> blocks;
    for (const auto& layer : layers)
      blocks.push_back([&layer](const TensorValue& h)
                           -> std::expected<TensorValue, llmfs::nn::NnError> {
        return silu(layer.forward(h).value()).value();
      });
    const TensorValue top =
        llmfs::nn::stack("ref", x, blocks, r.number("identity") == 1).value();
    const TensorValue w = tape.constant(
        Tensor::from(top.shape(), ch24_numbers(r.fields.at("weights"))).value());
    ASSERT_TRUE(backward(sum(multiply(top, w).value()).value(), Tensor::scalar(1.0))
                    .has_value());
    const auto values = [](const Tensor& t) {
      return std::vector<double>(t.values().begin(), t.values().end());
    };
    const std::string name = r.fields.at("name");
    ch24_expect_near(values(top.value().value()), ch24_numbers(r.fields.at("value")),
                     1e-12, name + " value");
    ch24_expect_near(values(x.gradient().value()),
                     ch24_numbers(r.fields.at("x_gradient")), 1e-12, name + " gx");
    ch24_expect_near(values(layers[0].weight().value.gradient().value()),
                     ch24_numbers(r.fields.at("w0_gradient")), 1e-12, name + " gW0");
  }
  EXPECT_EQ(cases, 3u);
}

}  // namespace
