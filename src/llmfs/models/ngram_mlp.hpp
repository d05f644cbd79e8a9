// Chapter 23
#pragma once
/// \file
/// \brief A neural n-gram model (Bengio, Ducharme, Vincent and Jauvin, "A neural
/// probabilistic language model", JMLR 3, 2003): the embeddings of the previous n
/// tokens, concatenated, a tanh hidden layer, and logits over the vocabulary, trained
/// by gradient descent with Chapter 22's AdamW (Chapter 23).
///
/// Shapes: B examples per batch, n context tokens, d embedding width, h hidden width,
/// V vocabulary size. Losses are in nats; bits per byte as Chapter 7 defines them.
#include <cstddef>
#include <expected>
#include <functional>
#include <span>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <llmfs/autograd/model_ops.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/error.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/eval/metrics.hpp>
#include <llmfs/nn/error.hpp>
#include <llmfs/nn/parameters.hpp>
#include <llmfs/tensor/tensor.hpp>
#include <llmfs/training/adamw.hpp>

namespace llmfs::models {

// region: ngram-config
/// The sizes of a neural n-gram model; every one must be ≥ 1.
struct NgramConfig {
  std::size_t vocab_size = 0;       ///< V: tokens, specials included
  std::size_t context = 0;          ///< n: previous tokens the model reads
  std::size_t embedding_width = 0;  ///< d: width of one token's embedding
  std::size_t hidden_width = 0;     ///< h: units of the tanh layer
};

/// Examples for the model: row b of `contexts` `[B, n]` holds the n tokens before the
/// token `targets` `[B, 1]` holds in row b.
struct NgramBatch {
  autograd::TokenGrid contexts;  ///< [B, n]: the previous n tokens, oldest first
  autograd::TokenGrid targets;   ///< [B, 1]: the token to predict
};
// endregion: ngram-config

// region: ngram-errors
/// What is wrong with a model's configuration, its values or a batch.
enum class NgramErrorCode {
  zero_size,           ///< V, n, d or h is 0
  value_count,         ///< not five parameter values
  value_shape,         ///< a parameter value has the wrong shape
  context_shape,       ///< contexts not [B, n], or targets not [B, 1]
  empty_batch,         ///< B = 0
  token_out_of_range,  ///< a context or target id outside [0, V)
  layer,               ///< a layer, the tape or the optimizer failed (see the cause)
};
/// The fixed description of a code, e.g. `"token id out of range"`.
[[nodiscard]] std::string_view describe(NgramErrorCode code) noexcept;
/// A model error: code, stage (`"ngram create"`, `"ngram forward"`, `"ngram step"`,
/// `"ngram score"`), the numbers in the detail, and for NgramErrorCode::layer the
/// error of Chapter 15–22 it wraps.
using NgramError =
    StageError<NgramErrorCode, NgramErrorCode::layer,
               std::variant<nn::NnError, autograd::AutogradError,
                            training::OptimizerError, eval::MetricsError>>;
// endregion: ngram-errors

/// Every example of `documents`: each document framed as BOS + tokens + EOS, every
/// token after BOS predicted (EOS included), its context the n tokens before it with
/// BOS repeated before the start. Σ (n_d + 1) rows: the positions Chapter 7 scores.
[[nodiscard]] NgramBatch ngram_examples(
    std::span<const std::vector<text::TokenId>> documents, std::size_t context,
    text::TokenId bos, text::TokenId eos);

/// The rows `rows` of `examples`, in that order. Precondition: every row < B.
[[nodiscard]] NgramBatch select_rows(const NgramBatch& examples,
                                     std::span<const std::size_t> rows);

/// One forward pass recorded on a fresh tape: the parameters as leaves (in the order
/// of NgramMlp::names()), the logits `[B, V]` and the mean loss (rank 0, nats).
struct NgramPass {
  autograd::Tape tape;                         ///< owns every node below
  std::vector<nn::NamedParameter> parameters;  ///< the five leaves
  autograd::TensorValue logits;                ///< [B, V]
  autograd::TensorValue loss;                  ///< mean cross-entropy, nats
};

/// The model's graph for `batch`, recorded on the tape of `parameters` (five tape
/// values in the order of NgramMlp::names(), with `config`'s shapes): logits `[B, V]`
/// and the mean loss in nats. NgramMlp::forward() and the gradient check call it.
/// \return context_shape, empty_batch, token_out_of_range, or layer wrapping the tape's
///         error (stage `ngram forward`).
[[nodiscard]] std::expected<std::pair<autograd::TensorValue, autograd::TensorValue>,
                            NgramError>
record_ngram(const NgramConfig& config, std::span<const nn::NamedParameter> parameters,
             const NgramBatch& batch);

// region: ngram-class
/// The model `p(w_t | w_{t−n} … w_{t−1}) = softmax(tanh(x·W₁ + b₁)·W₂ + b₂)` with
/// `x = [E[w_{t−n}], …, E[w_{t−1}]]` (the n rows of E concatenated, width n·d).
/// Its values live outside any tape, so that a training step records on a fresh tape
/// and the optimizer updates the values in place.
class NgramMlp {
 public:
  /// A model drawn from `rng`: E `[V, d]` normal with σ = 1/√d (Chapter 18), then W₁
  /// `[n·d, h]`, b₁ `[h]`, W₂ `[h, V]`, b₂ `[V]` uniform on ±1/√fan-in (Chapter 19),
  /// in that order. \return NgramErrorCode::zero_size (stage `ngram create`).
  [[nodiscard]] static std::expected<NgramMlp, NgramError> create(NgramConfig config,
                                                                  SplitMix64& rng);
  /// A model from exact values in the order of names(). \return zero_size,
  /// value_count or value_shape naming the parameter (stage `ngram create`).
  [[nodiscard]] static std::expected<NgramMlp, NgramError> from_values(
      NgramConfig config, std::vector<tensor::Tensor> values);
  /// Records the model on a fresh tape, with `batch`'s loss; the values become
  /// parameter leaves when `trainable`, constants otherwise.
  /// \return context_shape, empty_batch, token_out_of_range (stage `ngram forward`).
  [[nodiscard]] std::expected<NgramPass, NgramError> forward(const NgramBatch& batch,
                                                             bool trainable) const;
  /// The parameter names: `embedding.weight`, `hidden.weight`, `hidden.bias`,
  /// `output.weight`, `output.bias`.
  [[nodiscard]] static std::span<const std::string_view> names() noexcept;
  /// The values, in the order of names().
  [[nodiscard]] std::span<const tensor::Tensor> values() const noexcept {
    return values_;
  }
  /// The values, for the optimizer to update in place.
  [[nodiscard]] std::span<tensor::Tensor> values() noexcept { return values_; }
  /// The sizes.
  [[nodiscard]] const NgramConfig& config() const noexcept { return config_; }
  /// V·d + n·d·h + h + h·V + V learned scalars.
  [[nodiscard]] std::size_t parameter_count() const noexcept;

