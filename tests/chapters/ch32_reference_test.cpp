// Chapter 32
// The whole model against PyTorch float64 (tests/reference/decoder_reference.py, data
// written by tests/reference/make_decoder_reference.py): a random model and batch per
// case, loaded into models::DecoderModel::from_values; the logits, the loss and every
// parameter's gradient agree within 1e-12 relative (max-norm error over the reference's
// max-norm), and Chapter 31's block intermediates too.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/models/decoder.hpp>

#include "support/decoder_reference.hpp"
#include "support/reference_data.hpp"

namespace {

using llmfs::autograd::TokenGrid;
using llmfs::models::DecoderConfig;
using llmfs::models::DecoderModel;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::testing::ReferenceData;

constexpr double kTolerance = 1e-12;

ReferenceData load(const std::string& name) {
  return llmfs::testing::load_reference(
      std::string(LLMFS_SOURCE_DIR) + "/tests/reference/data/models/" + name + ".txt");
}

TokenGrid grid_of(const ReferenceData& r, const char* name) {
  const auto& t = r.at(name);
  TokenGrid grid{.batch = t.shape.at(0), .time = t.shape.at(1), .ids = {}};
  for (double v : t.values)
    grid.ids.push_back(static_cast<llmfs::text::TokenId>(v));
  return grid;
}

void expect_close(const Tensor& actual, const ReferenceData& r,
                  const std::string& name) {
  const auto& expected = r.at(name);
  ASSERT_EQ(std::vector<std::size_t>(actual.shape().begin(), actual.shape().end()),
            expected.shape)
      << name;
  const auto d = llmfs::testing::discrepancy(actual.values(), expected.values);
  EXPECT_TRUE(d.same_size && d.same_nonfinite) << name;
  EXPECT_LE(d.relative, kTolerance)
      << name << " max |diff| " << d.max_abs << " at " << d.worst_index;
}

void check_case(const std::string& name) {
  const ReferenceData r = load(name);
  const DecoderConfig config = llmfs::testing::decoder_config_of(r);
  std::vector<Tensor> values = llmfs::testing::decoder_values_of(r, config);
  const auto model = DecoderModel::from_values(config, std::move(values));
  ASSERT_TRUE(model.has_value()) << fmt::format("{}", model.error());
  const TokenGrid ids = grid_of(r, "ids");
  const TokenGrid targets = grid_of(r, "targets");
  const auto stages = model->forward_stages(ids);
  ASSERT_TRUE(stages.has_value()) << fmt::format("{}", stages.error());
  expect_close(stages->embeddings.value().value(), r, "embeddings");
  for (std::size_t i = 0; i < config.layers; ++i) {
    const auto& b = stages->blocks[i];
    const std::string p = fmt::format("blocks.{}.", i);
    expect_close(b.attention_input.value().value(), r, p + "attention_input");
    expect_close(b.attention.attention_weights.value().value(), r,
                 p + "attention_weights");
    expect_close(b.attention_output.value().value(), r, p + "attention_output");
    expect_close(b.hidden.value().value(), r, p + "hidden");
    expect_close(b.ffn_input.value().value(), r, p + "ffn_input");
    expect_close(b.ffn_output.value().value(), r, p + "ffn_output");
    expect_close(b.output.value().value(), r, p + "output");
  }
  expect_close(stages->normalized.value().value(), r, "normalized");
  expect_close(stages->logits.value().value(), r, "logits");
  const auto loss = model->loss(ids, targets);
  ASSERT_TRUE(loss.has_value()) << fmt::format("{}", loss.error());
  expect_close(loss->value().value(), r, "loss");
  ASSERT_TRUE(llmfs::autograd::backward(*loss, Tensor::scalar(1.0)).has_value());
  std::size_t compared = 0;
  for (const auto& parameter : model->parameters()) {
    expect_close(parameter.value.gradient().value(), r, "grad_" + parameter.name);
    ++compared;
  }
  EXPECT_EQ(compared, 2 + 9 * config.layers);
}

TEST(Reference, SmallDecoderMatchesPyTorchFloat64) {
  check_case("ch32_decoder_small");
}

TEST(Reference, DeepDecoderMatchesPyTorchFloat64) {
  check_case("ch32_decoder_deep");
}

}  // namespace
