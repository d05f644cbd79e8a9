// Chapter 31
// The chapter's claims about the pre-norm decoder block, each checked against values
// that do not come from the block: a plain-loop block written here from the chapter's
// formulas (fixture and seeded random cases), the hand derivation of token 0, PyTorch
// float64 (the block intermediates stored by
// tests/reference/make_decoder_reference.py), central differences, and the typed errors
// with their stages and causes.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/models/decoder_block.hpp>

#include "evidence.hpp"
#include "support/reference_data.hpp"

namespace {

using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::models::DecoderBlock;
using llmfs::models::DecoderBlockShape;
using llmfs::models::DecoderBlockStage;
using llmfs::tensor::Tensor;
using Vec = std::vector<double>;

// ---- A plain-loop block, from the chapter's formulas only (no llmfs arithmetic). ----

struct Weights {
  std::size_t d = 0, h = 0, f = 0;
  double eps = 0.0, base = 0.0;
  Vec g1, wq, wk, wv, wo, g2, w1, w3, w2;
};

Vec rms_rows(const Vec& x, const Vec& g, std::size_t d, double eps) {
  Vec y(x.size());
  for (std::size_t r = 0; r < x.size() / d; ++r) {
    double s = 0.0;
    for (std::size_t j = 0; j < d; ++j)
      s += x[r * d + j] * x[r * d + j];
    const double rms = std::sqrt(s / static_cast<double>(d) + eps);
    for (std::size_t j = 0; j < d; ++j)
      y[r * d + j] = x[r * d + j] / rms * g[j];
  }
  return y;
}

Vec matmul(const Vec& x, const Vec& w, std::size_t in, std::size_t out) {
  const std::size_t rows = x.size() / in;
  Vec y(rows * out, 0.0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t k = 0; k < in; ++k)
      for (std::size_t c = 0; c < out; ++c)
        y[r * out + c] += x[r * in + k] * w[k * out + c];
  return y;
}

struct NaiveStages {
  Vec a, attn, h, f, ffn, y;
};

// One batch row at a time: x is [B*T, d] row-major.
NaiveStages naive_block(const Weights& w, const Vec& x, std::size_t batch,
                        std::size_t T) {
  const std::size_t d = w.d, dh = d / w.h;
  NaiveStages s;
  s.a = rms_rows(x, w.g1, d, w.eps);
  Vec q = matmul(s.a, w.wq, d, d), k = matmul(s.a, w.wk, d, d),
      v = matmul(s.a, w.wv, d, d);
  // RoPE per head on adjacent pairs, position t
  for (Vec* m : {&q, &k}) {
    for (std::size_t r = 0; r < batch * T; ++r) {
      const double t = static_cast<double>(r % T);
      for (std::size_t head = 0; head < w.h; ++head)
        for (std::size_t i = 0; i < dh / 2; ++i) {
          const double theta =
              std::pow(w.base, -2.0 * static_cast<double>(i) / static_cast<double>(dh));
          double& e = (*m)[r * d + head * dh + 2 * i];
          double& o = (*m)[r * d + head * dh + 2 * i + 1];
          const double c = std::cos(t * theta), sn = std::sin(t * theta);
          const double e0 = e, o0 = o;
          e = e0 * c - o0 * sn;
          o = e0 * sn + o0 * c;
        }
    }
  }
  Vec merged(x.size(), 0.0);
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t head = 0; head < w.h; ++head)
      for (std::size_t i = 0; i < T; ++i) {
        Vec score(i + 1);
        double top = -INFINITY;
        for (std::size_t j = 0; j <= i; ++j) {
          double dot = 0.0;
          for (std::size_t c = 0; c < dh; ++c)
            dot +=
                q[(b * T + i) * d + head * dh + c] * k[(b * T + j) * d + head * dh + c];
          score[j] = dot / std::sqrt(static_cast<double>(dh));
          top = std::max(top, score[j]);
        }
        double z = 0.0;
        for (double& sc : score)
          z += (sc = std::exp(sc - top));
        for (std::size_t j = 0; j <= i; ++j)
          for (std::size_t c = 0; c < dh; ++c)
            merged[(b * T + i) * d + head * dh + c] +=
                score[j] / z * v[(b * T + j) * d + head * dh + c];
      }
  s.attn = matmul(merged, w.wo, d, d);
  s.h = x;
  for (std::size_t i = 0; i < x.size(); ++i)
    s.h[i] += s.attn[i];
  s.f = rms_rows(s.h, w.g2, d, w.eps);
  Vec gate = matmul(s.f, w.w1, d, w.f), up = matmul(s.f, w.w3, d, w.f);
  for (std::size_t i = 0; i < gate.size(); ++i)
    gate[i] = gate[i] / (1.0 + std::exp(-gate[i])) * up[i];
  s.ffn = matmul(gate, w.w2, w.f, d);
  s.y = s.h;
  for (std::size_t i = 0; i < x.size(); ++i)
    s.y[i] += s.ffn[i];
  return s;
}

