// Chapter 16's claims: the fixture's values derived by hand in
// chapters/16-model-autodiff-ops.md, every op against PyTorch float64
// (tests/reference/data/autograd/ch16_model_ops.txt, make_model_ops_reference.py), the
// refusals, and the exercises' hand answers.

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include <llmfs/autograd/model_ops.hpp>
#include <llmfs/autograd/ops.hpp>

#include "evidence.hpp"
#include "support/records.hpp"

namespace {

using namespace llmfs::autograd;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

const ch16::Evidence& ch16_evidence() {
  static const ch16::Evidence e = [] {
    auto gathered = ch16::gather();
    EXPECT_TRUE(gathered.has_value());
    return gathered.value_or(ch16::Evidence{});
  }();
  return e;
}

void ch16_expect_near(const std::vector<double>& got, const std::vector<double>& want,
                      double tolerance, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tolerance * (1.0 + std::abs(want[i])))
        << what << " element " << i;
}

TEST(Fixture, ForwardMatchesTheHandDerivation) {
  const ch16::Pass& p = ch16_evidence().pass;
  const double ln2 = std::log(2.0);
  ch16_expect_near(p.hidden, {0, 0, 1, 0}, 0, "h = E[0], E[1]");
  ch16_expect_near(p.logits, {0, 0, 0, ln2, 0, 0}, 1e-15, "z = h·W");
  // (ln 3 + ln 4) / 2 = ln 12 / 2
  EXPECT_NEAR(p.loss, std::log(12.0) / 2, 1e-15);
}

TEST(Fixture, BackwardMatchesTheHandDerivation) {
  const ch16::Pass& p = ch16_evidence().pass;
  const double ln2 = std::log(2.0);
  // ∂L/∂z = (softmax − one-hot)/2 per position.
  ch16_expect_near(p.logit_gradient,
                   {-1.0 / 3, 1.0 / 6, 1.0 / 6, 1.0 / 4, 1.0 / 8, -3.0 / 8}, 1e-15,
                   "gz");
  // ∂L/∂E: row 0 ← gz_0·Wᵀ, row 1 ← gz_1·Wᵀ, row 2 unused.
  ch16_expect_near(p.table_gradient, {-ln2 / 3, 1.0 / 6, ln2 / 4, 1.0 / 8, 0, 0}, 1e-15,
                   "gE");
  // ∂L/∂W = hᵀ·gz: only h_1 = (1, 0) is non-zero.
  ch16_expect_near(p.output_gradient, {1.0 / 4, 1.0 / 8, -3.0 / 8, 0, 0, 0}, 1e-15,
                   "gW");
  EXPECT_TRUE(p.check.passed());
}

TEST(Fixture, EveryOpPassesItsGradientCheck) {
  ASSERT_EQ(ch16_evidence().checks.size(), 5u);
  for (const ch16::OpCheck& c : ch16_evidence().checks) {
    EXPECT_TRUE(c.check.passed()) << c.op;
    EXPECT_LT(c.check.max_abs_error(), 1e-8) << c.op;
  }
}

TEST(Fixture, ExtremeLogitsGiveTheExactLossAndTheNaiveRecipeDoesNot) {
  const ch16::Evidence& e = ch16_evidence();
  EXPECT_DOUBLE_EQ(e.extreme_loss, (2e4 + std::log(2.0)) / 2);
  ch16_expect_near(e.extreme_gradient, {0.5, -0.5, 0, 0, 0.25, -0.25}, 0, "gz");
  EXPECT_FALSE(std::isfinite(e.naive_extreme_loss));
}

TEST(Fixture, RefusalsNameTheOpAndTheOffendingValue) {
  std::map<std::string, std::string> errors;
  for (const auto& [name, text] : ch16_evidence().errors)
    errors[name] = text;
  EXPECT_EQ(errors.at("id_out_of_range"),
            "embedding: embedding: index out of range: [3,2] (id 3 at [0,1] not in "
            "[0, 3))");
  EXPECT_EQ(errors.at("target_out_of_range"),
            "cross_entropy: cross_entropy: index out of range: [1,2,3] (id -1 at [0,1] "
            "not in [0, 3))");
  EXPECT_NE(errors.at("ids_not_b_by_t").find("size mismatch"), std::string::npos);
  EXPECT_NE(errors.at("targets_shape").find("size mismatch"), std::string::npos);
  EXPECT_NE(errors.at("logits_rank").find("size mismatch"), std::string::npos);
  EXPECT_NE(errors.at("infinite_logit").find("non-finite input"), std::string::npos);
}

