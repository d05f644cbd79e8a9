// Chapter 14: the chapter's claims. Expected values are derived by hand beside each
// assertion, or read from the PyTorch reference
// tests/reference/data/autograd/ch14_scalar_autodiff.txt
// (make_scalar_autodiff_reference.py), never taken from the code under test.
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "evidence.hpp"
#include "fixture.hpp"
#include "support/records.hpp"

namespace {

const ch14::Evidence& ch14_evidence() {
  static const ch14::Evidence e = [] {
    auto gathered = ch14::gather();
    EXPECT_TRUE(gathered.has_value()) << fmt::format("{}", gathered.error());
    return gathered.value_or(ch14::Evidence{});
  }();
  return e;
}

std::vector<double> ch14_numbers(const std::string& text) {
  std::vector<double> out;
  std::istringstream parts(text);
  for (std::string item; std::getline(parts, item, ',');)
    out.push_back(std::stod(item));
  return out;
}

// The reference's expressions by name: fields of `EXPR|name=...|inputs=...|...`.
const std::map<std::string, std::map<std::string, std::string>>& ch14_reference() {
  static const auto records = [] {
    std::map<std::string, std::map<std::string, std::string>> out;
    for (auto& record : llmfs::testing::read_keyed_records(
             "tests/reference/data/autograd/ch14_scalar_autodiff.txt"))
      out[record.fields.at("name")] = std::move(record.fields);
    return out;
  }();
  return records;
}

const ch14::Differentiated& ch14_case(const std::string& name) {
  for (const auto& d : ch14_evidence().cases)
    if (d.name == name) return d;
  ADD_FAILURE() << "no case " << name;
  static const ch14::Differentiated none;
  return none;
}

TEST(Ch14Prediction, FixtureTapeByHand) {
  // a·b + a at (2, −3): nodes a, b, a·b = −6 (locals b = −3, a = 2), a·b + a = −4
  // (locals 1, 1). Backward: adjoint 1 at the output, 1 into a·b and 1 into a; a·b
  // sends −3·1 into a and 2·1 into b. So ∂f/∂a = 1 + (−3) = −2 and ∂f/∂b = 2.
  const auto& d = ch14_case("fixture");
  ASSERT_EQ(d.nodes.size(), 4u);
  EXPECT_EQ(d.value, -4.0);
  EXPECT_EQ(d.nodes[2].op, "mul");
  EXPECT_EQ(d.nodes[2].local, (std::array<double, 2>{-3.0, 2.0}));
  EXPECT_EQ(d.nodes[3].parents, (std::array<std::size_t, 2>{2, 0}));
  EXPECT_EQ(d.adjoints, (std::vector<double>{-2.0, 2.0, 1.0, 1.0}));
  EXPECT_EQ(d.gradient, (std::vector<double>{-2.0, 2.0}));
}

TEST(Ch14Cases, SquareSigmoidAndNeuronByHand) {
  // d(x²)/dx = 2x = 6 at 3, exactly.
  EXPECT_EQ(ch14_case("square").gradient, std::vector<double>{6.0});
  // σ'(x) = σ(x)(1 − σ(x)); σ(0.5) = 1/(1 + e^-0.5).
  const double s = 1.0 / (1.0 + std::exp(-0.5));
  EXPECT_NEAR(ch14_case("sigmoid").value, s, 1e-15);
  EXPECT_NEAR(ch14_case("sigmoid").gradient[0], s * (1.0 - s), 1e-15);
  // z = 1·0.5 + (−2)·0.25 + 0.1 = 0.1; ∂/∂(x1, w1, x2, w2, b) = (1 − tanh² z)·(w1, x1,
  // w2, x2, 1).
  const double d = 1.0 - std::tanh(0.1) * std::tanh(0.1);
  const std::vector<double> expected{d * 0.5, d * 1.0, d * 0.25, d * -2.0, d};
  const auto& g = ch14_case("neuron").gradient;
  ASSERT_EQ(g.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i)
    EXPECT_NEAR(g[i], expected[i], 1e-15) << i;
  EXPECT_EQ(ch14_case("neuron").nodes.size(), 10u);  // 5 inputs, 2 mul, 2 add, tanh
}

TEST(Ch14Cases, EveryCaseMatchesPyTorch) {
  // torch.autograd in float64 runs the same operations in the same order; each local
  // derivative is one or two roundings, so 1e-14 relative is generous.
  for (const auto& d : ch14_evidence().cases) {
    const auto& ref = ch14_reference().at(d.name);
    EXPECT_EQ(d.point, ch14_numbers(ref.at("inputs"))) << d.name;
    EXPECT_NEAR(d.value, std::stod(ref.at("value")), 1e-14) << d.name;
    const auto gradient = ch14_numbers(ref.at("gradient"));
    ASSERT_EQ(d.gradient.size(), gradient.size()) << d.name;
    for (std::size_t i = 0; i < gradient.size(); ++i)
      EXPECT_NEAR(d.gradient[i], gradient[i],
                  1e-14 * std::max(1.0, std::abs(gradient[i])))
          << d.name << " input " << i;
  }
}

TEST(Ch14Cases, EveryCasePassesTheChapter13Checker) {
  for (const auto& d : ch14_evidence().cases) {
    EXPECT_TRUE(d.check.passed()) << d.name;
    EXPECT_EQ(d.check.coordinates(), d.point.size()) << d.name;
    EXPECT_LT(d.check.max_abs_error(), 1e-9) << d.name;  // ten digits, chapter 13
  }
}

TEST(Ch14Errors, EachRefusalNamesWhatWasWrong) {
  const std::map<std::string, std::string> expected{
      {"log_negative", "log: log of a non-positive value (node 0 has value -1)"},
      {"log_zero", "log: log of a non-positive value (node 1 has value 0)"},
      {"divide_by_zero", "div: division by zero (node 1 is 0)"},
      {"released_tape", "add: value is not on this tape (node 0 of another tape)"},
      {"foreign_backward",
       "backward: value is not on this tape (node 0 of another tape)"},
  };
  const auto& errors = ch14_evidence().errors;
  ASSERT_EQ(errors.size(), expected.size());
  for (const auto& [name, text] : errors)
    EXPECT_EQ(text, expected.at(name)) << name;
}

TEST(Ch14Exercises, AnswersMatchTheHandDerivations) {
  const auto& x = ch14_evidence().exercises;
  // 1. x·x·x at 2: 8, and 3x² = 12 (x used three times, by two products).
  EXPECT_EQ(x.cube.value, 8.0);
  EXPECT_EQ(x.cube.gradient, std::vector<double>{12.0});
  EXPECT_TRUE(x.cube.check.passed());
  // 2. Neuron: 5 inputs + 2 mul + 2 add + tanh = 10 nodes; backward updates one adjoint
  //    per parent: 2 + 2 + 2 + 2 + 1 = 9; a gradient check evaluates f twice per input:
  //    10 whole evaluations.
  EXPECT_EQ(x.neuron_nodes, 10u);
  EXPECT_EQ(x.neuron_multiply_adds, 9u);
  EXPECT_EQ(x.neuron_evaluations, 10u);
  // 3. With = instead of +=, a's adjoint is overwritten by the product's share b = −3:
  //    gradient (−3, 2) instead of (−2, 2); the checker fails it by exactly 1.
  EXPECT_EQ(x.overwritten, (std::vector<double>{-3.0, 2.0}));
  EXPECT_FALSE(x.overwritten_check.passed());
  EXPECT_NEAR(x.overwritten_check.max_abs_error(), 1.0, 1e-8);
}

}  // namespace
