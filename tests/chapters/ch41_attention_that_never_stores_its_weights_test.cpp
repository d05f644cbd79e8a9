// Chapter 41's claims: the hand derivation of the Predict row, the streaming kernel
// against PyTorch float64 for every block size, the tape's growth, training with either
// kernel, and the exercise answers.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/attention/streaming.hpp>
#include <llmfs/autograd/tape.hpp>

#include "evidence.hpp"
#include "support/records.hpp"

namespace {

namespace at = llmfs::attention;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

const ch41::Evidence& evidence() {
  static const auto gathered = ch41::gather_evidence();
  EXPECT_TRUE(gathered.has_value());
  static const ch41::Evidence empty{};
  return gathered ? *gathered : empty;
}

// The reference tensors, by name.
struct Reference {
  std::vector<llmfs::testing::KeyedRecord> records = llmfs::testing::read_keyed_records(
      "tests/reference/data/attention/ch41_streaming.txt");
  Tensor get(const std::string& name) const {
    for (const auto& r : records) {
      if (r.kind != name) continue;
      std::vector<std::size_t> dims;
      std::string shape = r.fields.at("shape");
      for (std::size_t pos = 1; pos < shape.size();) {
        const std::size_t end = shape.find_first_of(",]", pos);
        dims.push_back(std::stoul(shape.substr(pos, end - pos)));
        pos = end + 1;
      }
      std::vector<double> values;
      const std::string& text = r.fields.at("values");
      for (std::size_t pos = 0; pos < text.size();) {
        const std::size_t end = std::min(text.find(',', pos), text.size());
        values.push_back(std::stod(text.substr(pos, end - pos)));
        pos = end + 1;
      }
      return Tensor::from(Shape(dims), values).value();
    }
    ADD_FAILURE() << name << " missing";
    return Tensor();
  }
};

// The hand derivation of the chapter's Derive section, with std::exp as the only tool.
TEST(Predict, RunningStatisticsFollowTheHandDerivation) {
  const auto& steps = evidence().steps;
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].after.max, 3.0);
  EXPECT_EQ(steps[0].rescale, 0.0);
  EXPECT_NEAR(steps[0].after.sum, std::exp(-2.0) + 1.0, 1e-15);
  EXPECT_EQ(steps[1].after.max, 5.0);
  EXPECT_NEAR(steps[1].rescale, std::exp(-2.0), 1e-16);
  EXPECT_NEAR(steps[1].after.sum,
              std::exp(-4.0) + std::exp(-2.0) + std::exp(-3.0) + 1.0, 1e-15);
  EXPECT_EQ(steps[2].rescale, 1.0);
  const double l =
      std::exp(-4.0) + std::exp(-2.0) + std::exp(-3.0) + 1.0 + std::exp(-5.0);
  EXPECT_NEAR(steps[2].after.sum, l, 1e-15);
  EXPECT_NEAR(evidence().log_sum_exp.values()[4], 5.0 + std::log(l), 1e-14);
}

TEST(Predict, HeadAgreesWithPyTorch) {
  const Reference ref;
  EXPECT_LE(
      ch41::relative_difference(evidence().streaming_output, ref.get("predict.output")),
      1e-15);
  EXPECT_LE(
      ch41::relative_difference(evidence().log_sum_exp, ref.get("predict.log_sum_exp")),
      1e-15);
  // The tiles: 3 query blocks × 3 key blocks, the upper three never visited
  std::size_t skipped = 0;
  for (const auto& t : evidence().tiles)
    skipped += t.kind == "skipped";
  EXPECT_EQ(skipped, 3u);
}

// Every block size 1..9 against PyTorch float64's outputs, log-sum-exp and gradients.
TEST(Reference, EveryBlockSizeAgreesWithPyTorchToOneInATrillion) {
  const Reference ref;
  const Tensor q = ref.get("random.q"), k = ref.get("random.k"),
               v = ref.get("random.v");
  for (std::size_t block = 1; block <= 9; ++block) {
    llmfs::autograd::Tape tape;
    auto qv = tape.parameter(q), kv = tape.parameter(k), vv = tape.parameter(v);
    auto head = at::streaming_causal_attention(qv, kv, vv, block);
    ASSERT_TRUE(head.has_value());
    ASSERT_TRUE(
        llmfs::autograd::backward(head->output, ref.get("random.u")).has_value());
    EXPECT_LE(
        ch41::relative_difference(*head->output.value(), ref.get("random.output")),
        1e-12);
    EXPECT_LE(ch41::relative_difference(*qv.gradient(), ref.get("random.grad_q")),
              1e-12);
    EXPECT_LE(ch41::relative_difference(*kv.gradient(), ref.get("random.grad_k")),
              1e-12);
    EXPECT_LE(ch41::relative_difference(*vv.gradient(), ref.get("random.grad_v")),
              1e-12);
    auto forward = at::streaming_attention_forward(q, k, v, block);
    ASSERT_TRUE(forward.has_value());
    EXPECT_LE(
        ch41::relative_difference(forward->log_sum_exp, ref.get("random.log_sum_exp")),
        1e-12);
  }
}

