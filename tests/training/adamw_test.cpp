// Unit tests of training/adamw (Chapter 22): the hand fixture, a property test against
// the paper's formula written naively, the decay rule, validation before mutation, and
// the state's exact save and restore.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/training/adamw.hpp>

namespace {

using namespace llmfs::training;
using llmfs::SplitMix64;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

Tensor vec(std::vector<double> v) {
  const std::size_t n = v.size();
  return Tensor::from(Shape{n}, std::move(v)).value();
}

TEST(AdamW, ConstantGradientMovesEachWeightByTheLearningRate) {
  // ε = 0 and a constant g: m̂ = g and v̂ = g², so each step is −η·sign(g), after the
  // decay θ(1 − ηλ). Weight (1, −2) with λ = 0.1, gain 1 with λ = 0; η = 0.1.
  auto adamw =
      AdamW::create({0.1, 0.9, 0.999, 0.0}, {{"decay", 0.1, {{"w", Shape{2}}}},
                                             {"no_decay", 0.0, {{"gain", Shape{1}}}}})
          .value();
  std::vector<Tensor> values = {vec({1.0, -2.0}), vec({1.0})};
  const std::vector<Tensor> grads = {vec({0.5, -0.25}), vec({3.0})};
  ASSERT_TRUE(adamw.step(values, grads).has_value());
  EXPECT_NEAR(values[0].values()[0], 0.89, 1e-15);
  EXPECT_NEAR(values[0].values()[1], -1.88, 1e-15);
  EXPECT_NEAR(values[1].values()[0], 0.9, 1e-15);
  ASSERT_TRUE(adamw.step(values, grads).has_value());
  EXPECT_NEAR(values[0].values()[0], 0.89 * 0.99 - 0.1, 1e-15);
  EXPECT_NEAR(values[0].values()[1], -1.88 * 0.99 + 0.1, 1e-15);
  EXPECT_NEAR(values[1].values()[0], 0.8, 1e-15);
  EXPECT_EQ(adamw.state().step, 2u);
}

// The update as Loshchilov and Hutter write it (their Algorithm 2, schedule multiplier
// 1, decay inside the learning rate as PyTorch applies it): one scalar, plain formula.
struct Naive {
  double theta, m = 0, v = 0;
  void step(double g, int t, const AdamWHyper& h, double lambda) {
    m = h.beta1 * m + (1 - h.beta1) * g;
    v = h.beta2 * v + (1 - h.beta2) * g * g;
    const double m_hat = m / (1 - std::pow(h.beta1, t));
    const double v_hat = v / (1 - std::pow(h.beta2, t));
    theta = theta -
            h.learning_rate * (m_hat / (std::sqrt(v_hat) + h.epsilon) + lambda * theta);
  }
};

TEST(AdamW, RandomProblemsAgreeWithThePapersFormula) {
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    SplitMix64 rng(seed);
    const AdamWHyper h{0.001 + 0.1 * rng.next_unit(), 0.5 + 0.49 * rng.next_unit(),
                       0.9 + 0.0999 * rng.next_unit(), 1e-8};
    const double lambda = 0.2 * rng.next_unit();
    const std::size_t n = 1 + seed % 5;
    auto adamw = AdamW::create(h, {{"g", lambda, {{"p", Shape{n}}}}}).value();
    std::vector<Tensor> values = {Tensor::zeros(Shape{n})};
    std::vector<Naive> naive;
    for (std::size_t k = 0; k < n; ++k) {
      values[0].mutable_values()[k] = 2 * rng.next_unit() - 1;
      naive.push_back({values[0].values()[k]});
    }
    for (int t = 1; t <= 30; ++t) {
      std::vector<Tensor> grads = {Tensor::zeros(Shape{n})};
      for (std::size_t k = 0; k < n; ++k)
        grads[0].mutable_values()[k] = 4 * rng.next_unit() - 2;
      ASSERT_TRUE(adamw.step(values, grads).has_value());
      for (std::size_t k = 0; k < n; ++k) {
        naive[k].step(grads[0].values()[k], t, h, lambda);
        EXPECT_NEAR(values[0].values()[k], naive[k].theta, 1e-12) << seed << " " << t;
      }
    }
  }
}