// ---- The library block from the same numbers. ----

DecoderBlock library_block(Tape& tape, const Weights& w) {
  auto p = [&](const char* role, const Vec& v, llmfs::tensor::Shape shape) {
    return llmfs::nn::NamedParameter{fmt::format("b.{}.weight", role),
                                     tape.parameter(Tensor::from(shape, v).value())};
  };
  const std::size_t d = w.d, f = w.f;
  auto block = DecoderBlock::from_layers(
      llmfs::nn::RMSNorm::from_parameters(p("attention_norm", w.g1, {d}), w.eps)
          .value(),
      llmfs::attention::MultiHeadAttention::from_parameters(
          p("attention.query", w.wq, {d, d}), p("attention.key", w.wk, {d, d}),
          p("attention.value", w.wv, {d, d}), p("attention.output", w.wo, {d, d}), w.h,
          16, w.base)
          .value(),
      llmfs::nn::RMSNorm::from_parameters(p("ffn_norm", w.g2, {d}), w.eps).value(),
      llmfs::nn::SwiGluFeedForward::from_parameters(p("ffn.gate", w.w1, {d, f}),
                                                    p("ffn.up", w.w3, {d, f}),
                                                    p("ffn.down", w.w2, {f, d}))
          .value());
  return std::move(block).value();
}

Vec values(const TensorValue& v) {
  const Tensor t = v.value().value();
  return Vec(t.values().begin(), t.values().end());
}

void expect_near_all(const Vec& actual, const Vec& expected, double tol,
                     const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  double scale = 1.0;
  for (double e : expected)
    scale = std::max(scale, std::abs(e));
  for (std::size_t i = 0; i < actual.size(); ++i)
    EXPECT_NEAR(actual[i], expected[i], tol * scale) << what << " index " << i;
}

Vec draw(llmfs::SplitMix64& rng, std::size_t n, double low, double high) {
  Vec out(n);
  for (double& v : out)
    v = low + (high - low) * static_cast<double>(rng.next_u64() >> 11) * 0x1.0p-53;
  return out;
}

Weights random_weights(llmfs::SplitMix64& rng, std::size_t d, std::size_t h,
                       std::size_t f) {
  Weights w;
  w.d = d;
  w.h = h;
  w.f = f;
  w.eps = 1e-6;
  w.base = 100.0;
  const double s = 1.0 / std::sqrt(static_cast<double>(d));
  w.g1 = draw(rng, d, 0.5, 1.5);
  w.wq = draw(rng, d * d, -s, s);
  w.wk = draw(rng, d * d, -s, s);
  w.wv = draw(rng, d * d, -s, s);
  w.wo = draw(rng, d * d, -s, s);
  w.g2 = draw(rng, d, 0.5, 1.5);
  w.w1 = draw(rng, d * f, -s, s);
  w.w3 = draw(rng, d * f, -s, s);
  w.w2 = draw(rng, f * d, -1.0 / std::sqrt(static_cast<double>(f)),
              1.0 / std::sqrt(static_cast<double>(f)));
  return w;
}

void compare_with_naive(const Weights& w, const Vec& x, std::size_t batch,
                        std::size_t T, const std::string& what) {
  Tape tape;
  const DecoderBlock block = library_block(tape, w);
  const auto input = tape.constant(Tensor::from({batch, T, w.d}, x).value());
  const auto forward = block.forward(input, 0);
  ASSERT_TRUE(forward.has_value()) << fmt::format("{}", forward.error());
  const NaiveStages n = naive_block(w, x, batch, T);
  expect_near_all(values(forward->attention_input), n.a, 1e-13, what + " a");
  expect_near_all(values(forward->attention_output), n.attn, 1e-13, what + " attn");
  expect_near_all(values(forward->hidden), n.h, 1e-13, what + " h");
  expect_near_all(values(forward->ffn_input), n.f, 1e-13, what + " f");
  expect_near_all(values(forward->ffn_output), n.ffn, 1e-13, what + " ffn");
  expect_near_all(values(forward->output), n.y, 1e-13, what + " y");
}

const ch31::Evidence& evidence() {
  static const ch31::Evidence gathered = [] {
    auto result = ch31::gather_evidence();
    if (!result) throw std::runtime_error(fmt::format("{}", result.error()));
    return *result;
  }();
  return gathered;
}