TEST(Evidence, SweepAgreesWithStoredWeights) {
  EXPECT_LE(evidence().sweep_output, 1e-12);
  EXPECT_LE(evidence().sweep_query, 1e-12);
  EXPECT_LE(evidence().sweep_key, 1e-12);
  EXPECT_LE(evidence().sweep_value, 1e-12);
}

// The stored tape holds exactly what the streaming one holds plus, per layer, four
// [B,h,T,T] tables (Q·Kᵀ, scaled, masked, weights), the [T,T] mask and Kᵀ [B,h,d_h,T]:
// 8·(4hT² + T² + h·d_h·T) bytes with h = 2, d_h = 8. Doubling T at most doubles the
// streaming tape (its parameters do not grow).
TEST(Evidence, StoredTapeHoldsTheTablesStreamingTapeDoesNot) {
  const auto& tape = evidence().tape;
  ASSERT_EQ(tape.size(), 4u);
  for (std::size_t i = 0; i < tape.size(); ++i) {
    const std::size_t t = tape[i].tokens;
    EXPECT_EQ(tape[i].stored_bytes - tape[i].streaming_bytes,
              8 * (4 * 2 * t * t + t * t + 2 * 8 * t))
        << t;
    EXPECT_EQ(tape[i].streaming_tables, 0u);
    EXPECT_EQ(tape[i].stored_tables, 5u);  // the four tables and the mask
    if (i == 0) continue;
    EXPECT_EQ(t, 2 * tape[i - 1].tokens);
    EXPECT_LE(tape[i].streaming_bytes, 2 * tape[i - 1].streaming_bytes) << t;
  }
}

// Chapter 32's decoder trained 20 AdamW steps with each kernel: one loss curve.
TEST(Training, TwentyStepsGiveTheSameLossCurveToOneInTenBillion) {
  const auto stored = ch41::train_losses({}, 20);
  const auto streaming =
      ch41::train_losses(at::streaming_kernel(ch41::kTrainBlock).value(), 20);
  ASSERT_TRUE(stored.has_value());
  ASSERT_TRUE(streaming.has_value());
  ASSERT_EQ(stored->size(), 20u);
  for (std::size_t s = 0; s < 20; ++s)
    EXPECT_NEAR((*streaming)[s], (*stored)[s], 1e-10) << s;
  EXPECT_LT(stored->back(), stored->front() - 0.5);  // it did learn
}

TEST(Exercises, AnswersAreWhatTheFormulasGive) {
  const auto& x = evidence().exercises;
  ASSERT_EQ(x.steps.size(), 2u);
  EXPECT_EQ(x.steps[0].after.max, 6.0);
  EXPECT_NEAR(x.steps[0].after.sum, std::exp(-2.0) + std::exp(-5.0) + 1.0, 1e-15);
  EXPECT_EQ(x.steps[1].after.max, 9.0);
  EXPECT_NEAR(x.steps[1].rescale, std::exp(-3.0), 1e-16);
  EXPECT_NEAR(
      x.steps[1].after.sum,
      std::exp(-5.0) + std::exp(-8.0) + 2 * std::exp(-3.0) + std::exp(-7.0) + 1.0,
      1e-15);
  EXPECT_TRUE(std::isinf(x.naive_total));
  EXPECT_EQ(x.shifted.back().after.max, 1005.0);
  EXPECT_NEAR(x.shifted.back().after.sum, evidence().steps.back().after.sum, 1e-15);
  EXPECT_EQ(x.tiles_visited, 136u);
  EXPECT_EQ(x.tiles_total, 256u);
  EXPECT_EQ(x.table_bytes, 17179869184.0);
  EXPECT_EQ(x.statistics_bytes, 1048576.0);
}

TEST(Errors, AreTypedAndNameTheStage) {
  const auto& errors = evidence().errors;
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].second.find("block size must be nonzero"), std::string::npos);
  EXPECT_NE(errors[1].second.find("token counts differ"), std::string::npos);
}

}  // namespace