TEST(Exercises, AnswersMatchTheHandDerivations) {
  const ch16::Exercises& x = ch16_evidence().exercises;
  // 1: both positions read row 1; the ln 2 parts cancel, the second column adds.
  ch16_expect_near(x.repeated_table_gradient, {0, 0, 0, 1.0 / 4, 0, 0}, 1e-15, "gE");
  // 2: SiLU(0) = 0·σ(0) = 0, SiLU'(0) = σ(0) = 1/2.
  EXPECT_EQ(x.silu_at_zero, 0.0);
  EXPECT_EQ(x.silu_slope_at_zero, 0.5);
  // 3: equal logits: every probability 1/3, loss ln 3.
  EXPECT_NEAR(x.uniform_loss, std::log(3.0), 1e-15);
}

// The reference file: one map of fields per CASE line.
std::vector<std::map<std::string, std::string>> ch16_reference() {
  std::vector<std::map<std::string, std::string>> out;
  for (auto& record : llmfs::testing::read_keyed_records(
           "tests/reference/data/autograd/ch16_model_ops.txt"))
    out.push_back(std::move(record.fields));
  return out;
}

template <class T>
std::vector<T> ch16_numbers(const std::string& text) {
  std::vector<T> out;
  std::istringstream parts(text);
  for (std::string item; std::getline(parts, item, ',');)
    out.push_back(static_cast<T>(std::stod(item)));
  return out;
}

Tensor ch16_tensor(const std::string& shape, const std::string& values) {
  const auto dims = ch16_numbers<std::size_t>(shape);
  return Tensor::from(Shape(dims), ch16_numbers<double>(values)).value();
}

std::expected<TensorValue, AutogradError> ch16_apply(
    const std::map<std::string, std::string>& c, const TensorValue& x) {
  const std::string& op = c.at("op");
  if (op == "silu") return silu(x);
  if (op == "log_softmax") return log_softmax_last_axis(x);
  if (op == "mean") return mean(x);
  const auto dims = ch16_numbers<std::size_t>(c.at("ids_shape"));
  const TokenGrid grid{dims[0], dims[1],
                       ch16_numbers<llmfs::text::TokenId>(c.at("ids"))};
  return op == "embedding" ? embedding(x, grid) : cross_entropy(x, grid);
}

TEST(Reference, EveryOpMatchesPyTorchFloat64ValuesAndGradients) {
  const auto cases = ch16_reference();
  ASSERT_EQ(cases.size(), 11u);
  for (const auto& c : cases) {
    Tape tape;
    const TensorValue x = tape.parameter(ch16_tensor(c.at("shape"), c.at("input")));
    const TensorValue y = ch16_apply(c, x).value();
    if (c.contains("weights")) {
      const TensorValue w =
          tape.constant(ch16_tensor(c.at("weights_shape"), c.at("weights")));
      const TensorValue loss = sum(multiply(y, w).value()).value();
      ASSERT_TRUE(backward(loss, Tensor::scalar(1.0)).has_value());
    } else {
      ASSERT_TRUE(backward(y, Tensor::scalar(1.0)).has_value());
    }
    const Tensor value = y.value().value();
    const Tensor gradient = x.gradient().value();
    ch16_expect_near({value.values().begin(), value.values().end()},
                     ch16_numbers<double>(c.at("value")), 1e-13,
                     c.at("name") + " value");
    ch16_expect_near({gradient.values().begin(), gradient.values().end()},
                     ch16_numbers<double>(c.at("gradient")), 1e-13,
                     c.at("name") + " gradient");
  }
}

}  // namespace
