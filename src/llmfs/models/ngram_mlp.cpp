// Chapter 23
#include <array>
#include <cmath>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/models/ngram_mlp.hpp>
#include <llmfs/nn/embedding.hpp>
#include <llmfs/nn/init.hpp>
#include <llmfs/nn/linear.hpp>
#include <llmfs/training/batches.hpp>

namespace llmfs::models {

using autograd::TensorValue;
using tensor::Shape;
using tensor::Tensor;

std::string_view describe(NgramErrorCode code) noexcept {
  switch (code) {
    case NgramErrorCode::zero_size: return "a size is zero";
    case NgramErrorCode::value_count: return "wrong number of parameter values";
    case NgramErrorCode::value_shape: return "parameter value has the wrong shape";
    case NgramErrorCode::context_shape: return "batch has the wrong shape";
    case NgramErrorCode::empty_batch: return "empty batch";
    case NgramErrorCode::token_out_of_range: return "token id out of range";
    case NgramErrorCode::layer: return "layer failed";
  }
  return "unknown n-gram model error";
}

namespace {

constexpr std::array<std::string_view, 5> kNgramNames = {
    "embedding.weight", "hidden.weight", "hidden.bias", "output.weight", "output.bias"};

std::vector<Shape> ngram_shapes(const NgramConfig& c) {
  return {Shape{c.vocab_size, c.embedding_width},
          Shape{c.context * c.embedding_width, c.hidden_width}, Shape{c.hidden_width},
          Shape{c.hidden_width, c.vocab_size}, Shape{c.vocab_size}};
}

std::string ngram_dims(const Shape& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.rank(); ++i)
    out += fmt::format("{}{}", i ? "," : "", shape[i]);
  return out + "]";
}

[[nodiscard]] std::expected<void, NgramError> check_ngram_config(const NgramConfig& c) {
  if (c.vocab_size == 0 || c.context == 0 || c.embedding_width == 0 ||
      c.hidden_width == 0)
    return reject(NgramErrorCode::zero_size, "ngram create",
                  fmt::format("V = {}, n = {}, d = {}, h = {}", c.vocab_size, c.context,
                              c.embedding_width, c.hidden_width));
  return {};
}

[[nodiscard]] std::expected<void, NgramError> check_ngram_batch(const NgramConfig& c,
                                                                const NgramBatch& b) {
  const auto& x = b.contexts;
  const auto& y = b.targets;
  if (x.time != c.context || x.ids.size() != x.batch * x.time || y.time != 1 ||
      y.batch != x.batch || y.ids.size() != y.batch)
    return reject(NgramErrorCode::context_shape, "ngram forward",
                  fmt::format("contexts [{}, {}] with {} ids, targets [{}, {}] with {} "
                              "ids; expected [B, {}] and [B, 1]",
                              x.batch, x.time, x.ids.size(), y.batch, y.time,
                              y.ids.size(), c.context));
  if (x.batch == 0) return reject(NgramErrorCode::empty_batch, "ngram forward");
  for (const auto* grid : {&x, &y})
    for (std::size_t i = 0; i < grid->ids.size(); ++i)
      if (grid->ids[i] < 0 || static_cast<std::size_t>(grid->ids[i]) >= c.vocab_size)
        return reject(NgramErrorCode::token_out_of_range, "ngram forward",
                      fmt::format("{} row {}, column {}: id {} (V = {})",
                                  grid == &x ? "context" : "target", i / grid->time,
                                  i % grid->time, grid->ids[i], c.vocab_size));
  return {};
}

// region: tanh-op
// tanh as a tape op: y = tanh(a); backward adds g·(1 − y²), read from the output.
[[nodiscard]] std::expected<TensorValue, autograd::AutogradError> tanh_op(
    const TensorValue& a) {
  Tensor y = LLMFS_TRY(a.value());
  for (double& v : y.mutable_values())
    v = std::tanh(v);
  return autograd::record_op("tanh", std::move(y), {a},
                             [](autograd::BackwardContext& ctx)
                                 -> std::expected<void, autograd::AutogradError> {
                               Tensor ga = ctx.upstream();
                               const auto out = ctx.output().values();
                               auto g = ga.mutable_values();
                               for (std::size_t i = 0; i < g.size(); ++i)
                                 g[i] *= 1.0 - out[i] * out[i];
                               return ctx.accumulate(0, std::move(ga));
                             });
}
// endregion: tanh-op

}  // namespace

