// Chapter 22's claims: the fixture's values derived by hand in chapters/22-adamw.md,
// the variants and the random problem against torch.optim.AdamW and torch.optim.Adam
// float64 (tests/reference/data/training/ch22_adamw.txt, make_adamw_reference.py)
// within the chapter's rounding bound, the decay rule, the refusals and the exercises.

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/training/adamw.hpp>

#include "evidence.hpp"
#include "support/records.hpp"

namespace {

using namespace llmfs::training;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

const ch22::Evidence& ch22_evidence() {
  static const ch22::Evidence e = [] {
    auto gathered = ch22::gather();
    EXPECT_TRUE(gathered.has_value());
    return gathered.value_or(ch22::Evidence{});
  }();
  return e;
}

std::vector<double> ch22_numbers(const std::string& text) {
  std::vector<double> out;
  std::istringstream parts(text);
  for (std::string item; std::getline(parts, item, ',');)
    out.push_back(std::stod(item));
  return out;
}

TEST(Fixture, EachStepIsDecayThenMinusEtaTimesTheSignOfG) {
  const auto& f = ch22_evidence().fixture;
  ASSERT_EQ(f.weight.size(), 3u);
  // θ ← 0.99·θ − 0.1·sign(g) for the weight; θ ← θ − 0.1 for the gain (g = 3 > 0).
  double w0 = 1.0, w1 = -2.0, gain = 1.0;
  for (std::size_t t = 0; t < 3; ++t) {
    w0 = 0.99 * w0 - 0.1, w1 = 0.99 * w1 + 0.1, gain -= 0.1;
    EXPECT_NEAR(f.weight[t][0], w0, 1e-15 * (1 + std::abs(w0)));
    EXPECT_NEAR(f.weight[t][1], w1, 1e-15 * (1 + std::abs(w1)));
    EXPECT_NEAR(f.gain[t][0], gain, 1e-15 * (1 + gain));
  }
}

TEST(Variants, StepOneByHandAndAgainstPyTorch) {
  const auto& v = ch22_evidence().variants;
  ASSERT_EQ(v.size(), 5u);
  EXPECT_NEAR(v[0][0], 0.99 * 1.0 + 0.1, 1e-15);  // adamw: g = −1
  EXPECT_NEAR(v[1][0], 0.9 * 1.0 + 0.1, 1e-15);   // λ not scaled by η
  EXPECT_NEAR(v[1][2], 1.0, 1e-15);               // 0.9θ + 0.1 = θ at 1
  EXPECT_EQ(v[2][0], v[4][0]);                    // L2 invisible at t = 1
  EXPECT_NE(v[2][1], v[4][1]);                    // ... not at t = 2
  EXPECT_NEAR(v[3][0], 0.99 + 0.1 * 0.1 / std::sqrt(0.001),
              1e-14);  // m/√v, uncorrected
  std::size_t checked = 0;
  for (const auto& r : llmfs::testing::read_keyed_records(
           "tests/reference/data/training/ch22_adamw.txt")) {
    if (r.kind != "VARIANT") continue;
    const std::size_t k = r.fields.at("name") == "adamw"     ? 0
                          : r.fields.at("name") == "adam_l2" ? 2
                                                             : 4;
    const auto want = ch22_numbers(r.fields.at("steps"));
    for (std::size_t t = 0; t < 3; ++t)
      EXPECT_NEAR(v[k][t], want[t], 1e-15 * want[t]);
    ++checked;
  }
  EXPECT_EQ(checked, 3u);
}

TEST(Reference, RandomProblemStaysWithinTheDerivedBoundOfTorch) {
  const auto& r = ch22_evidence().replay;
  EXPECT_EQ(r.parameters, 4u);
  EXPECT_EQ(r.elements, 34u);
  EXPECT_EQ(r.steps, 100u);
  EXPECT_LE(r.step1_max_relative, 1e-15);
  EXPECT_GE(r.smallest_margin, 1.0);  // every kept step, every element: |Δθ| ≤ bound
  EXPECT_LE(r.step100_max_abs, r.step100_bound);
  EXPECT_LE(r.moments_max_relative, 1e-13);
}

TEST(Refusals, NothingChangesAndRestoreIsExact) {
  const auto& e = ch22_evidence();
  EXPECT_TRUE(e.refused_changed_nothing);
  EXPECT_TRUE(e.restore_bit_for_bit);
  ASSERT_EQ(e.errors.size(), 7u);
  for (const auto& [name, text] : e.errors)
    EXPECT_NE(text, "accepted") << name;
  EXPECT_EQ(e.errors[4][1],
            "adamw step: shape mismatch (gradients of linear.weight: [2,1] instead of "
            "[1,2])");
}

TEST(Exercises, AnswersMatchTheirDerivations) {
  const auto& x = ch22_evidence().exercises;
  EXPECT_EQ(x.adam_vs_lambda_zero, 0.0);
  // (1 − ηλ)^n ≤ 1/2 first at n = ⌈ln 2 / −ln(1 − 10⁻⁴)⌉.
  EXPECT_EQ(x.halving_steps,
            static_cast<std::size_t>(std::ceil(std::log(2.0) / -std::log1p(-1e-4))));
  const double gradients[] = {1e-9, 1e-3, 1.0, 1e3};
  for (std::size_t k = 0; k < 4; ++k)  // step 1: η·|g|/(|g| + ε)
    EXPECT_NEAR(x.first_step[k], 0.1 * gradients[k] / (gradients[k] + 1e-8), 1e-15);
}

}  // namespace
