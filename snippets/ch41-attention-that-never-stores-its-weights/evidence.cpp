// Chapter 41
// Chapter 41's evidence: the Predict row and head, the sweep over every block size,
// what the tape holds at growing T, a short training run with each kernel, the typed
// errors.

#include "evidence.hpp"

#include <algorithm>
#include <cmath>

#include <llmfs/attention/causal.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/nn/init.hpp>
#include <llmfs/training/adamw.hpp>
#include <llmfs/training/decoder_loss.hpp>

namespace ch41 {

namespace at = llmfs::attention;
using llmfs::autograd::Tape;
using llmfs::tensor::Shape;

double relative_difference(const Tensor& a, const Tensor& b) {
  double diff = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    diff = std::max(diff, std::abs(a.values()[i] - b.values()[i]));
    scale = std::max(scale, std::abs(b.values()[i]));
  }
  return scale > 0.0 ? diff / scale
                     : diff;  // an all-zero reference: the difference itself
}

namespace {

[[nodiscard]] Step<Tensor> tensor_of(Shape shape, std::span<const double> values) {
  return LLMFS_TRY_AT("fixture",
                      Tensor::from(std::move(shape), {values.begin(), values.end()}));
}

// The Predict head through both kernels, and its tiles.
[[nodiscard]] Step<void> predict_head(Evidence& e) {
  const Tensor q = LLMFS_TRY(tensor_of(Shape{1, 1, 5, 1}, kQuery));
  const Tensor k = LLMFS_TRY(tensor_of(Shape{1, 1, 5, 1}, kScores));
  const Tensor v = LLMFS_TRY(tensor_of(Shape{1, 1, 5, 2}, kValue));
  auto streamed =
      LLMFS_TRY_AT("streaming head", at::streaming_attention_forward(q, k, v, kBlock));
  Tape tape;
  auto stored = LLMFS_TRY_AT(
      "stored head",
      at::causal_self_attention(tape.constant(q), tape.constant(k), tape.constant(v)));
  e.streaming_output = std::move(streamed.output);
  e.log_sum_exp = std::move(streamed.log_sum_exp);
  e.stored_output = LLMFS_TRY_AT("stored head", stored.output.value());
  const std::size_t blocks = (kScores.size() + kBlock - 1) / kBlock;
  for (std::size_t qb = 0; qb < blocks; ++qb)
    for (std::size_t kb = 0; kb < blocks; ++kb)
      e.tiles.push_back({qb, kb, kb < qb ? "full" : kb == qb ? "diagonal" : "skipped"});
  return {};
}

// Output and ∂(Σ O ⊙ U)/∂Q, K, V by one kernel, on a fresh tape.
[[nodiscard]] Step<std::vector<Tensor>> head_run(at::CausalAttentionFn kernel,
                                                 const std::vector<Tensor>& in,
                                                 std::size_t block) {
  Tape tape;
  auto q = tape.parameter(in[0]), k = tape.parameter(in[1]), v = tape.parameter(in[2]);
  auto head = LLMFS_TRY_AT("sweep head", kernel(q, k, v, block));
  LLMFS_TRY_AT("sweep backward", llmfs::autograd::backward(head.output, in[3]));
  return std::vector<Tensor>{
      LLMFS_TRY_AT("sweep", head.output.value()), LLMFS_TRY_AT("sweep", q.gradient()),
      LLMFS_TRY_AT("sweep", k.gradient()), LLMFS_TRY_AT("sweep", v.gradient())};
}

// region: block-sweep
// Every block size from 1 to T against the stored weights: the largest relative
// difference of the output and of each gradient.
[[nodiscard]] Step<void> sweep(Evidence& e) {
  llmfs::SplitMix64 rng(kSweepSeed);
  const Shape shape{1, 2, kSweepTokens, 4};
  std::vector<Tensor> in;  // Q, K, V, upstream
  for (int i = 0; i < 4; ++i)
    in.push_back(LLMFS_TRY_AT("sweep draw", llmfs::nn::uniform_fan_in(shape, 1, rng)));
  const auto stored = LLMFS_TRY(head_run(&at::stored_weights_attention, in, 0));
  for (std::size_t block = 1; block <= kSweepTokens; ++block) {
    const auto streamed =
        LLMFS_TRY(head_run(&at::streaming_causal_attention, in, block));
    double* worst[] = {&e.sweep_output, &e.sweep_query, &e.sweep_key, &e.sweep_value};
    for (std::size_t i = 0; i < 4; ++i)
      *worst[i] = std::max(*worst[i], relative_difference(streamed[i], stored[i]));
  }
  return {};
}
// endregion: block-sweep

}  // namespace

