// Chapter 31
// Gathers every value chapter 31 prints. Nothing here re-implements the block: every
// number comes from llmfs::models::DecoderBlock or the layers it is made of.

#include "evidence.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <span>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/tensor/broadcast.hpp>

namespace ch31 {

using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::models::DecoderBlock;
using llmfs::models::DecoderBlockError;
using llmfs::models::DecoderBlockStage;

namespace {

// The nine parameter values in the block's order: g₁, W_Q, W_K, W_V, W_O, g₂, W₁, W₃,
// W₂.
std::vector<Tensor> fixture_parameters(bool zero_branches) {
  const Tensor ones = Tensor::full({kModelWidth}, 1.0);
  Tensor identity = Tensor::zeros({kModelWidth, kModelWidth});
  for (std::size_t i = 0; i < kModelWidth; ++i)
    identity.mutable_values()[i * kModelWidth + i] = 1.0;
  const Tensor off =
      zero_branches ? Tensor::zeros({kModelWidth, kModelWidth}) : identity;
  return {ones, identity, identity, identity, off, ones, identity, identity, off};
}

// region: fixture-block
// The fixture block from nine parameter nodes, each layer from its exact matrices.
[[nodiscard]] std::expected<DecoderBlock, DecoderBlockError> fixture_block(
    std::span<const TensorValue> w) {
  constexpr auto stage = DecoderBlockStage::configuration;
  auto name = [](const char* role) {
    return fmt::format("{}.{}.weight", kPrefix, role);
  };
  auto norm1 = LLMFS_TRY_AT(stage, llmfs::nn::RMSNorm::from_parameters(
                                       {name("attention_norm"), w[0]}, kEpsilon));
  auto attention = LLMFS_TRY_AT(
      stage, llmfs::attention::MultiHeadAttention::from_parameters(
                 {name("attention.query"), w[1]}, {name("attention.key"), w[2]},
                 {name("attention.value"), w[3]}, {name("attention.output"), w[4]},
                 kHeads, kMaxPositions, kRopeBase));
  auto norm2 = LLMFS_TRY_AT(
      stage, llmfs::nn::RMSNorm::from_parameters({name("ffn_norm"), w[5]}, kEpsilon));
  auto ffn = LLMFS_TRY_AT(stage, llmfs::nn::SwiGluFeedForward::from_parameters(
                                     {name("ffn.gate"), w[6]}, {name("ffn.up"), w[7]},
                                     {name("ffn.down"), w[8]}));
  return DecoderBlock::from_layers(std::move(norm1), std::move(attention),
                                   std::move(norm2), std::move(ffn));
}
// endregion: fixture-block

// One run: the input and the nine parameters are leaves of one tape.
struct Run {
  Tape tape;
  TensorValue x;
  std::vector<TensorValue> weights;
  std::optional<DecoderBlock> block;
  std::optional<llmfs::models::DecoderBlockForward> forward;
};

[[nodiscard]] Step<Run> run(const Tensor& input, bool zero_branches) {
  Run r;
  r.x = r.tape.parameter(input);
  for (auto& value : fixture_parameters(zero_branches))
    r.weights.push_back(r.tape.parameter(std::move(value)));
  r.block = LLMFS_TRY_AT("fixture block", fixture_block(r.weights));
  r.forward = LLMFS_TRY_AT("fixture forward", r.block->forward(r.x, 0));
  return r;
}

[[nodiscard]] Step<Tensor> value_of(const TensorValue& node) {
  return LLMFS_TRY_AT("read a value", node.value());
}

[[nodiscard]] Step<Stages> stages_of(const llmfs::models::DecoderBlockForward& f) {
  return Stages{
      .input = LLMFS_TRY(value_of(f.input)),
      .attention_input = LLMFS_TRY(value_of(f.attention_input)),
      .attention_output = LLMFS_TRY(value_of(f.attention_output)),
      .hidden = LLMFS_TRY(value_of(f.hidden)),
      .ffn_input = LLMFS_TRY(value_of(f.ffn_input)),
      .ffn_output = LLMFS_TRY(value_of(f.ffn_output)),
      .output = LLMFS_TRY(value_of(f.output)),
      .attention_weights = LLMFS_TRY(value_of(f.attention.attention_weights))};
}

// region: post-norm-contrast
// The same four layers in the 2017 arrangement: h = RMSNorm₁(x + MHA(x)),
// y = RMSNorm₂(h + SwiGLU(h)), the stream normalised after every sum.
[[nodiscard]] Step<Tensor> post_norm(const DecoderBlock& block, const TensorValue& x) {
  auto attended = LLMFS_TRY_AT("post-norm attention", block.attention().forward(x, 0));
  auto sum1 = LLMFS_TRY_AT("post-norm sum", llmfs::autograd::add(x, attended.output));
  auto h = LLMFS_TRY_AT("post-norm norm", block.attention_norm().forward(sum1));
  auto fed = LLMFS_TRY_AT("post-norm ffn", block.feed_forward().forward(h));
  auto sum2 = LLMFS_TRY_AT("post-norm sum", llmfs::autograd::add(h, fed));
  auto y = LLMFS_TRY_AT("post-norm norm", block.ffn_norm().forward(sum2));
  return value_of(y);
}
// endregion: post-norm-contrast

// Coordinates per token row where a and b differ, bit for bit.
std::vector<std::size_t> changed_rows(const Tensor& a, const Tensor& b) {
  std::vector<std::size_t> changed(kTokens, 0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::bit_cast<std::uint64_t>(a.values()[i]) !=
        std::bit_cast<std::uint64_t>(b.values()[i]))
      ++changed[i / kModelWidth];
  }
  return changed;
}

// region: refused-calls
// One refused call per way a block can fail, each with the library's message.
[[nodiscard]] Step<std::vector<std::pair<std::string, std::string>>> gather_errors() {
  std::vector<std::pair<std::string, std::string>> errors;
  auto r = LLMFS_TRY(run(fixture_input(), false));
  const auto narrow = r.tape.constant(Tensor::zeros({1, kTokens, kModelWidth + 1}));
  errors.emplace_back("input_width", snippets::error_text(r.block->forward(narrow, 0)));
  errors.emplace_back("position_range", snippets::error_text(r.block->forward(r.x, 2)));
  llmfs::SplitMix64 rng(31);
  auto wide = LLMFS_TRY_AT("wide ffn", llmfs::nn::SwiGluFeedForward::create(
                                           r.tape, "wide", kModelWidth + 2, 8, rng));
  errors.emplace_back("width_mismatch",
                      snippets::error_text(DecoderBlock::from_layers(
                          r.block->attention_norm(), r.block->attention(),
                          r.block->ffn_norm(), std::move(wide))));
  // Sizes in DecoderBlockShape's order: d_model, heads, d_ff, capacity, base, ε
  const llmfs::models::DecoderBlockShape three_heads{
      kModelWidth, 3, kHiddenWidth, kMaxPositions, kRopeBase, kEpsilon};
  errors.emplace_back("heads", snippets::error_text(DecoderBlock::create(
                                   r.tape, "bad", three_heads, rng)));
  r.tape.release();
  errors.emplace_back("released", snippets::error_text(r.block->forward(r.x, 0)));
  return errors;
}
// endregion: refused-calls

}  // namespace

