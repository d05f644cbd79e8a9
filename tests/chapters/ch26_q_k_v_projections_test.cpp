// Chapter 26's claims: the fixture's values derived by hand in
// chapters/26-q-k-v-projections.md, the separate and fused layouts bitwise equal,
// PyTorch's in_proj_weight layout, both layouts against PyTorch float64
// (tests/reference/data/nn/ch26_qkv.txt, make_qkv_reference.py), seeded random cases
// against a naive loop, the gradient checks, the refusals, and the exercises' answers.

#include <cmath>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/nn/qkv.hpp>

#include "evidence.hpp"
#include "support/records.hpp"

namespace {

using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::nn::QkvProjections;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

const ch26::Evidence& ch26_evidence() {
  static const ch26::Evidence e = [] {
    auto gathered = ch26::gather();
    EXPECT_TRUE(gathered.has_value());
    return gathered.value_or(ch26::Evidence{});
  }();
  return e;
}

std::vector<double> ch26_values(const Tensor& t) {
  return {t.values().begin(), t.values().end()};
}

std::vector<double> ch26_numbers(const std::string& text) {
  std::vector<double> out;
  std::istringstream parts(text);
  for (std::string item; std::getline(parts, item, ',');)
    out.push_back(std::stod(item));
  return out;
}

void ch26_expect_near(const std::vector<double>& got, const std::vector<double>& want,
                      double tolerance, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tolerance * std::max(1.0, std::fabs(want[i])))
        << what << " [" << i << "]";
}

// Hand-derived in the chapter: Q = X·W_Q, K = X·W_K, V = X·W_V on X = [[1,2],[3,-1]].
TEST(Fixture, BothLayoutsGiveTheHandDerivedProjections) {
  for (const ch26::Pass* p : {&ch26_evidence().separate, &ch26_evidence().fused}) {
    EXPECT_EQ(ch26_values(p->outputs[0]), (std::vector<double>{5, -2, 1, 1}));
    EXPECT_EQ(ch26_values(p->outputs[1]), (std::vector<double>{2, 5, -1, 8}));
    EXPECT_EQ(ch26_values(p->outputs[2]), (std::vector<double>{2, -3, 6, 5}));
    EXPECT_EQ(p->loss, 4.0);
    EXPECT_EQ(ch26_values(p->input_gradient), (std::vector<double>{7, 1, -1, 2}));
    EXPECT_EQ(p->parameters, 12u);  // 3·d² with d = 2
    EXPECT_TRUE(p->check.passed());
    EXPECT_LT(p->check.max_abs_error(), 1e-6);
  }
}

TEST(Fixture, WeightGradientsAreXTransposedTimesEachUpstream) {
  const auto& s = ch26_evidence().separate.weight_gradients;
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(ch26_values(s[0]), (std::vector<double>{1, 3, 2, -1}));
  EXPECT_EQ(ch26_values(s[1]), (std::vector<double>{3, 1, -1, 2}));
  EXPECT_EQ(ch26_values(s[2]), (std::vector<double>{1, -2, 2, 3}));
  const auto& f = ch26_evidence().fused.weight_gradients;
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].shape(), (Shape{2, 6}));
  EXPECT_EQ(ch26_values(f[0]),
            (std::vector<double>{1, 3, 3, 1, 1, -2, 2, -1, -1, 2, 2, 3}));
}

TEST(Fusion, InProjectionAndPyTorchLayout) {
  const ch26::Fusion& f = ch26_evidence().fusion;
  EXPECT_EQ(ch26_values(ch26_evidence().fused.point.at(1)),
            (std::vector<double>{1, 0, 0, 3, 2, 1, 2, -1, 1, 1, 0, -2}));
  EXPECT_EQ(f.torch_in_proj.shape(), (Shape{6, 2}));
  EXPECT_EQ(ch26_values(f.torch_in_proj),
            (std::vector<double>{1, 2, 0, -1, 0, 1, 3, 1, 2, 0, 1, -2}));
  EXPECT_TRUE(f.torch_round_trip);
  EXPECT_EQ(f.fixture_differing, 0u);
  EXPECT_EQ(f.gradient_differing, 0u);
}

// 24 seeded random cases: both layouts against a naive loop, and bitwise equal.
TEST(Properties, BothLayoutsMatchANaiveLoopAndEachOther) {
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    llmfs::SplitMix64 rng(seed);
    const std::size_t t = 1 + seed % 4, in = 1 + seed % 5, out = 1 + (seed * 7) % 6;
    Tape tape;
    auto separate = QkvProjections::create(tape, "attn", in, out, rng);
    ASSERT_TRUE(separate.has_value());
    std::vector<std::vector<double>> w;
    for (const auto& p : separate->parameters())
      w.push_back(ch26_values(*p.value.value()));
    const Tensor w_in =
        *Tensor::from(Shape{in, 3 * out}, ch26::fuse(w[0], w[1], w[2], in, out));
    auto fused = QkvProjections::from_combined({"in_proj", tape.parameter(w_in)});
    ASSERT_TRUE(fused.has_value());
    EXPECT_EQ(fused->output_width(), out);
    std::vector<double> x(t * in);
    for (double& v : x)
      v = 2.0 * rng.next_unit() - 1.0;
    const TensorValue input = tape.constant(*Tensor::from(Shape{t, in}, x));
    const auto a = separate->forward(input);
    const auto b = fused->forward(input);
    ASSERT_TRUE(a.has_value() && b.has_value());
    const TensorValue got_a[] = {a->query, a->key, a->value};
    const TensorValue got_b[] = {b->query, b->key, b->value};
    for (std::size_t p = 0; p < 3; ++p) {
      std::vector<double> naive(t * out, 0.0);
      for (std::size_t r = 0; r < t; ++r)
        for (std::size_t j = 0; j < out; ++j)
          for (std::size_t k = 0; k < in; ++k)
            naive[r * out + j] += x[r * in + k] * w[p][k * out + j];
      ch26_expect_near(ch26_values(*got_a[p].value()), naive, 1e-13, "separate");
      EXPECT_EQ(ch26_values(*got_a[p].value()), ch26_values(*got_b[p].value()))
          << "seed " << seed << " projection " << p;
    }
  }
}

