// Chapter 18
#include "evidence.hpp"

#include <algorithm>
#include <cmath>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/matmul.hpp>
#include <llmfs/text/tokenizer.hpp>
#include <llmfs/text/windows.hpp>

namespace ch18 {

namespace {

using llmfs::SplitMix64;
using llmfs::autograd::AutogradError;
using llmfs::autograd::AutogradErrorCode;
using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::autograd::TokenGrid;
using llmfs::nn::Embedding;
using llmfs::nn::NamedParameter;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

// A tensor [n, 2] (with leading axes `lead`) whose row r is f(r).
template <class F>
Tensor pairs(std::vector<std::size_t> lead, std::size_t n, F f) {
  lead.insert(lead.end(), {n, kWidth});
  Tensor t = Tensor::zeros(Shape(std::move(lead)));
  for (std::size_t r = 0; r < n; ++r) {
    const auto [a, b] = f(static_cast<double>(r));
    t.mutable_values()[2 * r] = a;
    t.mutable_values()[2 * r + 1] = b;
  }
  return t;
}

// The fixture's table [V, 2], row r = (r, −r), and the upstream [1, T, 2], (t, 1).
Tensor fixture_table(std::size_t vocab) {
  return pairs({}, vocab, [](double r) { return std::pair{r, -r}; });
}
Tensor upstream(std::size_t tokens) {
  return pairs({1}, tokens, [](double t) { return std::pair{t, 1.0}; });
}

// The layer over `table` applied to `grid`, a refusal kept as a tape error.
std::expected<TensorValue, AutogradError> through_layer(const TensorValue& table,
                                                        const TokenGrid& grid) {
  const auto layer = Embedding::from_parameter({"token_embedding.weight", table});
  const auto hidden = layer ? layer->forward(grid) : std::unexpected(layer.error());
  if (hidden) return *hidden;
  return llmfs::reject(AutogradErrorCode::invalid_argument, "embedding layer",
                       fmt::format("{}", hidden.error()));
}

}  // namespace

// region: framed-window
// "hi hi" → BOS h i ␠ h i EOS by Chapter 4's tokenizer (no merges) and Chapter 5's
// framing; the window's first T tokens are the layer's input.
Step<Pass> frame_text(std::string_view text, std::size_t context) {
  const auto tokenizer = LLMFS_TRY_AT(
      "tokenizer", llmfs::text::Tokenizer::create(llmfs::text::MergeTable{}));
  Pass p;
  p.bos = tokenizer.bos();
  p.eos = tokenizer.eos();
  p.vocab = tokenizer.vocab_size();
  const std::vector<TokenId> bytes = tokenizer.encode(text);
  p.sequence = LLMFS_TRY_AT(
      "frame", llmfs::text::document_sequence(bytes, {p.bos, p.eos, p.vocab}, 0));
  p.context.assign(p.sequence.begin(), p.sequence.begin() + context);
  return p;
}
// endregion: framed-window

// region: embedding-loss
// L = Σₜ h_t · R_t with h = E[context] and R_t = (t, 1): ∂L/∂h_t = R_t.
llmfs::autograd::LossBuilder embedding_loss(const TokenGrid& grid) {
  return [grid](Tape& tape, std::span<const TensorValue> in)
             -> std::expected<TensorValue, AutogradError> {
    const TensorValue hidden = LLMFS_TRY(through_layer(in[0], grid));
    const Tensor r = upstream(grid.time);
    return llmfs::autograd::sum(LLMFS_TRY(multiply(hidden, tape.constant(r))));
  };
}
// endregion: embedding-loss

// region: run-fixture
Step<Pass> run_fixture(std::string_view text, std::size_t context) {
  Pass p = LLMFS_TRY(frame_text(text, context));
  const TokenGrid grid{1, context, p.context};
  Tape tape;
  const NamedParameter table{"token_embedding.weight",
                             tape.parameter(fixture_table(p.vocab))};
  const Embedding layer = LLMFS_TRY_AT("layer", Embedding::from_parameter(table));
  const TensorValue hidden = LLMFS_TRY_AT("forward", layer.forward(grid));
  const TensorValue loss =
      LLMFS_TRY_AT("loss", embedding_loss(grid)(tape, std::span(&table.value, 1)));
  LLMFS_TRY_AT("backward", backward(loss, Tensor::scalar(1.0)));
  const Tensor h = LLMFS_TRY_AT("hidden", hidden.value());
  p.hidden.assign(h.values().begin(), h.values().end());
  const Tensor g = LLMFS_TRY_AT("gradient", table.value.gradient());
  const auto reads = LLMFS_TRY_AT("reads", layer.row_reads(grid));
  for (std::size_t row = 0; row < p.vocab; ++row) {
    const RowGradient rg{static_cast<TokenId>(row),
                         reads[row],
                         {g.values()[2 * row], g.values()[2 * row + 1]}};
    if (rg.reads > 0 || rg.row == p.eos) p.rows.push_back(rg);
    if (rg.gradient == std::array<double, 2>{0.0, 0.0}) ++p.zero_rows;
  }
  const Tensor point = fixture_table(p.vocab);
  p.check = LLMFS_TRY_AT("check", llmfs::autograd::check_tape_gradients(
                                      embedding_loss(grid), std::span(&point, 1)));
  return p;
}
// endregion: run-fixture

// region: compare-scales
// Three tables [V, d]: the fan-in rule read off the one-hot product (σ = 1/√V), the
// course's σ = 1/√d, PyTorch's σ = 1. Each is read at 64 random ids, and used as a tied
// output layer h·Eᵀ for 16 unit-normal h.
Step<std::vector<ScaleRun>> compare_scales() {
  const double v = kVocab, d = kModelWidth;
  const std::vector<std::pair<std::string, double>> rules = {
      {"fan_in_1/sqrt(V)", 1 / std::sqrt(v)},
      {"course_1/sqrt(d)", 1 / std::sqrt(d)},
      {"pytorch_1", 1.0}};
  SplitMix64 id_rng(180);
  TokenGrid grid{1, 64, {}};
  for (std::size_t i = 0; i < 64; ++i)
    grid.ids.push_back(static_cast<TokenId>(id_rng.next_u64() % kVocab));
  const Tensor h = LLMFS_TRY_AT(
      "h", llmfs::nn::draw({16, kModelWidth}, {llmfs::nn::Distribution::normal, 1.0},
                           id_rng));
  std::vector<ScaleRun> runs;
  for (const auto& [rule, std_dev] : rules) {
    Tape tape;
    SplitMix64 rng(18);
    const Embedding layer = LLMFS_TRY_AT(
        rule, Embedding::create(tape, "token_embedding", kVocab, kModelWidth,
                                {llmfs::nn::Distribution::normal, std_dev}, rng));
    const Tensor hidden =
        LLMFS_TRY_AT(rule, LLMFS_TRY_AT(rule, layer.forward(grid)).value());
    const Tensor table = LLMFS_TRY_AT(rule, layer.table().value.value());
    const Tensor tied = LLMFS_TRY_AT(rule, llmfs::tensor::transpose(table, 0, 1));
    const Tensor logits = LLMFS_TRY_AT(rule, llmfs::tensor::matmul(h, tied));
    runs.push_back({rule, std_dev, llmfs::nn::moments(hidden.values()).variance,
                    llmfs::nn::moments(logits.values()).variance});
  }
  return runs;
}
// endregion: compare-scales

// region: refusals
// Ids outside [0, V), a grid that is not B·T, and layers that cannot be made; a
// refused create() leaves the generator as it was.
std::vector<std::array<std::string, 2>> refusals(bool& rng_untouched) {
  Tape tape, released;
  released.release();
  SplitMix64 rng(18);
  const auto layer = Embedding::from_parameter(
      {"token_embedding.weight", tape.parameter(Tensor::zeros({258, 2}))});
  std::vector<std::array<std::string, 2>> out;
  auto keep = [&](std::string name, const auto& result) {
    out.push_back({std::move(name), snippets::error_text(result)});
  };
  keep("id_out_of_range", layer->forward(TokenGrid{1, 2, {256, 258}}));
  keep("negative_id", layer->forward(TokenGrid{1, 2, {-1, 0}}));
  keep("token_count", layer->forward(TokenGrid{1, 3, {1, 2}}));
  keep("released_tape", Embedding::create(released, "token_embedding", 4, 2, rng));
  rng_untouched = rng == SplitMix64(18);
  return out;
}
// endregion: refusals

// region: exercises
Step<Exercises> solve_exercises() {
  Exercises x;
  x.large_parameters = Shape{32000, 4096}.element_count().value_or(0);
  const Pass triple = LLMFS_TRY(run_fixture("hi hi hi", 8));
  for (const RowGradient& row : triple.rows)
    if (row.row == 'h') x.triple = row.gradient;
  x.rows_reached = triple.vocab - triple.zero_rows;
  return x;
}
// endregion: exercises

Step<Evidence> gather() {
  Evidence e;
  e.pass = LLMFS_TRY(run_fixture(kText, kContext));
  e.scales = LLMFS_TRY(compare_scales());
  Tape tape;
  SplitMix64 rng(18);
  const Embedding full = LLMFS_TRY_AT(
      "cost", Embedding::create(tape, "token_embedding", kVocab, kModelWidth, rng));
  e.parameters = full.parameter_count();
  // With M = 3,838 merges, BOS = 256 + M = V − 2 and EOS = V − 1 (Chapter 4's layout).
  for (const TokenId id : {TokenId{kVocab - 2}, TokenId{kVocab - 1}}) {
    const Tensor row = LLMFS_TRY_AT("row", full.row(id));
    const auto [mean, variance] = llmfs::nn::moments(row.values());
    e.special_norms.push_back(kModelWidth * (variance + mean * mean));  // ‖row‖²
  }
  e.errors = refusals(e.rng_untouched);
  e.exercises = LLMFS_TRY(solve_exercises());
  return e;
}

}  // namespace ch18