// region: ngram-examples
NgramBatch ngram_examples(std::span<const std::vector<text::TokenId>> documents,
                          std::size_t context, text::TokenId bos, text::TokenId eos) {
  NgramBatch out{{0, context, {}}, {0, 1, {}}};
  std::vector<text::TokenId> window(context, bos);  // the n tokens before the next
  for (const auto& document : documents) {
    std::fill(window.begin(), window.end(), bos);
    for (std::size_t i = 0; i <= document.size(); ++i) {
      const text::TokenId next = i < document.size() ? document[i] : eos;
      out.contexts.ids.insert(out.contexts.ids.end(), window.begin(), window.end());
      out.targets.ids.push_back(next);
      if (context > 0) {
        window.erase(window.begin());
        window.push_back(next);
      }
    }
  }
  out.contexts.batch = out.targets.batch = out.targets.ids.size();
  return out;
}
// endregion: ngram-examples

NgramBatch select_rows(const NgramBatch& examples, std::span<const std::size_t> rows) {
  const std::size_t n = examples.contexts.time;
  NgramBatch out{{rows.size(), n, {}}, {rows.size(), 1, {}}};
  out.contexts.ids.reserve(rows.size() * n);
  for (std::size_t r : rows) {
    const auto first =
        examples.contexts.ids.begin() + static_cast<std::ptrdiff_t>(r * n);
    out.contexts.ids.insert(out.contexts.ids.end(), first,
                            first + static_cast<std::ptrdiff_t>(n));
    out.targets.ids.push_back(examples.targets.ids[r]);
  }
  return out;
}

std::span<const std::string_view> NgramMlp::names() noexcept {
  return kNgramNames;
}

std::size_t NgramMlp::parameter_count() const noexcept {
  std::size_t total = 0;
  for (const Tensor& v : values_)
    total += v.size();
  return total;
}

std::expected<NgramMlp, NgramError> NgramMlp::create(NgramConfig c, SplitMix64& rng) {
  LLMFS_TRY(check_ngram_config(c));
  const auto shapes = ngram_shapes(c);
  const double sigma = 1.0 / std::sqrt(static_cast<double>(c.embedding_width));
  std::vector<Tensor> values;
  values.push_back(LLMFS_TRY_AT(
      "ngram create", nn::draw(shapes[0], {nn::Distribution::normal, sigma}, rng)));
  const std::array<std::size_t, 4> fan_in = {c.context * c.embedding_width,
                                             c.context * c.embedding_width,
                                             c.hidden_width, c.hidden_width};
  for (std::size_t k = 1; k < 5; ++k)
    values.push_back(LLMFS_TRY_AT("ngram create",
                                  nn::uniform_fan_in(shapes[k], fan_in[k - 1], rng)));
  return NgramMlp(c, std::move(values));
}

std::expected<NgramMlp, NgramError> NgramMlp::from_values(NgramConfig c,
                                                          std::vector<Tensor> values) {
  LLMFS_TRY(check_ngram_config(c));
  const auto shapes = ngram_shapes(c);
  if (values.size() != shapes.size())
    return reject(NgramErrorCode::value_count, "ngram create",
                  fmt::format("{} values, expected 5", values.size()));
  for (std::size_t k = 0; k < shapes.size(); ++k)
    if (values[k].shape() != shapes[k])
      return reject(NgramErrorCode::value_shape, "ngram create",
                    fmt::format("{} is {}, expected {}", kNgramNames[k],
                                ngram_dims(values[k].shape()), ngram_dims(shapes[k])));
  return NgramMlp(c, std::move(values));
}

