// Chapter 18's claims: the fixture's lookup and scatter-add derived by hand in
// chapters/18-token-embeddings.md, the BOS and EOS rows, the three scales, the cost,
// every refusal typed, seeded property tests of the layer, and the exercises.

#include <cmath>

#include <gtest/gtest.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/nn/embedding.hpp>

#include "evidence.hpp"

namespace {

using llmfs::SplitMix64;
using llmfs::autograd::Tape;
using llmfs::autograd::TokenGrid;
using llmfs::nn::Embedding;
using llmfs::nn::NnErrorCode;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

const ch18::Evidence& ch18_evidence() {
  static const ch18::Evidence e = [] {
    auto gathered = ch18::gather();
    EXPECT_TRUE(gathered.has_value());
    return gathered.value_or(ch18::Evidence{});
  }();
  return e;
}

const ch18::RowGradient* ch18_row(const ch18::Pass& p, int row) {
  for (const auto& r : p.rows)
    if (r.row == row) return &r;
  return nullptr;
}

TEST(Fixture, TheCoursesTokenizerFramesTheText) {
  const ch18::Pass& p = ch18_evidence().pass;
  EXPECT_EQ(p.vocab, 258u);  // 256 bytes, no merges, BOS, EOS
  EXPECT_EQ(p.bos, 256);
  EXPECT_EQ(p.eos, 257);
  EXPECT_EQ(p.sequence, (std::vector<int>{256, 'h', 'i', ' ', 'h', 'i', 257}));
  EXPECT_EQ(p.context, (std::vector<int>{256, 'h', 'i', ' ', 'h', 'i'}));
}

TEST(Fixture, LookupReadsRowRAsRMinusR) {
  const ch18::Pass& p = ch18_evidence().pass;
  ASSERT_EQ(p.hidden.size(), 12u);
  for (std::size_t t = 0; t < 6; ++t) {
    EXPECT_EQ(p.hidden[2 * t], p.context[t]);
    EXPECT_EQ(p.hidden[2 * t + 1], -p.context[t]);
  }
}

TEST(Fixture, ARowReadTwiceGetsTheSumOfBothUpstreamRows) {
  const ch18::Pass& p = ch18_evidence().pass;
  // Upstream at position t is (t, 1).
  const auto* h = ch18_row(p, 'h');
  const auto* i = ch18_row(p, 'i');
  const auto* space = ch18_row(p, ' ');
  const auto* bos = ch18_row(p, 256);
  const auto* eos = ch18_row(p, 257);
  ASSERT_TRUE(h && i && space && bos && eos);
  EXPECT_EQ(h->gradient, (std::array<double, 2>{1 + 4, 2}));
  EXPECT_EQ(i->gradient, (std::array<double, 2>{2 + 5, 2}));
  EXPECT_EQ(space->gradient, (std::array<double, 2>{3, 1}));
  EXPECT_EQ(bos->gradient, (std::array<double, 2>{0, 1}));
  EXPECT_EQ(eos->gradient, (std::array<double, 2>{0, 0}));  // EOS is never an input
  EXPECT_EQ(h->reads, 2u);
  EXPECT_EQ(i->reads, 2u);
  EXPECT_EQ(bos->reads, 1u);
  EXPECT_EQ(eos->reads, 0u);
  EXPECT_EQ(p.zero_rows, 258u - 4u);
  EXPECT_TRUE(p.check.passed());
  EXPECT_EQ(p.check.coordinates(), 516u);
}

TEST(Scales, HiddenVarianceIsSigmaSquaredAndTiedLogitsAreDTimesIt) {
  const auto& scales = ch18_evidence().scales;
  ASSERT_EQ(scales.size(), 3u);
  EXPECT_DOUBLE_EQ(scales[0].std_dev, 1.0 / 64);
  EXPECT_DOUBLE_EQ(scales[1].std_dev, 1.0 / std::sqrt(128.0));
  for (const auto& s : scales) {
    const double var = s.std_dev * s.std_dev;
    EXPECT_NEAR(s.hidden_variance, var, 0.1 * var) << s.rule;
    EXPECT_NEAR(s.tied_logit_variance, 128 * var, 0.1 * 128 * var) << s.rule;
  }
  EXPECT_EQ(ch18_evidence().parameters, 4096u * 128u);
  // A row of N(0, 1/d) entries has expected squared length 1 (std of ‖row‖² is √(2/d)).
  for (const double norm : ch18_evidence().special_norms)
    EXPECT_NEAR(norm, 1.0, 0.5);
}

TEST(Layer, RowAndRowReadsAnswerForEveryId) {
  Tape tape;
  SplitMix64 rng(9);
  const auto layer = Embedding::create(tape, "tok", 5, 3, rng);
  ASSERT_TRUE(layer.has_value());
  const Tensor table = *layer->table().value.value();
  for (int id = 0; id < 5; ++id) {
    const Tensor row = *layer->row(id);
    EXPECT_TRUE(std::ranges::equal(row.values(), table.values().subspan(3 * id, 3)));
  }
  EXPECT_EQ(layer->row(5).error().code, NnErrorCode::token_out_of_range);
  const auto reads = layer->row_reads(TokenGrid{2, 3, {4, 0, 4, 4, 1, 0}});
  EXPECT_EQ(*reads, (std::vector<std::size_t>{2, 1, 0, 0, 3}));
  EXPECT_EQ(layer->row_reads(TokenGrid{1, 1, {7}}).error().code,
            NnErrorCode::token_out_of_range);
  SplitMix64 other(9);
  const auto gpt = Embedding::create(tape, "gpt", 5, 3,
                                     {llmfs::nn::Distribution::normal, 0.02}, other);
  ASSERT_TRUE(gpt.has_value());
  EXPECT_NEAR(gpt->table().value.value()->values()[0],
              table.values()[0] * 0.02 * std::sqrt(3.0), 1e-15);
}

TEST(Refusals, EveryRefusalIsTyped) {
  EXPECT_TRUE(ch18_evidence().rng_untouched);
  Tape tape, released;
  released.release();
  SplitMix64 rng(5);
  const SplitMix64 fresh(5);
  const auto layer = Embedding::create(tape, "tok", 4, 3, rng);
  ASSERT_TRUE(layer.has_value());
  EXPECT_EQ(layer->forward(TokenGrid{1, 2, {0, 4}}).error().code,
            NnErrorCode::token_out_of_range);
  EXPECT_EQ(layer->forward(TokenGrid{2, 1, {-1, 0}}).error().code,
            NnErrorCode::token_out_of_range);
  EXPECT_EQ(layer->forward(TokenGrid{2, 2, {0, 1, 2}}).error().code,
            NnErrorCode::token_count);
  SplitMix64 other(5);
  EXPECT_EQ(Embedding::create(tape, "tok", 4, 0, other).error().code,
            NnErrorCode::zero_width);
  EXPECT_EQ(Embedding::create(tape, "", 4, 2, other).error().code,
            NnErrorCode::empty_name);
  EXPECT_EQ(Embedding::create(released, "tok", 4, 2, other).error().code,
            NnErrorCode::released_tape);
  EXPECT_EQ(Embedding::create(tape, "tok", 1ULL << 40, 1ULL << 40, other).error().code,
            NnErrorCode::size_overflow);
  EXPECT_EQ(other, fresh);
  EXPECT_EQ(
      Embedding::from_parameter({"v", tape.parameter(Tensor::zeros({3}))}).error().code,
      NnErrorCode::weight_rank);
  EXPECT_EQ(Embedding::from_parameter({"e", tape.parameter(Tensor::zeros({0, 3}))})
                .error()
                .code,
            NnErrorCode::zero_width);
  EXPECT_EQ(Embedding::from_parameter({"", tape.parameter(Tensor::zeros({2, 3}))})
                .error()
                .code,
            NnErrorCode::empty_name);
  tape.release();
  EXPECT_EQ(layer->forward(TokenGrid{1, 1, {0}}).error().code, NnErrorCode::autograd);
}

TEST(Properties, CreateDrawsTheCourseScaleAndForwardBackwardMatchNaiveLoops) {
  SplitMix64 shapes(1800);
  for (int trial = 0; trial < 24; ++trial) {
    const std::size_t v = 1 + shapes.next_u64() % 9, d = 1 + shapes.next_u64() % 4;
    const std::size_t b = 1 + shapes.next_u64() % 3, t = 1 + shapes.next_u64() % 4;
    const std::uint64_t seed = shapes.next_u64();
    Tape tape;
    SplitMix64 rng(seed), reference(seed);
    const auto layer = Embedding::create(tape, "tok", v, d, rng);
    ASSERT_TRUE(layer.has_value());
    EXPECT_EQ(layer->table().name, "tok.weight");
    EXPECT_EQ(layer->parameter_count(), v * d);
    const Tensor want =
        *llmfs::nn::draw({v, d}, llmfs::nn::embedding_scheme(d), reference);
    const Tensor table = *layer->table().value.value();
    EXPECT_TRUE(std::ranges::equal(table.values(), want.values()));
    TokenGrid grid{b, t, {}};
    for (std::size_t p = 0; p < b * t; ++p)
      grid.ids.push_back(static_cast<int>(shapes.next_u64() % v));
    const auto out = layer->forward(grid);
    ASSERT_TRUE(out.has_value());
    ASSERT_EQ(out->shape(), (Shape{b, t, d}));
    const Tensor g = Tensor::full({b, t, d}, 1.0);
    ASSERT_TRUE(backward(*out, g).has_value());
    std::vector<double> naive(v * d, 0.0);
    const Tensor o = *out->value();
    for (std::size_t p = 0; p < b * t; ++p) {
      for (std::size_t j = 0; j < d; ++j) {
        const auto row = static_cast<std::size_t>(grid.ids[p]);
        EXPECT_EQ(o.values()[p * d + j], table.values()[row * d + j]);
        naive[row * d + j] += 1.0;
      }
    }
    const Tensor got = *layer->table().value.gradient();
    EXPECT_TRUE(std::ranges::equal(got.values(), naive));
  }
}

TEST(Exercises, AnswersMatchTheHandDerivation) {
  const ch18::Exercises& x = ch18_evidence().exercises;
  EXPECT_EQ(x.large_parameters, 32000u * 4096u);
  // "hi hi hi", T = 8: h at positions 1, 4 and 7.
  EXPECT_EQ(x.triple, (std::array<double, 2>{1 + 4 + 7, 3}));
  EXPECT_EQ(x.rows_reached, 4u);  // BOS, h, i and the space
}

}  // namespace