Step<Stages> run_fixture(const Tensor& input, bool zero_branches) {
  auto r = LLMFS_TRY(run(input, zero_branches));
  return stages_of(*r.forward);
}

Step<Evidence> gather_evidence() {
  Evidence out;
  auto r = LLMFS_TRY(run(fixture_input(), false));
  out.fixture = LLMFS_TRY(stages_of(*r.forward));
  out.scaled = LLMFS_TRY(run_fixture(
      LLMFS_TRY_AT("scale", llmfs::tensor::scale(fixture_input(), kScale))));
  auto zero = LLMFS_TRY(run(fixture_input(), true));
  out.zero_branches = LLMFS_TRY(stages_of(*zero.forward));
  out.identity_mismatches = 0;
  for (std::size_t n : changed_rows(out.zero_branches.output, fixture_input()))
    out.identity_mismatches += n;
  out.post_norm_zero = LLMFS_TRY(post_norm(*zero.block, zero.x));
  for (const auto& parameter : r.block->parameters()) {
    out.parameter_names.push_back(parameter.name);
    out.parameter_shapes.push_back(parameter.value.shape());
  }
  out.parameter_count = r.block->parameter_count();
  out.formula_count = llmfs::models::block_parameter_count(kModelWidth, kHiddenWidth);
  const Stages perturbed = LLMFS_TRY(run_fixture(perturbed_input()));
  out.changed_per_row = changed_rows(perturbed.output, out.fixture.output);
  out.errors = LLMFS_TRY(gather_errors());
  out.exercises = LLMFS_TRY(answer_exercises(out));
  return out;
}

}  // namespace ch31
