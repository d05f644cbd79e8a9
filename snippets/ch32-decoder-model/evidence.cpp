// Chapter 32
// Gathers every value chapter 32 prints. Nothing here re-implements the model: every
// number comes from llmfs::models::DecoderModel or the tape it records on.

#include "evidence.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <set>
#include <span>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/core/splitmix64.hpp>

namespace ch32 {

using llmfs::autograd::TensorValue;
using llmfs::autograd::TokenGrid;
using llmfs::models::DecoderConfig;
using llmfs::models::DecoderModel;

namespace {

[[nodiscard]] Step<Tensor> value_of(const TensorValue& node) {
  return LLMFS_TRY_AT("read a value", node.value());
}

double root_mean_square(std::span<const double> values) {
  double sum = 0.0;
  for (double v : values)
    sum += v * v;
  return std::sqrt(sum / static_cast<double>(values.size()));
}

double norm(std::span<const double> values) {
  double sum = 0.0;
  for (double v : values)
    sum += v * v;
  return std::sqrt(sum);
}

std::size_t differing(std::span<const double> a, std::span<const double> b) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    n += std::bit_cast<std::uint64_t>(a[i]) != std::bit_cast<std::uint64_t>(b[i]);
  return n;
}

// The Predict model: logits, loss and the token each position predicts.
[[nodiscard]] Step<void> predict_fixture(Evidence& out) {
  const auto model = LLMFS_TRY_AT(
      "fixture model", DecoderModel::from_values(kFixtureConfig, fixture_values()));
  out.fixture_parameters = model.parameter_count();
  out.fixture_logits = LLMFS_TRY(
      value_of(LLMFS_TRY_AT("fixture forward", model.forward(fixture_ids()))));
  const auto loss =
      LLMFS_TRY_AT("fixture loss", model.loss(fixture_ids(), fixture_targets()));
  out.fixture_loss = LLMFS_TRY(value_of(loss)).values()[0];
  const std::size_t v = kFixtureConfig.vocab_size;
  for (std::size_t p = 0; p < fixture_ids().ids.size(); ++p) {
    const auto row = out.fixture_logits.values().subspan(p * v, v);
    out.fixture_predicted.push_back(
        static_cast<std::size_t>(std::ranges::max_element(row) - row.begin()));
  }
  return {};
}

// B rows of T + 1 ids from one seeded stream: inputs are the first T, targets the last
// T.
void demo_batch(Evidence& out) {
  llmfs::SplitMix64 rng(kDemoStreamSeed);
  out.inputs = {kDemoBatch, kDemoTokens, {}};
  out.targets = {kDemoBatch, kDemoTokens, {}};
  for (std::size_t b = 0; b < kDemoBatch; ++b) {
    std::vector<llmfs::text::TokenId> row;
    for (std::size_t t = 0; t <= kDemoTokens; ++t)
      row.push_back(
          static_cast<llmfs::text::TokenId>(rng.next_u64() % kDemoConfig.vocab_size));
    out.inputs.ids.insert(out.inputs.ids.end(), row.begin(), row.end() - 1);
    out.targets.ids.insert(out.targets.ids.end(), row.begin() + 1, row.end());
  }
}

// region: tied-gradient-split
// ∂L/∂E arrives along two paths: the output path G_out[v] = Σ_p ∂L/∂z_p[v] · n_p (the
// logits' matmul) and the input path (the lookup's scatter-add). Both read one tape.
[[nodiscard]] Step<void> split_table_gradient(const DecoderModel& model,
                                              const llmfs::models::DecoderForward& f,
                                              Evidence& out) {
  const Tensor total =
      LLMFS_TRY_AT("table gradient", model.embedding().table().value.gradient());
  const Tensor dz = LLMFS_TRY_AT("logit gradient", f.logits.gradient());
  const Tensor n = LLMFS_TRY(value_of(f.normalized));
  const std::size_t vocab = kDemoConfig.vocab_size, d = kDemoConfig.model_width;
  std::vector<double> output_path(vocab * d, 0.0), input_path(vocab * d, 0.0);
  for (std::size_t p = 0; p < kDemoBatch * kDemoTokens; ++p)
    for (std::size_t v = 0; v < vocab; ++v)
      for (std::size_t j = 0; j < d; ++j)
        output_path[v * d + j] += dz.values()[p * vocab + v] * n.values()[p * d + j];
  for (std::size_t i = 0; i < vocab * d; ++i)
    input_path[i] = total.values()[i] - output_path[i];
  out.table_gradient_norm = norm(total.values());
  out.output_path_norm = norm(output_path);
  out.input_path_norm = norm(input_path);
  for (std::size_t v = 0; v < vocab; ++v) {
    const auto row = std::span(input_path).subspan(v * d, d);
    out.rows_with_gradient += norm(row) > 1e-12;
  }
  return {};
}
// endregion: tied-gradient-split

// The stream's RMS after the embedding and after every block, with both branches'.
[[nodiscard]] Step<void> trace_stream(const llmfs::models::DecoderForward& f,
                                      Evidence& out) {
  out.stream.push_back({"embeddings",
                        root_mean_square(LLMFS_TRY(value_of(f.embeddings)).values()), 0,
                        0});
  for (std::size_t i = 0; i < f.blocks.size(); ++i) {
    const auto& b = f.blocks[i];
    out.stream.push_back(
        {fmt::format("blocks.{}", i),
         root_mean_square(LLMFS_TRY(value_of(b.output)).values()),
         root_mean_square(LLMFS_TRY(value_of(b.attention_output)).values()),
         root_mean_square(LLMFS_TRY(value_of(b.ffn_output)).values())});
  }
  return {};
}

// region: whole-model-gradcheck
// Every coordinate of every parameter of a tiny model, by central differences on the
// loss rebuilt from the moved values (2 passes per coordinate).
[[nodiscard]] Step<llmfs::autograd::GradientCheckReport> check_whole_model() {
  const DecoderConfig tiny{.vocab_size = 5,
                           .model_width = 4,
                           .heads = 2,
                           .layers = 1,
                           .hidden_width = 4,
                           .context_length = 4,
                           .rope_base = 100.0,
                           .epsilon = 1e-6,
                           .seed = 7};
  const TokenGrid ids{1, 3, {4, 0, 2}}, targets{1, 3, {0, 2, 1}};
  const auto model = LLMFS_TRY_AT("tiny model", DecoderModel::create(tiny));
  const auto loss = LLMFS_TRY_AT("tiny loss", model.loss(ids, targets));
  LLMFS_TRY_AT("tiny backward", llmfs::autograd::backward(loss, Tensor::scalar(1.0)));
  std::vector<Tensor> point = LLMFS_TRY_AT("tiny values", model.values());
  std::vector<Tensor> analytic;
  for (const auto& parameter : model.parameters())
    analytic.push_back(LLMFS_TRY_AT("tiny gradient", parameter.value.gradient()));
  auto f = [&](std::span<const Tensor> values)
      -> std::expected<Tensor, llmfs::models::DecoderError> {
    auto moved = LLMFS_TRY(DecoderModel::from_values(
        tiny, std::vector<Tensor>(values.begin(), values.end())));
    auto value = LLMFS_TRY(moved.loss(ids, targets));
    return LLMFS_TRY_AT(llmfs::models::DecoderStage::loss, value.value());
  };
  return LLMFS_TRY_AT(
      "central differences",
      llmfs::autograd::check_gradients(
          f, point, analytic,
          {.step = 1e-6, .absolute_tolerance = 1e-7, .relative_tolerance = 1e-5}));
}
// endregion: whole-model-gradcheck

}  // namespace

