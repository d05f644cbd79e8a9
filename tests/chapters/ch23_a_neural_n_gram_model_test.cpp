// Chapter 23's claims: the fixture's examples, loss and gradients derived by hand in
// chapters/23-a-neural-n-gram-model.md, the central-difference check, seeded random
// models against a plain-loop forward pass, the refusals, the training demo (its
// curve falls, the refused step changes nothing) and the exercises.

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/models/ngram_mlp.hpp>

#include "evidence.hpp"

namespace {

using llmfs::models::NgramBatch;
using llmfs::models::NgramConfig;
using llmfs::models::NgramErrorCode;
using llmfs::models::NgramMlp;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

const ch23::Evidence& ch23_evidence() {
  static const ch23::Evidence e = [] {
    auto gathered = ch23::gather();
    EXPECT_TRUE(gathered.has_value());
    return gathered.value_or(ch23::Evidence{});
  }();
  return e;
}

TEST(Fixture, ExamplesAreEveryTokenAfterBosWithTwoPredecessors) {
  const NgramBatch b =
      llmfs::models::ngram_examples(ch23::kDocuments, 2, ch23::kBos, ch23::kEos);
  EXPECT_EQ(b.contexts.ids, (std::vector<llmfs::text::TokenId>{2, 2, 2, 0, 0, 1}));
  EXPECT_EQ(b.targets.ids, (std::vector<llmfs::text::TokenId>{0, 1, 3}));
}

TEST(Fixture, LossAndGradientsByHand) {
  const auto f = ch23::run_fixture().value();
  // p = [2/5, 1/5, 1/5, 1/5] everywhere: (ln 5/2 + ln 5 + ln 5)/3 = ln(62.5)/3.
  EXPECT_NEAR(f.loss, std::log(62.5) / 3.0, 1e-15);
  // b₂: p − mean one-hot = [2/5 − 1/3, 1/5 − 1/3, 1/5, 1/5 − 1/3].
  const std::vector<double> b2 = {1.0 / 15, -2.0 / 15, 0.2, -2.0 / 15};
  // W₂: only example 2 has tanh(a) ≠ 0 (a = ½): tanh(½)/3 · (p − e_b).
  const double s = std::tanh(0.5) / 3.0;
  const std::vector<double> w2 = {0.4 * s, -0.8 * s, 0.2 * s, 0.2 * s};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(f.gradients[4][i], b2[i], 1e-15);
    EXPECT_NEAR(f.gradients[3][i], w2[i], 1e-15);
  }
  // W₂ = 0 blocks every path back: E, W₁ and b₁ receive exactly zero.
  for (std::size_t k = 0; k < 3; ++k)
    for (double g : f.gradients[k])
      EXPECT_EQ(g, 0.0);
  EXPECT_EQ(f.checked, 15u);
  EXPECT_TRUE(f.check_passed);
  EXPECT_LT(f.check_max_error, 1e-8);
}

// A plain-loop forward pass: the model written once more without tensors or a tape.
double naive_loss(const NgramConfig& c, const std::vector<std::vector<double>>& v,
                  const NgramBatch& b) {
  double total = 0.0;
  for (std::size_t r = 0; r < b.targets.batch; ++r) {
    std::vector<double> hidden(c.hidden_width);
    for (std::size_t j = 0; j < c.hidden_width; ++j) {
      double a = v[2][j];
      for (std::size_t t = 0; t < c.context; ++t)
        for (std::size_t i = 0; i < c.embedding_width; ++i)
          a += v[0][static_cast<std::size_t>(b.contexts.ids[r * c.context + t]) *
                        c.embedding_width +
                    i] *
               v[1][(t * c.embedding_width + i) * c.hidden_width + j];
      hidden[j] = std::tanh(a);
    }
    std::vector<double> z(c.vocab_size);
    double top = -1e300;
    for (std::size_t k = 0; k < c.vocab_size; ++k) {
      z[k] = v[4][k];
      for (std::size_t j = 0; j < c.hidden_width; ++j)
        z[k] += hidden[j] * v[3][j * c.vocab_size + k];
      top = std::max(top, z[k]);
    }
    double sum = 0.0;
    for (double zk : z)
      sum += std::exp(zk - top);
    total += top + std::log(sum) - z[static_cast<std::size_t>(b.targets.ids[r])];
  }
  return total / static_cast<double>(b.targets.batch);
}

