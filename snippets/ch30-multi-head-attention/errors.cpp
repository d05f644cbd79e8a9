// Chapter 30
// One refused configuration or input per typed error of the multi-head layer.

#include <limits>

#include <llmfs/nn/splitmix64.hpp>

#include "evidence.hpp"

namespace ch30 {

using llmfs::attention::MultiHeadAttention;
using llmfs::attention::MultiHeadError;
using llmfs::attention::MultiHeadErrorCode;
using llmfs::autograd::Tape;
using llmfs::tensor::Tensor;

namespace {

// Rejected, and with the expected code?
template <class T>
RejectedCase expect(const std::expected<T, MultiHeadError>& result,
                    MultiHeadErrorCode code) {
  if (result) return {false, "accepted"};
  return {result.error().code == code, fmt::format("{}", result.error())};
}

}  // namespace

ErrorEvidence gather_errors() {
  ErrorEvidence out;

  // Configuration: checked before a single number is drawn.
  llmfs::nn::SplitMix64 rng(30);
  const llmfs::nn::SplitMix64 before = rng;
  Tape tape;
  auto create = [&](std::size_t width, std::size_t heads) {
    return MultiHeadAttention::create(tape, kParameterPrefix, width, heads,
                                      kMaxPositions, kRopeBase, rng);
  };
  out.zero_model_width = expect(create(0, 2), MultiHeadErrorCode::zero_model_width);
  out.zero_heads = expect(create(4, 0), MultiHeadErrorCode::zero_heads);
  out.nondivisible = expect(create(4, 3), MultiHeadErrorCode::width_not_divisible);
  out.odd_head_width = expect(create(4, 4), MultiHeadErrorCode::odd_head_width);
  out.rng_untouched = rng == before;

  // Input: rank, width, tokens, then the position interval, all before any tape
  // operation.
  auto run = run_fixture(fixture_input(), kOffset);
  if (!run) {
    out.input_rank.message = run.error();
    return out;
  }
  const MultiHeadAttention& layer = run->layer;
  auto forward = [&](const Tensor& input, std::size_t offset) {
    return layer.forward(run->tape.constant(input), offset);
  };
  out.input_rank = expect(forward(Tensor::zeros({kTokens, kModelWidth}), kOffset),
                          MultiHeadErrorCode::input_rank);
  out.input_width =
      expect(forward(Tensor::zeros({kBatch, kTokens, kModelWidth + 1}), kOffset),
             MultiHeadErrorCode::input_width);
  out.empty_tokens = expect(forward(Tensor::zeros({kBatch, 0, kModelWidth}), kOffset),
                            MultiHeadErrorCode::empty_tokens);
  out.offset_overflow =
      expect(forward(fixture_input(), std::numeric_limits<std::size_t>::max()),
             MultiHeadErrorCode::offset_overflow);
  out.position_range = expect(forward(fixture_input(), kMaxPositions - kTokens + 1),
                              MultiHeadErrorCode::position_range);

  // A released input: its tape is gone before the layer reads it.
  auto released = run_fixture(fixture_input(), kOffset);
  if (released) {
    auto input = released->tape.constant(fixture_input());
    released->tape.release();
    auto result = released->layer.forward(input, kOffset);
    if (result) {
      out.released_input = {false, "accepted"};
    } else {
      const auto* cause = autograd_cause(result.error());
      out.released_input = {
          result.error().code == MultiHeadErrorCode::stage_failed && cause != nullptr &&
              cause->code == llmfs::autograd::AutogradErrorCode::released_input,
          fmt::format("{}", result.error())};
    }
  }
  return out;
}

}  // namespace ch30
