// Chapter 15: the chapter's claims. Expected values are derived by hand beside each
// assertion, or read from the PyTorch reference
// tests/reference/data/autograd/ch15_tape.txt (make_tape_reference.py), never taken
// from the code under test.
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/autograd/tape_gradcheck.hpp>

#include "evidence.hpp"
#include "fixture.hpp"
#include "support/records.hpp"

namespace {

using ch15::Shape;
using ch15::Tensor;

const ch15::Evidence& ch15_evidence() {
  static const ch15::Evidence e = [] {
    auto gathered = ch15::gather();
    EXPECT_TRUE(gathered.has_value()) << fmt::format("{}", gathered.error());
    return gathered.value_or(ch15::Evidence{});
  }();
  return e;
}

Tensor ch15_t(Shape shape, std::vector<double> values) {
  return Tensor::from(std::move(shape), std::move(values)).value();
}

TEST(Ch15Prediction, FixtureLossAndGradientsByHand) {
  // X·W = [[1·1 + 2·(−1), 1·0 + 2·1], [3·1 + (−1)(−1), 3·0 + (−1)·1]] =
  // [[−1,2],[4,−1]]; Y = X·W + b = [[0,2],[5,−1]]; loss = 0 + 4 + 25 + 1 = 30. G =
  // ∂loss/∂Y = 2Y =
  // [[0,4],[10,−2]]; ∂W = Xᵀ·G = [[1·0 + 3·10, 1·4 + 3·(−2)], [2·0 − 1·10, 2·4 −
  // 1·(−2)]] = [[30,−2],[−10,10]]; ∂X = G·Wᵀ = [[0,4],[10,−12]]; ∂b = column sums of G
  // = [10,2].
  const ch15::FixtureRun& f = ch15_evidence().fixture;
  EXPECT_EQ(f.loss, 30.0);
  ASSERT_EQ(f.gradients.size(), 7u);
  EXPECT_EQ(*f.gradients[0], ch15_t(Shape{2, 2}, {0, 4, 10, -12}));
  EXPECT_EQ(*f.gradients[1], ch15_t(Shape{2, 2}, {30, -2, -10, 10}));
  EXPECT_EQ(*f.gradients[2], ch15_t(Shape{2}, {10, 2}));
  EXPECT_TRUE(f.check.passed());
  EXPECT_EQ(f.check.coordinates(), 10u);  // 4 + 4 + 2
}

TEST(Ch15Prediction, TapeNodesAndBackwardOrderByHand) {
  // Three parameters, then matmul(0,1), add(3,2), multiply(4,4), sum(5). Backward
  // visits every node with a closure from the loss down: 6, 5, 4, 3 (leaves have none).
  const ch15::FixtureRun& f = ch15_evidence().fixture;
  ASSERT_EQ(f.nodes.size(), 7u);
  const std::vector<std::string> ops{"parameter", "parameter", "parameter", "matmul",
                                     "add",       "multiply",  "sum"};
  const std::vector<std::vector<std::size_t>> parents{{},     {},     {}, {0, 1},
                                                      {3, 2}, {4, 4}, {5}};
  for (std::size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(f.nodes[i].op, ops[i]) << i;
    EXPECT_EQ(f.nodes[i].parents, parents[i]) << i;
    EXPECT_TRUE(f.nodes[i].requires_gradient) << i;
  }
  EXPECT_EQ(f.nodes[6].shape, Shape{});
  EXPECT_EQ(f.order, (std::vector<std::size_t>{6, 5, 4, 3}));
}

TEST(Ch15Accumulation, ValueUsedTwiceReceivesBothShares) {
  // Y⊙Y has parents [4,4]; upstream from the sum is all ones, and each parent slot
  // sends 1⊙Y, so node 4 accumulates Y + Y = 2Y = [[0,4],[10,−2]]; one share would be
  // Y.
  const ch15::FixtureRun& f = ch15_evidence().fixture;
  EXPECT_EQ(*f.gradients[5], Tensor::full(Shape{2, 2}, 1.0));
  EXPECT_EQ(*f.gradients[4], ch15_t(Shape{2, 2}, {0, 4, 10, -2}));
  // add passes its upstream unchanged to the [2,2] parent ...
  EXPECT_EQ(*f.gradients[3], ch15_t(Shape{2, 2}, {0, 4, 10, -2}));
}

TEST(Ch15Accumulation, EachParentSlotsShareAsTheDiagramDrawsIt) {
  // The diagram's SHARE records: the square's two slots each send 1⊙Y = [[0,2],[5,−1]]
  // into node 4 (by hand: Y from the prediction), and add sends 2Y to node 3 and 2Y
  // summed over the rows, [10,2], to node 2. Seven edges in backward order.
  const auto& shares = ch15_evidence().fixture.shares;
  ASSERT_EQ(shares.size(), 7u);
  const Tensor y = ch15_t(Shape{2, 2}, {0, 2, 5, -1});
  EXPECT_EQ(shares[0].value, Tensor::full(Shape{2, 2}, 1.0));
  for (std::size_t i : {1u, 2u}) {
    EXPECT_EQ(shares[i].node, 5u) << i;
    EXPECT_EQ(shares[i].slot, i - 1) << i;
    EXPECT_EQ(shares[i].to, 4u) << i;
    EXPECT_EQ(shares[i].value, y) << i;
  }
  EXPECT_EQ(shares[3].value, ch15_t(Shape{2, 2}, {0, 4, 10, -2}));
  EXPECT_EQ(shares[4].to, 2u);
  EXPECT_EQ(shares[4].value, ch15_t(Shape{2}, {10, 2}));
  EXPECT_EQ(shares[5].value, ch15_t(Shape{2, 2}, {0, 4, 10, -12}));
  EXPECT_EQ(shares[6].value, ch15_t(Shape{2, 2}, {30, -2, -10, 10}));
}

TEST(Ch15Broadcast, BiasGradientIsTheUpstreamSummedOverRows) {
  // ... and sum_to's it to b's shape [2]: [0 + 10, 4 + (−2)] = [10, 2].
  EXPECT_EQ(*ch15_evidence().fixture.gradients[2], ch15_t(Shape{2}, {10, 2}));
}

TEST(Ch15Seeds, SeedTwoDoublesAndSeedAtYEqualsSeedOneAtLoss) {
  // Backward is linear in the seed: seed 2 doubles every gradient exactly.
  const auto& e = ch15_evidence();
  EXPECT_EQ(e.seed_two[1], ch15_t(Shape{2, 2}, {60, -4, -20, 20}));
  EXPECT_EQ(e.seed_two[2], ch15_t(Shape{2}, {20, 4}));
  // Seeding Y with ∂loss/∂Y = 2Y computes the same vector-Jacobian products.
  EXPECT_EQ(e.seeded_at_y[0], ch15_t(Shape{2, 2}, {0, 4, 10, -12}));
  EXPECT_EQ(e.seeded_at_y[1], ch15_t(Shape{2, 2}, {30, -2, -10, 10}));
  EXPECT_TRUE(e.seeded_at_y_identical);
}

TEST(Ch15Replay, SameInputsGiveBitwiseIdenticalGradients) {
  // X [3,4], W [4,2], b [2]: 12 + 8 + 2 = 22 gradient values compared bit by bit.
  EXPECT_EQ(ch15_evidence().replay_elements, 22u);
  EXPECT_TRUE(ch15_evidence().replay_identical);
}

TEST(Ch15Checks, EveryOpPassesChapter13sChecker) {
  // One case per op; coordinates = the inputs' element counts, by hand.
  const std::map<std::string, std::size_t> coordinates{
      {"add", 6 + 3},    {"subtract", 6 + 2},    {"multiply", 6 + 2},
      {"scale", 6},      {"matmul", 12 + 6},     {"reshape", 6},
      {"transpose", 12}, {"slice_last_axis", 8}, {"sum", 6}};
  const auto& checks = ch15_evidence().checks;
  ASSERT_EQ(checks.size(), coordinates.size());
  for (const auto& c : checks) {
    EXPECT_TRUE(c.report.passed()) << c.op << " " << c.report.max_abs_error();
    EXPECT_LT(c.report.max_abs_error(), 1e-8) << c.op;
    EXPECT_EQ(c.report.coordinates(), coordinates.at(c.op)) << c.op;
  }
}

TEST(Ch15Errors, RefusalsAreTypedErrorsNotCrashes) {
  const std::map<std::string, std::string> expected{
      {"seed_shape",
       "backward: upstream seed shape differs from output shape (output [] seed "
       "[2,2])"},
      {"different_tapes", "add: inputs live on different tapes (nodes 2 and 0)"},
      {"matmul_shape",
       "matmul: matmul: inner dimension mismatch: [2,2] and [3,2] (2 != 3)"},
      {"released_value", "value: released input (node 1)"},
      {"released_op", "add: released input (node 1)"},
      {"released_backward", "backward: released input (node 6)"}};
  const auto& errors = ch15_evidence().errors;
  ASSERT_EQ(errors.size(), expected.size());
  for (const auto& [name, text] : errors)
    EXPECT_EQ(text, expected.at(name)) << name;
}

TEST(Ch15Exercises, AnswersByHand) {
  const ch15::Exercises& x = ch15_evidence().exercises;
  // 1: a constant has no gradient; W and b are unaffected.
  EXPECT_EQ(x.constant_x_error,
            "gradient: value does not require a gradient (node 0 (constant))");
  EXPECT_EQ(x.constant_x_wb[0], ch15_t(Shape{2, 2}, {30, -2, -10, 10}));
  EXPECT_EQ(x.constant_x_wb[1], ch15_t(Shape{2}, {10, 2}));
  // 2: G = ones; ∂W[i][j] = Σ_r X[r][i] = [[4,4],[1,1]]; ∂X[r][k] = Σ_j W[k][j]
  // = [[1,0],[1,0]]; ∂b = two rows = [2,2].
  EXPECT_EQ(x.linear[0], ch15_t(Shape{2, 2}, {1, 0, 1, 0}));
  EXPECT_EQ(x.linear[1], ch15_t(Shape{2, 2}, {4, 4, 1, 1}));
  EXPECT_EQ(x.linear[2], ch15_t(Shape{2}, {2, 2}));
  // 3: two passes add up: 2·∂W; the checker's worst error is |60 − 30| = 30.
  EXPECT_EQ(x.twice[1], ch15_t(Shape{2, 2}, {60, -4, -20, 20}));
  EXPECT_FALSE(x.twice_check.passed());
  EXPECT_NEAR(x.twice_check.max_abs_error(), 30.0, 1e-6);
}

// --- the PyTorch reference -------------------------------------------------------

std::vector<std::string> ch15_split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::istringstream parts(text);
  for (std::string item; std::getline(parts, item, sep);)
    out.push_back(item);
  if (!text.empty() && text.back() == sep) out.emplace_back();
  return out;
}