Vec as_vec(const Tensor& t) {
  return Vec(t.values().begin(), t.values().end());
}

TEST(Fixture, EveryStageEqualsThePlainLoopBlock) {
  const std::size_t d = ch31::kModelWidth;
  Vec identity(d * d, 0.0);
  for (std::size_t i = 0; i < d; ++i)
    identity[i * d + i] = 1.0;
  const Weights w{.d = d,
                  .h = ch31::kHeads,
                  .f = ch31::kHiddenWidth,
                  .eps = ch31::kEpsilon,
                  .base = ch31::kRopeBase,
                  .g1 = Vec(d, 1.0),
                  .wq = identity,
                  .wk = identity,
                  .wv = identity,
                  .wo = identity,
                  .g2 = Vec(d, 1.0),
                  .w1 = identity,
                  .w3 = identity,
                  .w2 = identity};
  const NaiveStages n = naive_block(w, as_vec(ch31::fixture_input()), 1, ch31::kTokens);
  const ch31::Stages& s = evidence().fixture;
  expect_near_all(as_vec(s.attention_input), n.a, 1e-14, "a");
  expect_near_all(as_vec(s.attention_output), n.attn, 1e-14, "attn");
  expect_near_all(as_vec(s.hidden), n.h, 1e-14, "h");
  expect_near_all(as_vec(s.ffn_input), n.f, 1e-14, "f");
  expect_near_all(as_vec(s.ffn_output), n.ffn, 1e-14, "ffn");
  expect_near_all(as_vec(s.output), n.y, 1e-14, "y");
}

TEST(Fixture, TokenZeroMatchesTheHandDerivation) {
  // Token 0 attends only to itself: a = x/√(9+ε), MHA(a) = a (identity matrices),
  // h = x + a, f = h/√(h²+ε), y = h + silu(f)·f, every coordinate alike.
  const double eps = ch31::kEpsilon;
  const double a = 3.0 / std::sqrt(9.0 + eps);
  const double h = 3.0 + a;
  const double f = h / std::sqrt(h * h + eps);
  const double y = h + f / (1.0 + std::exp(-f)) * f;
  const ch31::Stages& s = evidence().fixture;
  for (std::size_t j = 0; j < ch31::kModelWidth; ++j) {
    EXPECT_NEAR(s.attention_input.values()[j], a, 1e-15);
    EXPECT_NEAR(s.attention_output.values()[j], a, 1e-15);
    EXPECT_NEAR(s.hidden.values()[j], h, 1e-15);
    EXPECT_NEAR(s.output.values()[j], y, 1e-14);
  }
  EXPECT_EQ(s.attention_weights.values()[0], 1.0);
}

TEST(Properties, RandomBlocksEqualThePlainLoopBlock) {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    llmfs::SplitMix64 rng(3100 + seed);
    const std::size_t h = 1 + rng.next_u64() % 3;
    const std::size_t d = 2 * h * (1 + rng.next_u64() % 3);
    const std::size_t f = 1 + rng.next_u64() % 9;
    const std::size_t batch = 1 + rng.next_u64() % 3;
    const std::size_t T = 1 + rng.next_u64() % 6;
    const Weights w = random_weights(rng, d, h, f);
    const Vec x = draw(rng, batch * T * d, -2.0, 2.0);
    compare_with_naive(w, x, batch, T, fmt::format("seed {}", seed));
  }
}

TEST(Reference, BlockZeroOfTheTorchModelMatchesTo1e12) {
  const auto r = llmfs::testing::load_reference(
      std::string(LLMFS_SOURCE_DIR) +
      "/tests/reference/data/models/ch32_decoder_small.txt");
  const auto n = [&](const char* role) {
    return r.at(fmt::format("blocks.0.{}.weight", role)).values;
  };
  const Weights w{.d = 8,
                  .h = 2,
                  .f = 12,
                  .eps = r.scalar("epsilon"),
                  .base = r.scalar("rope_base"),
                  .g1 = n("attention_norm"),
                  .wq = n("attention.query"),
                  .wk = n("attention.key"),
                  .wv = n("attention.value"),
                  .wo = n("attention.output"),
                  .g2 = n("ffn_norm"),
                  .w1 = n("ffn.gate"),
                  .w3 = n("ffn.up"),
                  .w2 = n("ffn.down")};
  Tape tape;
  const DecoderBlock block = library_block(tape, w);
  const auto& x = r.at("embeddings");
  const auto forward = block.forward(
      tape.constant(
          Tensor::from({x.shape[0], x.shape[1], x.shape[2]}, x.values).value()),
      0);
  ASSERT_TRUE(forward.has_value());
  const std::pair<const char*, TensorValue> stages[] = {
      {"attention_input", forward->attention_input},
      {"attention_output", forward->attention_output},
      {"hidden", forward->hidden},
      {"ffn_input", forward->ffn_input},
      {"ffn_output", forward->ffn_output},
      {"output", forward->output}};
  for (const auto& [name, value] : stages) {
    const auto d = llmfs::testing::discrepancy(
        values(value), r.at(fmt::format("blocks.0.{}", name)).values);
    EXPECT_TRUE(d.same_size) << name;
    EXPECT_LE(d.relative, 1e-12) << name;
  }
}

