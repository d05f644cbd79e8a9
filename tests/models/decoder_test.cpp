// Chapter 32: the decoder block and model under the sanitizers — the trainer's cycle
// (loss, backward, values, set_values), the PyTorch float64 reference of the whole
// model, typed errors with their stage and cause, and refusals that change nothing.
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/models/decoder.hpp>

#include "support/decoder_reference.hpp"
#include "support/reference_data.hpp"

namespace {

using llmfs::autograd::TokenGrid;
using llmfs::models::DecoderConfig;
using llmfs::models::DecoderErrorCode;
using llmfs::models::DecoderModel;
using llmfs::models::DecoderStage;
using llmfs::tensor::Tensor;

constexpr DecoderConfig kSmall{.vocab_size = 9,
                               .model_width = 8,
                               .heads = 2,
                               .layers = 2,
                               .hidden_width = 8,
                               .context_length = 6,
                               .rope_base = 10000.0,
                               .epsilon = 1e-6,
                               .seed = 5};

TEST(Decoder, TrainerCycleKeepsValuesAndFreshTapes) {
  auto model = DecoderModel::create(kSmall).value();
  const TokenGrid inputs{2, 5, {1, 2, 3, 4, 5, 8, 7, 6, 5, 4}};
  const TokenGrid targets{2, 5, {2, 3, 4, 5, 6, 7, 6, 5, 4, 3}};
  const auto loss = model.loss(inputs, targets).value();
  ASSERT_TRUE(llmfs::autograd::backward(loss, Tensor::scalar(1.0)).has_value());
  std::vector<Tensor> values = model.values().value();
  const std::vector<Tensor> gradients = model.gradients().value();
  ASSERT_EQ(gradients.size(), values.size());
  ASSERT_EQ(values.size(), model.parameters().size());
  std::size_t index = 0;
  for (const auto& parameter : model.parameters()) {
    const Tensor gradient = parameter.value.gradient().value();
    EXPECT_EQ(gradient, gradients[index]) << parameter.name;
    double norm = 0.0;
    for (double g : gradient.values())
      norm += g * g;
    EXPECT_GT(norm, 0.0) << parameter.name;  // every parameter is reached
    // One plain gradient step, as an optimizer would take
    for (std::size_t i = 0; i < gradient.size(); ++i)
      values[index].mutable_values()[i] -= 0.1 * gradient.values()[i];
    ++index;
  }
  const double before = loss.value().value().values()[0];
  ASSERT_TRUE(model.set_values(values).has_value());
  EXPECT_EQ(model.tape().node_count(), model.parameters().size());  // only the leaves
  const double after = model.loss(inputs, targets).value().value().value().values()[0];
  EXPECT_LT(after, before);
}

TEST(Decoder, MatchesTheTorchReference) {
  const auto r = llmfs::testing::load_reference(
      std::string(LLMFS_SOURCE_DIR) +
      "/tests/reference/data/models/ch32_decoder_deep.txt");
  const DecoderConfig config = llmfs::testing::decoder_config_of(r);
  std::vector<Tensor> values = llmfs::testing::decoder_values_of(r, config);
  const auto model = DecoderModel::from_values(config, std::move(values)).value();
  auto grid = [&](const char* name) {
    const auto& t = r.at(name);
    TokenGrid g{t.shape[0], t.shape[1], {}};
    for (double v : t.values)
      g.ids.push_back(static_cast<llmfs::text::TokenId>(v));
    return g;
  };
  const auto loss = model.loss(grid("ids"), grid("targets")).value();
  EXPECT_NEAR(loss.value().value().values()[0], r.scalar("loss"), 1e-12);
  ASSERT_TRUE(llmfs::autograd::backward(loss, Tensor::scalar(1.0)).has_value());
  for (const auto& parameter : model.parameters()) {
    const auto d =
        llmfs::testing::discrepancy(parameter.value.gradient().value().values(),
                                    r.at("grad_" + parameter.name).values);
    EXPECT_LE(d.relative, 1e-12) << parameter.name;
  }
}

TEST(Decoder, ErrorsNameTheirStageAndKeepTheirCause) {
  const auto model = DecoderModel::create(kSmall).value();
  const auto long_input =
      model.forward({1, 7, std::vector<llmfs::text::TokenId>(7, 0)});
  ASSERT_FALSE(long_input.has_value());
  EXPECT_EQ(long_input.error().code, DecoderErrorCode::context_overflow);
  EXPECT_EQ(long_input.error().stage, DecoderStage::input);
  // A released tape fails at the first tape operation, the embedding, with its cause.
  model.tape().release();
  const auto released = model.forward({1, 2, {0, 1}});
  ASSERT_FALSE(released.has_value());
  EXPECT_EQ(released.error().code, DecoderErrorCode::stage_failed);
  EXPECT_EQ(released.error().stage, DecoderStage::embedding);
  ASSERT_TRUE(released.error().cause.has_value());
  EXPECT_TRUE(std::holds_alternative<llmfs::nn::NnError>(*released.error().cause));
  EXPECT_NE(fmt::format("{}", released.error()).find("released"), std::string::npos);
  EXPECT_EQ(model.values().error().stage, DecoderStage::values);
}

TEST(Decoder, RefusedValuesChangeNothing) {
  auto model = DecoderModel::create(kSmall).value();
  const auto before = model.values().value();
  const auto tape = model.tape();
  EXPECT_EQ(model.set_values({}).error().code, DecoderErrorCode::value_count);
  EXPECT_TRUE(model.tape() == tape);
  const auto after = model.values().value();
  for (std::size_t i = 0; i < before.size(); ++i)
    for (std::size_t j = 0; j < before[i].size(); ++j)
      EXPECT_EQ(std::bit_cast<std::uint64_t>(before[i].values()[j]),
                std::bit_cast<std::uint64_t>(after[i].values()[j]));
}

}  // namespace