std::vector<double> ch15_numbers(const std::string& text) {
  std::vector<double> out;
  for (const std::string& item : ch15_split(text, ','))
    if (!item.empty()) out.push_back(std::stod(item));
  return out;
}

Shape ch15_shape(const std::string& text) {
  std::vector<std::size_t> dims;
  if (text != "scalar")
    for (const std::string& d : ch15_split(text, 'x'))
      dims.push_back(std::stoul(d));
  return Shape(dims);
}

std::vector<std::map<std::string, std::string>> ch15_reference() {
  std::vector<std::map<std::string, std::string>> out;
  for (auto& record : llmfs::testing::read_keyed_records(
           "tests/reference/data/autograd/ch15_tape.txt"))
    out.push_back(std::move(record.fields));
  return out;
}

TEST(Ch15Reference, EveryOpMatchesPyTorchFloat64) {
  const auto records = ch15_reference();
  ASSERT_EQ(records.size(), 1 + ch15::op_cases().size());
  double worst = 0.0;
  for (const auto& r : records) {
    const std::string& name = r.at("op");
    const auto shapes = ch15_split(r.at("shapes"), ';');
    const auto values = ch15_split(r.at("inputs"), ';');
    std::vector<Tensor> inputs;
    for (std::size_t i = 0; i < shapes.size(); ++i)
      inputs.push_back(ch15_t(ch15_shape(shapes[i]), ch15_numbers(values[i])));
    llmfs::autograd::LossBuilder loss = ch15::fixture_loss;
    if (name != "fixture") {
      const ch15::OpCase* c = nullptr;
      for (const auto& candidate : ch15::op_cases())
        if (candidate.name == name) c = &candidate;
      ASSERT_NE(c, nullptr) << name;
      ASSERT_EQ(c->shapes.size(), shapes.size()) << name;
      for (std::size_t i = 0; i < shapes.size(); ++i)
        EXPECT_EQ(c->shapes[i], ch15_shape(shapes[i])) << name;
      const auto weights = ch15_numbers(r.at("weights"));
      loss = [c, weights](llmfs::autograd::Tape& tape,
                          std::span<const llmfs::autograd::TensorValue> in)
          -> std::expected<llmfs::autograd::TensorValue,
                           llmfs::autograd::AutogradError> {
        auto y = c->op(in);
        if (!y) return y;
        auto product =
            llmfs::autograd::multiply(*y, tape.constant(ch15_t(y->shape(), weights)));
        if (!product) return product;
        return llmfs::autograd::sum(*product);
      };
    }
    const auto value = llmfs::autograd::evaluate_loss(loss, inputs);
    ASSERT_TRUE(value.has_value()) << name;
    EXPECT_NEAR(value->values()[0], std::stod(r.at("loss")), 1e-14) << name;
    const auto gradients = llmfs::autograd::tape_gradients(loss, inputs);
    ASSERT_TRUE(gradients.has_value()) << name;
    const auto expected = ch15_split(r.at("gradients"), ';');
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const auto want = ch15_numbers(expected[i]);
      const auto got = (*gradients)[i].values();
      ASSERT_EQ(got.size(), want.size()) << name;
      for (std::size_t j = 0; j < want.size(); ++j) {
        worst = std::max(worst, std::abs(got[j] - want[j]));
        if (name == "fixture") {
          EXPECT_EQ(got[j], want[j]) << "input " << i;  // integers: exact
        }
        EXPECT_NEAR(got[j], want[j], 1e-14 * std::max(1.0, std::abs(want[j])))
            << name << " input " << i << " element " << j;
      }
    }
  }
  RecordProperty("max_abs_difference", fmt::format("{:.3e}", worst));
}

TEST(Ch15Reference, StoredInputsAreTheDemosSplitMix64Stream) {
  // The reference draws its inputs from the same seeds as check_every_op(): the C++
  // generator reproduces Python's SplitMix64 stream bit for bit.
  const auto records = ch15_reference();
  for (std::size_t k = 0; k + 1 < records.size(); ++k) {
    const auto values = ch15_split(records[k + 1].at("inputs"), ';');
    for (std::size_t i = 0; i < values.size(); ++i) {
      const auto want = ch15_numbers(values[i]);
      EXPECT_EQ(ch15::uniform_values(1500 + 10 * k + i, want.size()), want)
          << records[k + 1].at("op");
    }
  }
}

}  // namespace