TEST(Claims, ZeroBranchesMakeTheBlockTheIdentityBitForBit) {
  EXPECT_EQ(evidence().identity_mismatches, 0u);
  const Tensor x = ch31::fixture_input();
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(evidence().zero_branches.output.values()[i]),
              std::bit_cast<std::uint64_t>(x.values()[i]));
  }
  // Post-norm with the same zero branches returns RMSNorm(RMSNorm(x)), not x.
  EXPECT_NEAR(evidence().post_norm_zero.values()[0], 1.0, 1e-6);
  EXPECT_NE(evidence().post_norm_zero.values()[0], x.values()[0]);
}

TEST(Claims, ScalingTheInputLeavesTheBranchInputsUnchangedUpToEpsilon) {
  const auto& a = evidence().fixture;
  const auto& b = evidence().scaled;
  for (std::size_t i = 0; i < a.attention_input.size(); ++i) {
    EXPECT_NEAR(b.attention_input.values()[i], a.attention_input.values()[i], 1e-6);
    EXPECT_NEAR(b.hidden.values()[i],
                10.0 * a.input.values()[i] + b.attention_output.values()[i], 1e-12);
  }
  // Token 0: 10·3 + 1 = 31 before the feed-forward branch, which adds silu(1) again.
  EXPECT_NEAR(b.hidden.values()[0], 31.0, 1e-6);
  EXPECT_NEAR(b.ffn_output.values()[0], 1.0 / (1.0 + std::exp(-1.0)), 1e-6);
}

TEST(Claims, LaterTokensNeverChangeEarlierRows) {
  EXPECT_EQ(evidence().changed_per_row, (std::vector<std::size_t>{0, 0, 4}));
}

TEST(Claims, ParametersAreNamedCountedAndDerived) {
  const auto& e = evidence();
  ASSERT_EQ(e.parameter_names.size(), 9u);
  EXPECT_EQ(e.parameter_names.front(), "block.attention_norm.weight");
  EXPECT_EQ(e.parameter_names[4], "block.attention.output.weight");
  EXPECT_EQ(e.parameter_names.back(), "block.ffn.down.weight");
  // 2d + 4d² + 3·d·d_ff with d = 4, d_ff = 4.
  EXPECT_EQ(e.parameter_count, 2u * 4 + 4u * 16 + 3u * 16);
  EXPECT_EQ(e.formula_count, e.parameter_count);
}

// The fixture block from nine parameter nodes (g₁, W_Q, W_K, W_V, W_O, g₂, W₁, W₃, W₂).
std::expected<DecoderBlock, llmfs::models::DecoderBlockError> block_from_nodes(
    std::span<const TensorValue> w) {
  auto p = [&](const char* role, std::size_t i) {
    return llmfs::nn::NamedParameter{fmt::format("b.{}.weight", role), w[i]};
  };
  return DecoderBlock::from_layers(
      llmfs::nn::RMSNorm::from_parameters(p("attention_norm", 0), ch31::kEpsilon)
          .value(),
      llmfs::attention::MultiHeadAttention::from_parameters(
          p("attention.query", 1), p("attention.key", 2), p("attention.value", 3),
          p("attention.output", 4), ch31::kHeads, ch31::kMaxPositions, ch31::kRopeBase)
          .value(),
      llmfs::nn::RMSNorm::from_parameters(p("ffn_norm", 5), ch31::kEpsilon).value(),
      llmfs::nn::SwiGluFeedForward::from_parameters(p("ffn.gate", 6), p("ffn.up", 7),
                                                    p("ffn.down", 8))
          .value());
}

