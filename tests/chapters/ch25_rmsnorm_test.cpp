// Chapter 25's claims: the fixture's values derived by hand in chapters/25-rmsnorm.md,
// the variants by value, RMSNorm against PyTorch float64 to 1e−12
// (tests/reference/data/nn/ch24_ch25_nn.txt, make_norm_residual_reference.py), the
// refusals, and the exercises' hand answers.

#include <cmath>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/nn/rms_norm.hpp>

#include "evidence.hpp"
#include "support/records.hpp"

namespace {

using namespace llmfs::autograd;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

const ch25::Evidence& ch25_evidence() {
  static const ch25::Evidence e = [] {
    auto gathered = ch25::gather();
    EXPECT_TRUE(gathered.has_value());
    return gathered.value_or(ch25::Evidence{});
  }();
  return e;
}

void ch25_expect_near(const std::vector<double>& got, const std::vector<double>& want,
                      double tolerance, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tolerance * (1.0 + std::abs(want[i])))
        << what << " " << i;
}

TEST(Fixture, ForwardMatchesTheHandDerivation) {
  const ch25::Pass& p = ch25_evidence().pass;
  // Row 0: r = √(25 + 10⁻⁶) ≈ 5; row 1 (zero): r = √ε = 10⁻³.
  ch25_expect_near(p.rms, {std::sqrt(25.000001), 1e-3}, 1e-15, "r");
  ch25_expect_near(p.output, {0.2, 1.4, 0.4, 0.7, 0, 0, 0, 0}, 1e-7, "y");
}

TEST(Fixture, BackwardMatchesTheHandDerivation) {
  const ch25::Pass& p = ch25_evidence().pass;
  // Row 0: (ĝ − n·mean(ĝ ⊙ n))/r with ĝ = g, mean = 0.675; row 1: ĝ/√ε.
  ch25_expect_near(p.input_gradient,
                   {0.173, 0.011, 0.373, -0.089, 1000, 1000, 2000, 500}, 1e-7, "gx");
  ch25_expect_near(p.gain_gradient, {0.2, 1.4, 0.2, 1.4}, 1e-7, "gg");
  EXPECT_TRUE(p.check.passed());
}

TEST(Variants, DifferOnSmallRowsAndAgreeOnLargeZeroMeanRows) {
  const auto& v = ch25_evidence().variants;
  ASSERT_EQ(v.size(), 3u);
  const double large = 3 / std::sqrt(5.0);
  for (std::size_t k = 0; k < 4; ++k)
    EXPECT_NEAR(v[0].values[k][3], large, 1e-6);
  EXPECT_NEAR(v[1].values[0][3], 3e-3 / std::sqrt(6e-6), 1e-12);           // ε inside
  EXPECT_NEAR(v[1].values[1][3], 3e-3 / (std::sqrt(5e-6) + 1e-6), 1e-12);  // outside
  EXPECT_GT(v[1].values[1][3] - v[1].values[0][3], 0.1);
  // Mean 4: LayerNorm centres to ±1, the variance variant divides by 3.
  EXPECT_NEAR(v[2].values[3][0], -1.0, 1e-6);
  EXPECT_NEAR(v[2].values[2][1], 7.0 / 3.0, 1e-6);
}

TEST(Refusals, EveryBadCallIsATypedError) {
  const auto& errors = ch25_evidence().errors;
  ASSERT_EQ(errors.size(), 6u);
  for (const auto& [name, text] : errors)
    EXPECT_NE(text, "accepted") << name;
  EXPECT_NE(errors[0][1].find("epsilon must be finite and positive"),
            std::string::npos);
  EXPECT_NE(errors[2][1].find("gain must be a vector"), std::string::npos);
}

TEST(Exercises, AnswersMatchTheHandDerivation) {
  const ch25::Evidence& e = ch25_evidence();
  ch25_expect_near(e.scaled[0], {0.2, 1.4, 0.4, 0.7}, 1e-7, "10x");
  const double r = std::sqrt(25e-8 + 1e-6);  // row 0 times 1e-4
  ch25_expect_near(e.scaled[1], {1e-4 / r, 7e-4 / r, 2e-4 / r, 0.5 * 7e-4 / r}, 1e-12,
                   "1e-4 x");
  // x·∂L/∂x = Σ ĝ n · ε/r² = 2.7 · 10⁻⁶/25.000001.
  // A difference of terms of order 1: its rounding is ~1e-16 per term, not
  // 1e-16·result.
  EXPECT_NEAR(e.radial_gradient, 2.7e-6 / 25.000001, 1e-14);
}

std::vector<double> ch25_numbers(const std::string& text) {
  std::vector<double> out;
  std::istringstream parts(text);
  for (std::string item; std::getline(parts, item, ',');)
    out.push_back(std::stod(item));
  return out;
}

TEST(Reference, RmsNormMatchesPyTorchFloat64To1e12) {
  std::size_t cases = 0;
  for (const auto& r :
       llmfs::testing::read_keyed_records("tests/reference/data/nn/ch24_ch25_nn.txt")) {
    if (r.fields.at("kind") != "rms_norm") continue;
    ++cases;
    const auto rows = static_cast<std::size_t>(r.number("rows"));
    const auto width = static_cast<std::size_t>(r.number("width"));
    Tape tape;
    const TensorValue x = tape.parameter(
        Tensor::from(Shape{rows, width}, ch25_numbers(r.fields.at("x"))).value());
    const TensorValue g = tape.parameter(
        Tensor::from(Shape{width}, ch25_numbers(r.fields.at("gain"))).value());
    const TensorValue y = llmfs::nn::rms_norm(x, g, r.number("epsilon")).value();
    const TensorValue w = tape.constant(
        Tensor::from(y.shape(), ch25_numbers(r.fields.at("weights"))).value());
    ASSERT_TRUE(
        backward(sum(multiply(y, w).value()).value(), Tensor::scalar(1.0)).has_value());
    const auto values = [](const Tensor& t) {
      return std::vector<double>(t.values().begin(), t.values().end());
    };
    const std::string name = r.fields.at("name");
    ch25_expect_near(values(y.value().value()), ch25_numbers(r.fields.at("value")),
                     1e-12, name + " y");
    ch25_expect_near(values(x.gradient().value()),
                     ch25_numbers(r.fields.at("x_gradient")), 1e-12, name + " gx");
    ch25_expect_near(values(g.gradient().value()),
                     ch25_numbers(r.fields.at("gain_gradient")), 1e-12, name + " gg");
  }
  EXPECT_EQ(cases, 4u);
}

}  // namespace