TEST(AdamW, ARefusedStepChangesNothing) {
  auto adamw =
      AdamW::create({}, {{"all", 0.1, {{"a", Shape{2}}, {"b", Shape{3}}}}}).value();
  std::vector<Tensor> values = {vec({1, 2}), vec({3, 4, 5})};
  ASSERT_TRUE(
      adamw.step(values, std::vector<Tensor>{vec({1, 1}), vec({1, 1, 1})}).has_value());
  const AdamWState state = adamw.state();
  const std::vector<Tensor> before = values;
  const auto refused = [&](std::vector<Tensor> grads) {
    const auto r = adamw.step(values, grads);
    EXPECT_FALSE(r.has_value());
    EXPECT_EQ(adamw.state(), state);
    EXPECT_EQ(values, before);
    return r.error().code;
  };
  // The first parameter's gradient is fine; the second's is wrong: still nothing moves.
  EXPECT_EQ(refused({vec({1, 1}), vec({1, 1})}), OptimizerErrorCode::shape_mismatch);
  EXPECT_EQ(refused({vec({1, 1})}), OptimizerErrorCode::count_mismatch);
  EXPECT_EQ(refused({vec({1, 1}), vec({1, NAN, 1})}),
            OptimizerErrorCode::non_finite_gradient);
  EXPECT_EQ(refused({vec({1, 1}), vec({1, 1, INFINITY})}),
            OptimizerErrorCode::non_finite_gradient);
  std::vector<Tensor> short_values = {vec({1, 2})};
  EXPECT_EQ(adamw.step(short_values, before).error().code,
            OptimizerErrorCode::count_mismatch);
}

TEST(AdamW, RestoredStateContinuesBitForBit) {
  const std::vector<ParameterGroup> groups = {{"all", 0.01, {{"a", Shape{3}}}}};
  auto first = AdamW::create({0.01}, groups).value();
  std::vector<Tensor> a = {vec({0.3, -0.7, 1.1})};
  SplitMix64 rng(3);
  const auto grad = [&] {
    return std::vector<Tensor>{
        vec({rng.next_unit() - 0.5, rng.next_unit(), -rng.next_unit()})};
  };
  for (int t = 0; t < 5; ++t)
    ASSERT_TRUE(first.step(a, grad()).has_value());
  auto second = AdamW::create({0.01}, groups).value();
  ASSERT_TRUE(second.restore(first.state()).has_value());
  std::vector<Tensor> b = a;
  for (int t = 0; t < 5; ++t) {
    const auto g = grad();
    ASSERT_TRUE(first.step(a, g).has_value());
    ASSERT_TRUE(second.step(b, g).has_value());
  }
  EXPECT_EQ(a, b);
  EXPECT_EQ(first.state(), second.state());
  AdamWState wrong = first.state();
  wrong.second_moment[0] = vec({1, 2});
  EXPECT_EQ(second.restore(wrong).error().code, OptimizerErrorCode::shape_mismatch);
  EXPECT_EQ(second.state(), first.state());
}

TEST(AdamW, CreateRefusesBadConfigurations) {
  const auto code = [](AdamWHyper h, std::vector<ParameterGroup> g) {
    return AdamW::create(h, std::move(g)).error().code;
  };
  const std::vector<ParameterGroup> ok = {{"g", 0.0, {{"p", Shape{1}}}}};
  EXPECT_EQ(code({0.0}, ok), OptimizerErrorCode::bad_hyperparameter);
  EXPECT_EQ(code({1e-3, 1.0}, ok), OptimizerErrorCode::bad_hyperparameter);
  EXPECT_EQ(code({1e-3, 0.9, -0.1}, ok), OptimizerErrorCode::bad_hyperparameter);
  EXPECT_EQ(code({1e-3, 0.9, 0.999, NAN}, ok), OptimizerErrorCode::bad_hyperparameter);
  EXPECT_EQ(code({}, {{"g", -1.0, {}}}), OptimizerErrorCode::bad_hyperparameter);
  EXPECT_EQ(code({}, {{"", 0.0, {}}}), OptimizerErrorCode::empty_name);
  EXPECT_EQ(code({}, {{"g", 0.0, {{"", Shape{1}}}}}), OptimizerErrorCode::empty_name);
  EXPECT_EQ(code({}, {{"g", 0.0, {{"p", Shape{1}}}}, {"h", 0.0, {{"p", Shape{2}}}}}),
            OptimizerErrorCode::duplicate_name);
  EXPECT_EQ(code({}, {{"g", 0.0, {}}, {"g", 0.0, {}}}),
            OptimizerErrorCode::duplicate_name);
  EXPECT_EQ(fmt::format("{}", AdamW::create({0.0}, ok).error()),
            "adamw config: bad hyperparameter (lr=0 beta1=0.9 beta2=0.999 eps=1e-08)");
}