TEST(Reference, BothLayoutsMatchPyTorchFloat64) {
  const auto records =
      llmfs::testing::read_keyed_records("tests/reference/data/nn/ch26_qkv.txt");
  ASSERT_EQ(records.size(), 3u);
  for (const auto& record : records) {
    const auto& c = record.fields;
    const std::string name = c.at("name");
    const auto d = static_cast<std::size_t>(record.number("d"));
    std::vector<std::size_t> dims;
    for (double v : ch26_numbers(c.at("x_shape")))
      dims.push_back(static_cast<std::size_t>(v));
    const Shape x_shape(dims);
    // PyTorch's in_proj_weight [3·d, d], transposed, is our W_in [d, 3·d].
    const auto torch_w = ch26_numbers(c.at("in_proj_weight"));
    std::vector<double> w_in(torch_w.size());
    for (std::size_t r = 0; r < 3 * d; ++r)
      for (std::size_t col = 0; col < d; ++col)
        w_in[col * 3 * d + r] = torch_w[r * d + col];
    EXPECT_EQ(w_in, ch26::fuse(ch26_numbers(c.at("w_q")), ch26_numbers(c.at("w_k")),
                               ch26_numbers(c.at("w_v")), d, d))
        << name;
    for (bool fused : {false, true}) {
      Tape tape;
      const TensorValue x =
          tape.parameter(*Tensor::from(x_shape, ch26_numbers(c.at("x"))));
      auto qkv =
          fused ? QkvProjections::from_combined(
                      {"in_proj", tape.parameter(*Tensor::from(Shape{d, 3 * d}, w_in))})
                : QkvProjections::from_weights(
                      {"q", tape.parameter(
                                *Tensor::from(Shape{d, d}, ch26_numbers(c.at("w_q"))))},
                      {"k", tape.parameter(
                                *Tensor::from(Shape{d, d}, ch26_numbers(c.at("w_k"))))},
                      {"v", tape.parameter(*Tensor::from(Shape{d, d},
                                                         ch26_numbers(c.at("w_v"))))});
      ASSERT_TRUE(qkv.has_value()) << name;
      const auto out = qkv->forward(x);
      ASSERT_TRUE(out.has_value()) << name;
      const TensorValue parts[] = {out->query, out->key, out->value};
      const char* keys[] = {"q", "k", "v"};
      const char* seeds[] = {"g_q", "g_k", "g_v"};
      for (std::size_t p = 0; p < 3; ++p) {
        ch26_expect_near(ch26_values(*parts[p].value()), ch26_numbers(c.at(keys[p])),
                         1e-13, name + " " + keys[p]);
        ASSERT_TRUE(
            llmfs::autograd::backward(
                parts[p], *Tensor::from(parts[p].shape(), ch26_numbers(c.at(seeds[p]))))
                .has_value());
      }
      ch26_expect_near(ch26_values(*x.gradient()), ch26_numbers(c.at("dx")), 1e-13,
                       name + " dx");
      if (fused) {
        const auto g = ch26_values(*qkv->parameters().items()[0].value.gradient());
        const auto torch_g = ch26_numbers(c.at("d_in_proj_weight"));
        for (std::size_t r = 0; r < 3 * d; ++r)
          for (std::size_t col = 0; col < d; ++col)
            EXPECT_NEAR(g[col * 3 * d + r], torch_g[r * d + col], 1e-13) << name;
      } else {
        const char* grads[] = {"dw_q", "dw_k", "dw_v"};
        for (std::size_t p = 0; p < 3; ++p)
          ch26_expect_near(ch26_values(*qkv->parameters().items()[p].value.gradient()),
                           ch26_numbers(c.at(grads[p])), 1e-13, name + " " + grads[p]);
      }
    }
    EXPECT_EQ(record.number("max_separate_vs_fused"), 0.0) << name;
  }
}

TEST(Errors, EachRefusalNamesWhatWasWrong) {
  const auto& errors = ch26_evidence().errors;
  ASSERT_EQ(errors.size(), 5u);
  auto text = [&errors](std::string_view name) {
    for (const auto& [n, t] : errors)
      if (n == name) return t;
    return std::string("(missing)");
  };
  EXPECT_NE(text("shape_mismatch").find("query [2,2], key [2,3], value [2,2]"),
            std::string::npos);
  EXPECT_NE(text("two_tapes").find("qkv projections"), std::string::npos);
  EXPECT_NE(text("fused_width").find("needs 3·out columns"), std::string::npos);
  EXPECT_NE(text("zero_width").find("zero width"), std::string::npos);
  EXPECT_NE(text("input_width").find("input width mismatch"), std::string::npos);
}

TEST(Exercises, AnswersMatchTheHandComputation) {
  const ch26::Exercises& x = ch26_evidence().exercises;
  EXPECT_EQ(x.small, 3u * 64u * 64u);          // 12,288
  EXPECT_EQ(x.gpt2, 1769472u);                 // 3·768²
  EXPECT_EQ(x.gpt2_biases, 1769472u + 2304u);  // + 3·768
  EXPECT_EQ(x.asymmetry, 28.0);                // S = [[0,-21],[7,7]]
  EXPECT_EQ(x.asymmetry_shared, 0.0);
}

}  // namespace