TEST(Property, RandomModelsMatchAPlainLoopForwardAndTheScoreSumsIt) {
  llmfs::SplitMix64 rng(2303);
  for (int trial = 0; trial < 20; ++trial) {
    const NgramConfig c{3 + rng.next_u64() % 8, 1 + rng.next_u64() % 4,
                        1 + rng.next_u64() % 5, 1 + rng.next_u64() % 6};
    const NgramMlp model = NgramMlp::create(c, rng).value();
    std::vector<std::vector<llmfs::text::TokenId>> docs(1 + rng.next_u64() % 3);
    for (auto& d : docs)
      for (std::size_t i = rng.next_u64() % 6; i > 0; --i)
        d.push_back(
            static_cast<llmfs::text::TokenId>(rng.next_u64() % (c.vocab_size - 2)));
    const auto ex = llmfs::models::ngram_examples(
        docs, c.context, static_cast<llmfs::text::TokenId>(c.vocab_size - 2),
        static_cast<llmfs::text::TokenId>(c.vocab_size - 1));
    std::vector<std::vector<double>> v;
    for (const Tensor& t : model.values())
      v.emplace_back(t.values().begin(), t.values().end());
    const double expected = naive_loss(c, v, ex);
    const double loss =
        model.forward(ex, false).value().loss.value().value().values()[0];
    EXPECT_NEAR(loss, expected, 1e-13 * (1 + expected)) << "trial " << trial;
    const auto s = llmfs::models::score(model, ex, 1, 2).value();
    EXPECT_EQ(s.tokens, ex.targets.batch);
    EXPECT_NEAR(s.total_nats / static_cast<double>(s.tokens), expected,
                1e-12 * (1 + expected));
  }
}

TEST(Errors, EveryRefusalIsTypedAndChangesNothing) {
  llmfs::SplitMix64 rng(1);
  const auto before = rng;
  EXPECT_EQ(NgramMlp::create({4, 2, 1, 0}, rng).error().code,
            NgramErrorCode::zero_size);
  EXPECT_EQ(rng.next_u64(), llmfs::SplitMix64(before).next_u64());
  auto model = ch23::fixture_model(ch23::kValues[3]).value();
  auto ex = llmfs::models::ngram_examples(ch23::kDocuments, 2, ch23::kBos, ch23::kEos);
  ex.targets.ids[1] = 4;
  EXPECT_EQ(model.forward(ex, true).error().code, NgramErrorCode::token_out_of_range);
  ex.targets.ids[1] = 1;
  ex.contexts.time = 3;
  EXPECT_EQ(model.forward(ex, true).error().code, NgramErrorCode::context_shape);
  const NgramBatch empty{{0, 2, {}}, {0, 1, {}}};
  EXPECT_EQ(model.forward(empty, true).error().code, NgramErrorCode::empty_batch);
  std::vector<Tensor> four(model.values().begin(), model.values().end() - 1);
  EXPECT_EQ(NgramMlp::from_values(ch23::kFixtureConfig, four).error().code,
            NgramErrorCode::value_count);
  // A refused step leaves values and optimizer untouched.
  auto optimizer = llmfs::training::AdamW::create(
                       ch23::kHyper, llmfs::models::ngram_groups(model, 0.1).value())
                       .value();
  const std::vector<Tensor> kept(model.values().begin(), model.values().end());
  ex.contexts.time = 2;
  ex.contexts.ids[0] = -1;
  EXPECT_FALSE(llmfs::models::train_step(model, optimizer, ex).has_value());
  for (std::size_t k = 0; k < kept.size(); ++k)
    EXPECT_EQ(model.values()[k], kept[k]);
  EXPECT_EQ(optimizer.state().step, 0u);
  for (const auto& [name, text] : ch23_evidence().errors)
    EXPECT_NE(text, "accepted") << name;
}

TEST(Demo, TheCurveFallsAndTheSubsetIsScoredLikeChapterSeven) {
  const auto& c = ch23_evidence().corpus;
  ASSERT_EQ(c.curve.size(), ch23::kSteps / ch23::kEvery + 1);
  EXPECT_LT(c.curve.back().validation_loss, c.curve.front().validation_loss - 1.0);
  // Step 0 is near uniform: ln V nats per token.
  EXPECT_NEAR(c.curve.front().validation_loss, std::log(4096.0), 0.2);
  // The whole-validation bigram is Chapter 7's α = 0.01 line.
  EXPECT_NEAR(c.bigram_validation_bpb, 1.554342, 5e-7);
  for (const auto& p : c.curve)
    EXPECT_NEAR(p.validation_bpb,
                p.validation_loss * static_cast<double>(c.subset_examples) /
                    (std::log(2.0) * static_cast<double>(c.subset_bytes)),
                1e-12);
}

TEST(Exercises, ParameterCountsShareAndUniformBound) {
  const auto& e = ch23_evidence();
  const std::size_t V = 4096, d = 32, h = 128;
  const std::array<std::size_t, 3> n = {1, 3, 6};
  for (std::size_t k = 0; k < 3; ++k)
    EXPECT_EQ(e.exercise_parameters[k], V * d + n[k] * d * h + h + h * V + V);
  EXPECT_EQ(e.corpus.output_parameters, h * V + V);
  const double uniform = std::log(4096.0) *
                         static_cast<double>(e.corpus.subset_examples) /
                         (std::log(2.0) * static_cast<double>(e.corpus.subset_bytes));
  EXPECT_NEAR(e.corpus.uniform_subset_bpb, uniform, 1e-12);
}

}  // namespace