TEST(Claims, GradientsPassCentralDifferences) {
  // L = Σ block(X) ⊙ U over the input and all nine parameters of a drawn block.
  llmfs::SplitMix64 rng(3131);
  const Weights w = random_weights(rng, 4, 2, 4);
  const Tensor upstream = Tensor::from({1, 3, 4}, draw(rng, 12, -1.0, 1.0)).value();
  std::vector<Tensor> inputs = {ch31::fixture_input()};
  const std::pair<const Vec*, llmfs::tensor::Shape> parts[] = {
      {&w.g1, {4}}, {&w.wq, {4, 4}}, {&w.wk, {4, 4}}, {&w.wv, {4, 4}}, {&w.wo, {4, 4}},
      {&w.g2, {4}}, {&w.w1, {4, 4}}, {&w.w3, {4, 4}}, {&w.w2, {4, 4}}};
  for (const auto& [values, shape] : parts)
    inputs.push_back(Tensor::from(shape, *values).value());
  auto loss = [&](Tape& tape, std::span<const TensorValue> nodes)
      -> std::expected<TensorValue, llmfs::autograd::AutogradError> {
    const auto block = block_from_nodes(nodes.subspan(1));
    const auto forward = block.value().forward(nodes[0], 0);
    const auto weighted =
        llmfs::autograd::multiply(forward.value().output, tape.constant(upstream));
    return llmfs::autograd::sum(weighted.value());
  };
  const auto report = llmfs::autograd::check_tape_gradients(
      loss, inputs,
      {.step = 1e-6, .absolute_tolerance = 1e-6, .relative_tolerance = 1e-6});
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->inputs.size(), 10u);
  EXPECT_EQ(report->coordinates(), 12u + 4 + 4 * 16 + 4 + 3 * 16);
  EXPECT_TRUE(report->passed()) << "max error " << report->max_abs_error();
}

TEST(Errors, EachFailureNamesItsStageAndKeepsItsTypedCause) {
  Tape tape;
  llmfs::SplitMix64 rng(7);
  const DecoderBlockShape shape{.model_width = 4,
                                .heads = 2,
                                .hidden_width = 4,
                                .max_positions = 4,
                                .rope_base = 100.0,
                                .epsilon = 1e-6};
  const auto block = DecoderBlock::create(tape, "b", shape, rng);
  ASSERT_TRUE(block.has_value());
  const auto narrow = block->forward(tape.constant(Tensor::zeros({1, 2, 5})), 0);
  ASSERT_FALSE(narrow.has_value());
  EXPECT_EQ(narrow.error().stage, DecoderBlockStage::attention_norm);
  EXPECT_TRUE(std::holds_alternative<llmfs::nn::NnError>(*narrow.error().cause));
  const auto far = block->forward(tape.constant(Tensor::zeros({1, 3, 4})), 2);
  ASSERT_FALSE(far.has_value());
  EXPECT_EQ(far.error().stage, DecoderBlockStage::attention);
  const auto* mha = std::get_if<llmfs::attention::MultiHeadError>(&*far.error().cause);
  ASSERT_NE(mha, nullptr);
  EXPECT_EQ(mha->code, llmfs::attention::MultiHeadErrorCode::position_range);
  // A rejected create leaves the generator where it was.
  llmfs::SplitMix64 before(9), after(9);
  DecoderBlockShape bad = shape;
  bad.heads = 3;
  EXPECT_FALSE(DecoderBlock::create(tape, "bad", bad, after).has_value());
  EXPECT_EQ(before.next_u64(), after.next_u64());
  // The program's messages name the stage.
  const auto& errors = evidence().errors;
  ASSERT_EQ(errors.size(), 5u);
  EXPECT_TRUE(errors[0].second.starts_with("attention norm: stage failed"));
  EXPECT_TRUE(errors[1].second.starts_with("attention: stage failed"));
  EXPECT_TRUE(
      errors[2].second.starts_with("decoder block configuration: layer widths"));
}

TEST(Exercises, AnswersAreComputedAndMatchTheFormulas) {
  const auto& e = evidence().exercises;
  EXPECT_EQ(e.wide_hidden, 1368u);  // ⌈8·512/3⌉ = 1366, up to a multiple of 8
  EXPECT_EQ(e.wide_parameters, 2u * 512 + 4u * 512 * 512 + 3u * 512 * 1368);
  ASSERT_EQ(e.scale_changes.size(), 6u);
  EXPECT_LT(e.scale_changes[0].second, 1e-5);          // attention input
  EXPECT_LT(e.scale_changes[1].second, 1e-5);          // attention output
  EXPECT_NEAR(e.scale_changes[2].second, 27.0, 1e-5);  // hidden: 9·max|x|
  EXPECT_GT(e.scale_changes[3].second, 0.1);           // ffn input moves
  EXPECT_EQ(e.x_gradient_paths, 2u);
}

}  // namespace
