// The library's multi-head attention against real PyTorch
// (tests/reference/data/ch40_*.txt, written by tests/reference/make_reference.py with
// torch 1.13 and committed).
//
// float64: outputs, per-head weights and the gradients of Σ output ⊙ upstream agree
// with both the lesson's manual code and nn.MultiheadAttention within a relative 1e-12,
// where relative means max|library − torch| / max|torch| over the whole tensor (entries
// that happen to be near zero would make an element-wise relative error meaningless).
//
// float32: torch's float32 result is judged against the exact answer for the same
// (float32) inputs, which the library computes in double. The criterion is max|library
// − torch32| ≤ 128 · u · max|reference|, u = 2^-24: a float32 pipeline of a 32-term
// in-projection, an 8-term score, a 5-term mixture and a 32-term output projection (and
// the backward pass through them) accumulates a few tens of roundings; 128 leaves a
// factor of two above the worst measured (54.5 u for grad_W_in) and is still 10^5 times
// smaller than any of the failure modes' discrepancies.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/attention/multi_head.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "support/reference_data.hpp"

namespace {

namespace attention = llmfs::attention;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::testing::discrepancy;
using llmfs::testing::load_reference_case;
using llmfs::testing::ReferenceData;
using llmfs::testing::ReferenceTensor;

constexpr double kRelative = 1e-12;
constexpr double kUnitRoundoff = 0x1p-24;
constexpr double kFloat32Factor = 128.0;

Tensor tensor_of(const ReferenceTensor& r) {
  return Tensor::from(Shape(r.shape), r.values).value();
}
Tensor transposed(const ReferenceTensor& r) {
  return llmfs::tensor::transpose(tensor_of(r), 0, 1).value();
}

struct Run {
  Tensor output, weights, grad_x, grad_w_in, grad_w_o;
  std::size_t parameters{};
  std::vector<std::string> names;
};

enum class Layout { combined, separate };

// The library's layer from the case's W_in [d,3d] and W_O [d,d], on X, seeded with
// upstream.
Run run_library(const ReferenceData& data, Layout layout = Layout::combined) {
  llmfs::autograd::Tape tape;
  const auto x = tape.parameter(tensor_of(data.at("X")));
  const auto w_in_tensor = tensor_of(data.at("W_in"));
  const auto w_in = tape.parameter(w_in_tensor);
  const auto w_o = tape.parameter(tensor_of(data.at("W_O")));
  const auto heads = static_cast<std::size_t>(data.scalar("heads"));
  const std::size_t tokens = x.shape()[1];
  const std::size_t width = x.shape()[2];
  attention::PositionEncoding positions = attention::NoPositions{};
  std::size_t offset = 0;
  if (data.contains("rope_base")) {
    offset = static_cast<std::size_t>(data.scalar("rope_offset"));
    positions = attention::RotaryPositions{offset + tokens, data.scalar("rope_base")};
  }
  std::vector<llmfs::autograd::TensorValue> blocks;
  if (layout == Layout::separate) {
    // Column blocks of W_in as three separate leaves: W_Q | W_K | W_V.
    for (std::size_t b = 0; b < 3; ++b) {
      std::vector<double> values;
      for (std::size_t r = 0; r < width; ++r)
        for (std::size_t c = 0; c < width; ++c)
          values.push_back(w_in_tensor.values()[r * 3 * width + b * width + c]);
      blocks.push_back(
          tape.parameter(Tensor::from(Shape{width, width}, values).value()));
    }
  }
  auto layer = layout == Layout::combined
                   ? attention::MultiHeadAttention::from_combined_parameters(
                         {"mha.in_projection.weight", w_in}, {"mha.output.weight", w_o},
                         heads, positions)
                   : attention::MultiHeadAttention::from_parameters(
                         {"mha.query.weight", blocks[0]}, {"mha.key.weight", blocks[1]},
                         {"mha.value.weight", blocks[2]}, {"mha.output.weight", w_o},
                         heads, positions);
  if (!layer) throw std::runtime_error(fmt::format("{}", layer.error()));
  auto forward = layer->forward(x, offset);
  if (!forward) throw std::runtime_error(fmt::format("{}", forward.error()));
  if (auto ok =
          llmfs::autograd::backward(forward->output, tensor_of(data.at("upstream")));
      !ok)
    throw std::runtime_error(fmt::format("{}", ok.error()));
  Run run{forward->output.value().value(),
          forward->attention_weights.value().value(),
          x.gradient().value(),
          layout == Layout::combined ? w_in.gradient().value() : Tensor(),
          w_o.gradient().value(),
          layer->parameter_count(),
          {}};
  for (const auto& p : layer->parameters())
    run.names.push_back(p.name);
  return run;
}

::testing::AssertionResult within(const Tensor& library,
                                  std::span<const double> reference, double tolerance) {
  const auto d = discrepancy(library.values(), reference);
  if (!d.same_size)
    return ::testing::AssertionFailure()
           << "sizes differ: " << library.size() << " vs " << reference.size();
  if (!d.same_nonfinite)
    return ::testing::AssertionFailure() << "non-finite entries differ";
  if (d.relative > tolerance)
    return ::testing::AssertionFailure()
           << "relative " << d.relative << " > " << tolerance << " (max |diff| "
           << d.max_abs << " at " << d.worst_index << ", max |reference| "
           << d.reference_max << ")";
  return ::testing::AssertionSuccess() << "relative " << d.relative;
}

// float64

class Float64Parity : public ::testing::TestWithParam<std::string> {};

TEST_P(Float64Parity, MatchesTheLessonsManualCodeWithinRelative1e12) {
  const auto data = load_reference_case(GetParam());
  ASSERT_EQ(data.comment("dtype"), "float64");
  const auto run = run_library(data);
  EXPECT_TRUE(within(run.output, data.at("output").values, kRelative)) << "output";
  EXPECT_TRUE(within(run.weights, data.at("weights").values, kRelative)) << "weights";
  EXPECT_TRUE(within(run.grad_x, data.at("grad_X").values, kRelative)) << "grad_X";
  EXPECT_TRUE(within(run.grad_w_in, data.at("grad_W_in").values, kRelative))
      << "grad_W_in";
  EXPECT_TRUE(within(run.grad_w_o, data.at("grad_W_O").values, kRelative))
      << "grad_W_O";
}

TEST_P(Float64Parity, MaskedProbabilitiesAreExactlyZeroAsInTorch) {
  const auto data = load_reference_case(GetParam());
  const auto run = run_library(data);
  const auto& reference = data.at("weights").values;
  const std::size_t tokens = data.at("X").shape[1];
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const std::size_t query = (i / tokens) % tokens, key = i % tokens;
    if (key > query) {
      ASSERT_EQ(reference[i], 0.0) << i;
      ASSERT_EQ(run.weights.values()[i], 0.0) << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, Float64Parity,
                         ::testing::Values("ch40_seed123_float64",
                                           "ch40_random_b1_t7_h2",
                                           "ch40_random_b1_t4_h4",
                                           "ch40_random_b3_t4_h3_rope",
                                           "ch40_random_b2_t6_h8_rope"));

class ModuleParity : public ::testing::TestWithParam<std::string> {};

TEST_P(ModuleParity, MatchesNnMultiheadAttentionWithTransposedWeightGradients) {
  const auto data = load_reference_case(GetParam());
  const auto run = run_library(data);
  EXPECT_TRUE(within(run.output, data.at("mha.output").values, kRelative)) << "output";
  EXPECT_TRUE(within(run.weights, data.at("mha.weights").values, kRelative))
      << "weights";
  EXPECT_TRUE(within(run.grad_x, data.at("mha.grad_X").values, kRelative)) << "grad_X";
  // PyTorch's parameters are [out, in]: its gradients are the transposes of ours.
  EXPECT_TRUE(within(run.grad_w_in,
                     transposed(data.at("mha.grad_in_proj_weight")).values(),
                     kRelative));
  EXPECT_TRUE(within(run.grad_w_o,
                     transposed(data.at("mha.grad_out_proj_weight")).values(),
                     kRelative));
}

INSTANTIATE_TEST_SUITE_P(Cases, ModuleParity,
                         ::testing::Values("ch40_seed123_float64",
                                           "ch40_random_b1_t7_h2",
                                           "ch40_random_b1_t4_h4"));

TEST(PytorchNames, InProjWeightIsWInTransposedAndOutProjWeightIsWOTransposed) {
  const auto data = load_reference_case("ch40_seed123_float64");
  EXPECT_EQ(data.at("mha.in_proj_weight").shape, (std::vector<std::size_t>{96, 32}));
  EXPECT_EQ(data.at("W_in").shape, (std::vector<std::size_t>{32, 96}));
  EXPECT_EQ(transposed(data.at("mha.in_proj_weight")).values().size(),
            data.at("W_in").values.size());
  EXPECT_TRUE(std::ranges::equal(transposed(data.at("mha.in_proj_weight")).values(),
                                 data.at("W_in").values));
  EXPECT_TRUE(std::ranges::equal(transposed(data.at("mha.out_proj_weight")).values(),
                                 data.at("W_O").values));
  // W_O is square: without the transpose the shapes agree but the values do not.
  EXPECT_FALSE(
      std::ranges::equal(data.at("mha.out_proj_weight").values, data.at("W_O").values));
}

TEST(PytorchNames, AdditiveMaskIsMinusInfinityWhereTheBooleanMaskIsFalse) {
  const auto data = load_reference_case("ch40_seed123_float64");
  const auto& mask = data.at("mha.attn_mask");
  ASSERT_EQ(mask.shape, (std::vector<std::size_t>{5, 5}));
  const auto& masked_scores =
      data.at("masked_scores").values;  // manual code: masked_fill(~tril, -inf)
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t j = 0; j < 5; ++j) {
      EXPECT_EQ(mask.values[i * 5 + j],
                j > i ? -std::numeric_limits<double>::infinity() : 0.0);
      EXPECT_EQ(std::isinf(masked_scores[i * 5 + j]), j > i);  // batch 0, head 0
    }
}

TEST(PytorchNames, ParameterCountEqualsNnMultiheadAttentionWithoutBias) {
  const auto data = load_reference_case("ch40_seed123_float64");
  const auto run = run_library(data);
  EXPECT_EQ(run.parameters, 4u * 32u * 32u);
  EXPECT_EQ(static_cast<double>(run.parameters),
            data.scalar("torch.mha_parameters_bias_false"));
  EXPECT_EQ(data.scalar("torch.mha_parameters_bias_true"), 4.0 * 32 * 32 + 4 * 32);
  EXPECT_EQ(run.names, (std::vector<std::string>{"mha.in_projection.weight",
                                                 "mha.output.weight"}));
}

TEST(PytorchNames, CombinedAndSeparateProjectionsGiveBitwiseTheSameOutput) {
  const auto data = load_reference_case("ch40_seed123_float64");
  const auto combined = run_library(data, Layout::combined);
  const auto separate = run_library(data, Layout::separate);
  EXPECT_TRUE(llmfs::tensor::bitwise_equal(combined.output, separate.output));
  EXPECT_TRUE(llmfs::tensor::bitwise_equal(combined.weights, separate.weights));
  // The input gradient is not bitwise: the combined layout's backward forms g_QKV·W_inᵀ
  // as one 96-term sum per entry, the separate layout adds three 32-term products.
  EXPECT_TRUE(within(combined.grad_x, separate.grad_x.values(), kRelative));
}

// float32

TEST(Float32Parity, TheLessonsTwoE5ClaimDoesNotHoldOnThisTorch) {
  // Manual float32 code vs nn.MultiheadAttention float32, same weights: the lesson
  // (PyTorch 2.5) reports max diff ~1.5e-5 < 2e-5. Torch 1.13 on netlib BLAS
  // gives 6.3e-5: outputs reach 123, where one float32 step is 7.6e-6, so 2e-5 is under
  // 3 steps; the two codes differ in accumulation order (nn.MultiheadAttention scales Q
  // before Q·Kᵀ and adds the mask inside baddbmm), and an absolute tolerance does not
  // carry over between builds.
  const auto data = load_reference_case("ch40_seed123_float32");
  ASSERT_EQ(data.comment("dtype"), "float32");
  const auto d = discrepancy(data.at("output").values, data.at("mha.output").values);
  EXPECT_GT(d.max_abs, 2e-5);
  EXPECT_LT(d.max_abs, 1e-4);
  EXPECT_GT(d.reference_max, 100.0);
  const float top = static_cast<float>(d.reference_max);
  const double spacing =
      std::nextafter(top, std::numeric_limits<float>::infinity()) - top;
  EXPECT_EQ(spacing, 0x1p-17);  // 7.63e-6: outputs in [64, 128)
}

TEST(Float32Parity, InputsAreFloat32ValuesSoTheLibraryComputesTheirExactAnswer) {
  const auto data = load_reference_case("ch40_seed123_float32");
  for (const char* name : {"X", "W_in", "W_O", "upstream"})
    for (double v : data.at(name).values)
      ASSERT_EQ(static_cast<double>(static_cast<float>(v)), v) << name;
  const auto run = run_library(data);
  EXPECT_TRUE(within(run.output, data.at("float64_of_float32_inputs.output").values,
                     kRelative));
  EXPECT_TRUE(within(run.weights, data.at("float64_of_float32_inputs.weights").values,
                     kRelative));
}

TEST(Float32Parity, TorchFloat32IsWithin128UnitRoundoffsOfTheExactAnswer) {
  const auto data = load_reference_case("ch40_seed123_float32");
  const auto run = run_library(data);
  const Tensor module_grad_w_in = transposed(data.at("mha.grad_in_proj_weight"));
  const Tensor module_grad_w_o = transposed(data.at("mha.grad_out_proj_weight"));
  struct Item {
    const char* name;
    const Tensor& library;
    std::span<const double> manual, module;
  };
  const Item items[] = {
      {"output", run.output, data.at("output").values, data.at("mha.output").values},
      {"weights", run.weights, data.at("weights").values,
       data.at("mha.weights").values},
      {"grad_X", run.grad_x, data.at("grad_X").values, data.at("mha.grad_X").values},
      {"grad_W_in", run.grad_w_in, data.at("grad_W_in").values,
       module_grad_w_in.values()},
      {"grad_W_O", run.grad_w_o, data.at("grad_W_O").values, module_grad_w_o.values()},
  };
  for (const auto& item : items) {
    const double tolerance =
        kFloat32Factor * kUnitRoundoff;  // relative to max|reference|
    EXPECT_TRUE(within(item.library, item.manual, tolerance))
        << item.name << " (manual float32)";
    EXPECT_TRUE(within(item.library, item.module, tolerance))
        << item.name << " (nn.MultiheadAttention float32)";
    // ... and the float32 results are not accidentally exact: the criterion has work to
    // do.
    EXPECT_GT(discrepancy(item.library.values(), item.manual).relative, kUnitRoundoff)
        << item.name;
  }
}

TEST(Float32Parity, TheFloat32CriterionWouldRejectTheFloat64Draws) {
  // Under manual_seed(123) float32 and float64 randn draw different numbers: comparing
  // one dtype's reference with the other's fails by orders of magnitude, not by
  // roundoff.
  const auto f32 = load_reference_case("ch40_seed123_float32");
  const auto f64 = load_reference_case("ch40_seed123_float64");
  EXPECT_GT(discrepancy(f32.at("X").values, f64.at("X").values).relative, 0.1);
  EXPECT_FALSE(within(run_library(f64).output, f32.at("output").values,
                      kFloat32Factor * kUnitRoundoff));
}

}  // namespace