// region: tape-size
// One layer's forward at T tokens with each kernel: the bytes of every value the tape
// keeps, and how many of them are [..., T, T] tables.
Step<TapeSize> tape_size(std::size_t tokens) {
  TapeSize size{tokens};
  const auto streaming = LLMFS_TRY_AT("kernel", at::streaming_kernel(kTapeBlock));
  for (const auto& kernel : {at::AttentionKernel{}, streaming}) {
    Tape tape;
    llmfs::SplitMix64 rng(41);
    auto layer = LLMFS_TRY_AT(
        "tape layer", at::MultiHeadAttention::create(tape, "mha", 16, 2,
                                                     at::NoPositions{}, rng, kernel));
    auto x = LLMFS_TRY_AT("tape input",
                          llmfs::nn::uniform_fan_in(Shape{1, tokens, 16}, 1, rng));
    LLMFS_TRY_AT("tape forward", layer.forward(tape.constant(std::move(x)), 0));
    std::size_t bytes = 0, tables = 0;
    for (const auto& node : tape.nodes()) {
      bytes += 8 * node.shape.element_count().value_or(0);
      const auto& s = node.shape;
      tables += s.rank() >= 2 && s[s.rank() - 1] == tokens && s[s.rank() - 2] == tokens;
    }
    (kernel == streaming ? size.streaming_bytes : size.stored_bytes) = bytes;
    (kernel == streaming ? size.streaming_tables : size.stored_tables) = tables;
  }
  return size;
}
// endregion: tape-size

// region: train-both
Step<std::vector<double>> train_losses(at::AttentionKernel kernel, std::size_t steps) {
  auto config = kTrainConfig;
  config.attention = kernel;
  auto model = LLMFS_TRY_AT("train model", llmfs::models::DecoderModel::create(config));
  auto values = LLMFS_TRY_AT("train values", model.values());
  auto optimizer = LLMFS_TRY_AT(
      "train optimizer",
      llmfs::training::AdamW::create({.learning_rate = 1e-2},
                                     llmfs::training::decoder_groups(config, 0.1)));
  // One fixed batch: ids (7·p + 3·b) mod V, targets the next position's id
  llmfs::training::Batch batch{
      {kTrainBatch, kTrainTokens, {}}, {kTrainBatch, kTrainTokens, {}}, {}};
  for (std::size_t b = 0; b < kTrainBatch; ++b)
    for (std::size_t p = 0; p < kTrainTokens; ++p) {
      batch.inputs.ids.push_back(static_cast<int>((7 * p + 3 * b) % config.vocab_size));
      batch.targets.ids.push_back(
          static_cast<int>((7 * p + 7 + 3 * b) % config.vocab_size));
    }
  const auto loss = llmfs::training::decoder_loss(config);
  std::vector<double> losses;
  for (std::size_t s = 0; s < steps; ++s) {
    auto pass = LLMFS_TRY_AT("train pass", loss(values, batch, true));
    losses.push_back(pass.loss);
    LLMFS_TRY_AT("train step", optimizer.step(values, pass.gradients));
  }
  return losses;
}
// endregion: train-both

Step<Evidence> gather_evidence() {
  Evidence e;
  e.steps = LLMFS_TRY_AT("predict row", at::online_softmax(kScores, kBlock));
  for (const double s : kScores)
    e.direct_sum += std::exp(s - *std::ranges::max_element(kScores));
  LLMFS_TRY(predict_head(e));
  LLMFS_TRY(sweep(e));
  for (const std::size_t tokens : kTapeTokens)
    e.tape.push_back(LLMFS_TRY(tape_size(tokens)));
  const auto streaming = LLMFS_TRY_AT("kernel", at::streaming_kernel(kTrainBlock));
  e.stored_losses = LLMFS_TRY(train_losses({}, kDemoSteps));
  e.streaming_losses = LLMFS_TRY(train_losses(streaming, kDemoSteps));
  Tape tape;
  const auto three = tape.constant(Tensor::zeros(Shape{1, 3, 2}));
  const auto four = tape.constant(Tensor::zeros(Shape{1, 4, 2}));
  e.errors = {{"zero_block", snippets::error_text(at::streaming_kernel(0))},
              {"token_mismatch", snippets::error_text(at::streaming_causal_attention(
                                     three, four, four, 2))}};
  e.exercises = LLMFS_TRY(answer_exercises());
  return e;
}

}  // namespace ch41