 private:
  NgramMlp(NgramConfig config, std::vector<tensor::Tensor> values)
      : config_(config), values_(std::move(values)) {}
  NgramConfig config_;
  std::vector<tensor::Tensor> values_;
};
// endregion: ngram-class

// region: ngram-train-api
/// The optimizer's groups for `model`: Chapter 22's rule (matrices decay by
/// `weight_decay`, biases do not).
[[nodiscard]] std::expected<std::vector<training::ParameterGroup>, NgramError>
ngram_groups(const NgramMlp& model, double weight_decay);

/// One training step: forward on `batch`, backward, one AdamW update of the values.
/// \return the batch's mean loss before the update (nats), or the errors of forward()
///         and AdamW::step() (stage `ngram step`); on an error nothing has changed.
[[nodiscard]] std::expected<double, NgramError> train_step(NgramMlp& model,
                                                           training::AdamW& optimizer,
                                                           const NgramBatch& batch);

/// Chapter 7's score of `examples`: Σ −ln p(target | context) over every row, summed in
/// chunks of `chunk` rows, with `bytes` the UTF-8 size of the text they spell.
/// \return the errors of forward(), or empty_batch for chunk = 0 (stage `ngram score`).
[[nodiscard]] std::expected<eval::Score, NgramError> score(const NgramMlp& model,
                                                           const NgramBatch& examples,
                                                           std::size_t bytes,
                                                           std::size_t chunk);
// endregion: ngram-train-api

// region: ngram-loop-api
/// How long to train and when to score.
struct NgramSchedule {
  std::size_t batch = 0;   ///< B ≥ 1: examples per step, at most the examples' count
  std::size_t steps = 0;   ///< AdamW steps
  std::size_t every = 0;   ///< ≥ 1: score at step 0 and every `every` steps
  std::uint64_t seed = 0;  ///< the epoch orders' seed (Chapter 21)
  /// When true, η falls linearly from the optimizer's value η₀ to η₀/steps: step s
  /// (from 0) uses η₀·(steps − s)/steps. When false, η₀ throughout.
  bool linear_decay = false;
};

/// One point of a loss curve.
struct NgramPoint {
  std::size_t step = 0;          ///< updates done
  double train_loss = 0.0;       ///< mean batch loss of the last `every` steps (0 at 0)
  double validation_loss = 0.0;  ///< mean nats per scored token
  double validation_bpb = 0.0;   ///< Chapter 7's bits per byte of the scored tokens
};

/// Trains `model` with `optimizer` on `train` for schedule.steps steps: epoch e visits
/// the examples in Chapter 21's epoch_order(N, seed, e), cut into ⌊N/B⌋ batches (the
/// partial last batch dropped); `scored` (`bytes` UTF-8 bytes) is scored at step 0 and
/// every schedule.every steps. `on_point` sees each point, `on_step` each step's number
/// and loss (either may be empty). \return the curve, or empty_batch for B = 0,
/// every = 0 or B > N (stage `ngram train`), or the errors of train_step() and score().
[[nodiscard]] std::expected<std::vector<NgramPoint>, NgramError> train_ngram(
    NgramMlp& model, training::AdamW& optimizer, const NgramBatch& train,
    const NgramBatch& scored, std::size_t bytes, const NgramSchedule& schedule,
    const std::function<void(const NgramPoint&)>& on_point = {},
    const std::function<void(std::size_t, double)>& on_step = {});
// endregion: ngram-loop-api

}  // namespace llmfs::models