Step<Evidence> gather_evidence() {
  Evidence out;
  LLMFS_TRY(predict_fixture(out));
  out.specs = llmfs::models::decoder_parameter_specs(kDemoConfig);
  out.formula_count =
      LLMFS_TRY_AT("count", llmfs::models::decoder_parameter_count(kDemoConfig));
  auto model = LLMFS_TRY_AT("demo model", DecoderModel::create(kDemoConfig));
  out.parameter_count = model.parameter_count();
  out.components.push_back({"embedding (tied)", model.embedding().parameter_count()});
  for (std::size_t i = 0; i < model.blocks().size(); ++i)
    out.components.push_back(
        {fmt::format("blocks.{}", i), model.blocks()[i].parameter_count()});
  out.components.push_back({"final_norm", model.final_norm().width()});
  demo_batch(out);
  out.log_vocab = std::log(static_cast<double>(kDemoConfig.vocab_size));
  // One forward pass keeping every stage, the loss on its logits, one backward pass
  const auto stages = LLMFS_TRY_AT("demo forward", model.forward_stages(out.inputs));
  out.logits = LLMFS_TRY(value_of(stages.logits));
  const auto loss = LLMFS_TRY_AT(
      "demo loss", llmfs::autograd::cross_entropy(stages.logits, out.targets));
  out.loss = LLMFS_TRY(value_of(loss)).values()[0];
  LLMFS_TRY_AT("demo backward", llmfs::autograd::backward(loss, Tensor::scalar(1.0)));
  LLMFS_TRY(split_table_gradient(model, stages, out));
  out.rows_read = std::set(out.inputs.ids.begin(), out.inputs.ids.end()).size();
  LLMFS_TRY(trace_stream(stages, out));
  // Causality: change row 0's last input token; compare every position's logits
  TokenGrid changed = out.inputs;
  changed.ids[kDemoTokens - 1] =
      (changed.ids[kDemoTokens - 1] + 1) %
      static_cast<llmfs::text::TokenId>(kDemoConfig.vocab_size);
  const Tensor other =
      LLMFS_TRY(value_of(LLMFS_TRY_AT("changed forward", model.forward(changed))));
  const std::size_t v = kDemoConfig.vocab_size;
  for (std::size_t p = 0; p < kDemoBatch * kDemoTokens; ++p)
    out.changed_per_position.push_back(differing(
        other.values().subspan(p * v, v), out.logits.values().subspan(p * v, v)));
  // The trainer's cycle: values out, values back on a fresh tape, the same logits
  LLMFS_TRY_AT("reset tape", model.reset_tape());
  const Tensor again = LLMFS_TRY(
      value_of(LLMFS_TRY_AT("forward after reset", model.forward(out.inputs))));
  out.reset_mismatches = differing(again.values(), out.logits.values());
  out.gradcheck = LLMFS_TRY(check_whole_model());
  out.errors = LLMFS_TRY(gather_errors());
  out.exercises = LLMFS_TRY(answer_exercises(out));
  return out;
}

}  // namespace ch32