// region: ngram-forward
std::expected<std::pair<TensorValue, TensorValue>, NgramError> record_ngram(
    const NgramConfig& c, std::span<const nn::NamedParameter> p,
    const NgramBatch& batch) {
  LLMFS_TRY(check_ngram_batch(c, batch));
  if (p.size() != 5)
    return reject(NgramErrorCode::value_count, "ngram forward",
                  fmt::format("{} parameters, expected 5", p.size()));
  const std::string stage = "ngram forward";
  const std::size_t rows = batch.contexts.batch;
  const auto embedding = LLMFS_TRY_AT(stage, nn::Embedding::from_parameter(p[0]));
  const auto hidden = LLMFS_TRY_AT(stage, nn::Linear::from_parameters(p[1], p[2]));
  const auto output = LLMFS_TRY_AT(stage, nn::Linear::from_parameters(p[3], p[4]));
  const auto e = LLMFS_TRY_AT(stage, embedding.forward(batch.contexts));  // [B, n, d]
  const auto x = LLMFS_TRY_AT(
      stage, autograd::reshape(e, Shape{rows, c.context * c.embedding_width}));
  const auto a = LLMFS_TRY_AT(stage, tanh_op(LLMFS_TRY_AT(stage, hidden.forward(x))));
  const auto logits = LLMFS_TRY_AT(stage, output.forward(a));  // [B, V]
  const auto z =
      LLMFS_TRY_AT(stage, autograd::reshape(logits, Shape{rows, 1, c.vocab_size}));
  const auto loss = LLMFS_TRY_AT(stage, autograd::cross_entropy(z, batch.targets));
  return std::pair{logits, loss};
}
// endregion: ngram-forward

std::expected<NgramPass, NgramError> NgramMlp::forward(const NgramBatch& batch,
                                                       bool trainable) const {
  NgramPass pass{autograd::Tape(), {}, {}, {}};
  for (std::size_t k = 0; k < values_.size(); ++k)
    pass.parameters.push_back(
        {std::string(kNgramNames[k]),
         trainable ? pass.tape.parameter(values_[k]) : pass.tape.constant(values_[k])});
  std::tie(pass.logits, pass.loss) =
      LLMFS_TRY(record_ngram(config_, pass.parameters, batch));
  return pass;
}

std::expected<std::vector<training::ParameterGroup>, NgramError> ngram_groups(
    const NgramMlp& model, double weight_decay) {
  autograd::Tape tape;
  std::vector<nn::NamedParameter> leaves;
  for (std::size_t k = 0; k < model.values().size(); ++k)
    leaves.push_back({std::string(kNgramNames[k]), tape.parameter(model.values()[k])});
  const auto named =
      LLMFS_TRY_AT("ngram groups", nn::NamedParameters::create(std::move(leaves)));
  return training::decay_groups(named, weight_decay);
}

// region: train-step
std::expected<double, NgramError> train_step(NgramMlp& model,
                                             training::AdamW& optimizer,
                                             const NgramBatch& batch) {
  const std::string stage = "ngram step";
  const NgramPass pass = LLMFS_TRY(model.forward(batch, true));
  LLMFS_TRY_AT(stage, autograd::backward(pass.loss, Tensor::scalar(1.0)));
  // The optimizer takes values and gradients in its groups' slot order (matrices first
  // under Chapter 22's rule): moved there, stepped, moved back.
  std::vector<std::size_t> slot_of;
  for (const training::ParameterGroup& group : optimizer.groups())
    for (const training::ParameterSlot& slot : group.parameters)
      for (std::size_t k = 0; k < kNgramNames.size(); ++k)
        if (slot.name == kNgramNames[k]) slot_of.push_back(k);
  std::vector<Tensor> values, gradients;
  for (std::size_t k : slot_of) {
    gradients.push_back(LLMFS_TRY_AT(stage, pass.parameters[k].value.gradient()));
    values.push_back(std::move(model.values()[k]));
  }
  const auto stepped = optimizer.step(values, gradients);
  for (std::size_t i = 0; i < slot_of.size(); ++i)
    model.values()[slot_of[i]] = std::move(values[i]);
  if (!stepped) return std::unexpected(NgramError(at_stage(stage, stepped.error())));
  return LLMFS_TRY_AT(stage, pass.loss.value()).values()[0];
}
// endregion: train-step