// A schedule sets η between steps: the first step moves a weight by η (the bias-
// corrected first step), so after setting η = 0.25 the weight moves by exactly 0.25.
// A refused η leaves the old one.
TEST(AdamW, SetLearningRateTakesEffectAndRefusesBadValues) {
  auto adamw = AdamW::create({0.5}, {{"g", 0.0, {{"p", Shape{1}}}}}).value();
  for (const double bad : {0.0, -1e-3, double(NAN), double(INFINITY)}) {
    const auto refused = adamw.set_learning_rate(bad);
    ASSERT_FALSE(refused.has_value());
    EXPECT_EQ(refused.error().code, OptimizerErrorCode::bad_hyperparameter);
    EXPECT_EQ(adamw.hyper().learning_rate, 0.5);
  }
  ASSERT_TRUE(adamw.set_learning_rate(0.25).has_value());
  std::vector<Tensor> values = {vec({1.0})};
  ASSERT_TRUE(adamw.step(values, std::vector<Tensor>{vec({3.0})}).has_value());
  EXPECT_NEAR(values[0].values()[0], 0.75, 1e-8);
}

TEST(AdamW, ZeroGradientWithoutDecayLeavesTheWeightExactly) {
  auto adamw = AdamW::create({}, {{"g", 0.0, {{"p", Shape{2}}}}}).value();
  std::vector<Tensor> values = {vec({0.25, -3.0})};
  ASSERT_TRUE(adamw.step(values, std::vector<Tensor>{vec({0, 0})}).has_value());
  EXPECT_EQ(values[0], vec({0.25, -3.0}));
}

TEST(DecayGroups, MatricesDecayGainsDoNotAndTheOrderIsKept) {
  // The course's rule on a model's named parameters: rank ≥ 2 decays, rank ≤ 1 does
  // not.
  llmfs::autograd::Tape tape;
  std::vector<llmfs::nn::NamedParameter> named;
  for (const auto& [n, shape] : {std::pair{"token_embedding.weight", Shape{8, 4}},
                                 {"block.norm.gain", Shape{4}},
                                 {"block.ffn.up.weight", Shape{4, 16}},
                                 {"final_norm.gain", Shape{4}}})
    named.push_back({n, tape.parameter(Tensor::zeros(shape))});
  const auto parameters = llmfs::nn::NamedParameters::create(std::move(named)).value();
  const auto groups = decay_groups(parameters, 0.1);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].name, "decay");
  EXPECT_EQ(groups[0].weight_decay, 0.1);
  ASSERT_EQ(groups[0].parameters.size(), 2u);
  EXPECT_EQ(groups[0].parameters[0].name, "token_embedding.weight");
  EXPECT_EQ(groups[0].parameters[1].name, "block.ffn.up.weight");
  EXPECT_EQ(groups[0].parameters[1].shape, (Shape{4, 16}));
  EXPECT_EQ(groups[1].name, "no_decay");
  EXPECT_EQ(groups[1].weight_decay, 0.0);
  ASSERT_EQ(groups[1].parameters.size(), 2u);
  EXPECT_EQ(groups[1].parameters[0].name, "block.norm.gain");
  EXPECT_EQ(groups[1].parameters[1].name, "final_norm.gain");
  // A model of gains only has one group: an empty group is left out.
  llmfs::autograd::Tape other;
  const auto gains = llmfs::nn::NamedParameters::create(
                         {{"g", other.parameter(Tensor::zeros(Shape{3}))}})
                         .value();
  const auto only = decay_groups(gains, 0.1);
  ASSERT_EQ(only.size(), 1u);
  EXPECT_EQ(only[0].name, "no_decay");
  EXPECT_TRUE(AdamW::create({}, groups).has_value());
}

}  // namespace