// region: ngram-score
std::expected<eval::Score, NgramError> score(const NgramMlp& model,
                                             const NgramBatch& examples,
                                             std::size_t bytes, std::size_t chunk) {
  if (chunk == 0)
    return reject(NgramErrorCode::empty_batch, "ngram score", "chunk = 0");
  const std::size_t rows = examples.targets.batch;
  double nats = 0.0;
  std::vector<std::size_t> picked;
  for (std::size_t first = 0; first < rows; first += chunk) {
    picked.clear();
    for (std::size_t r = first; r < std::min(rows, first + chunk); ++r)
      picked.push_back(r);
    const NgramBatch part = select_rows(examples, picked);
    // The pass's loss is the mean of logsumexp(z) − z[target] over the chunk: times
    // the chunk's rows, its Σ −ln p.
    const NgramPass pass = LLMFS_TRY(model.forward(part, false));
    nats += LLMFS_TRY_AT("ngram score", pass.loss.value()).values()[0] *
            static_cast<double>(picked.size());
  }
  return eval::Score{nats, rows, bytes};
}
// endregion: ngram-score

// region: ngram-loop
std::expected<std::vector<NgramPoint>, NgramError> train_ngram(
    NgramMlp& model, training::AdamW& optimizer, const NgramBatch& train,
    const NgramBatch& scored, std::size_t bytes, const NgramSchedule& schedule,
    const std::function<void(const NgramPoint&)>& on_point,
    const std::function<void(std::size_t, double)>& on_step) {
  const std::size_t n = train.targets.batch, batch = schedule.batch;
  if (batch == 0 || schedule.every == 0 || batch > n)
    return reject(NgramErrorCode::empty_batch, "ngram train",
                  fmt::format("B = {}, every = {}, N = {}", batch, schedule.every, n));
  const std::size_t per_epoch = n / batch;
  const double eta = optimizer.hyper().learning_rate;  // η₀
  std::vector<NgramPoint> curve;
  std::vector<std::size_t> order;
  double since = 0.0;  // the batch losses since the last point
  for (std::size_t step = 0;; ++step) {
    if (step % schedule.every == 0 || step == schedule.steps) {
      const auto s = LLMFS_TRY(score(model, scored, bytes, 512));
      curve.push_back(
          {step, step ? since / static_cast<double>(step - curve.back().step) : 0.0,
           s.total_nats / static_cast<double>(s.tokens),
           LLMFS_TRY_AT("ngram train", eval::bits_per_byte(s))});
      if (on_point) on_point(curve.back());
      since = 0.0;
    }
    if (step == schedule.steps) return curve;
    if (step % per_epoch == 0)
      order = training::epoch_order(n, schedule.seed, step / per_epoch);
    const auto rows = std::span(order).subspan((step % per_epoch) * batch, batch);
    if (schedule.linear_decay)
      LLMFS_TRY_AT("ngram train", optimizer.set_learning_rate(
                                      eta * static_cast<double>(schedule.steps - step) /
                                      static_cast<double>(schedule.steps)));
    const double loss =
        LLMFS_TRY(train_step(model, optimizer, select_rows(train, rows)));
    since += loss;
    if (on_step) on_step(step + 1, loss);
  }
}
// endregion: ngram-loop

}  // namespace llmfs::models
