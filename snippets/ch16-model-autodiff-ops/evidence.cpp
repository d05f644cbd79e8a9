// Chapter 16
#include "evidence.hpp"

#include <cmath>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace ch16 {

namespace {

using llmfs::autograd::AutogradError;
using llmfs::autograd::LossBuilder;
using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

std::vector<double> ch16_values(const Tensor& t) {
  return {t.values().begin(), t.values().end()};
}

}  // namespace

// region: fixture-loss
// The loss a tiny language model computes: look up each token's row, map it to
// logits with W, score the next tokens. inputs = (E [3,2], W [2,3]).
LossBuilder fixture_loss(const TokenGrid& ids) {
  return [ids](Tape&, std::span<const TensorValue> in)
             -> std::expected<TensorValue, AutogradError> {
    const TensorValue hidden = LLMFS_TRY(llmfs::autograd::embedding(in[0], ids));
    const TensorValue logits = LLMFS_TRY(llmfs::autograd::matmul(hidden, in[1]));
    return llmfs::autograd::cross_entropy(logits, kTargets);
  };
}
// endregion: fixture-loss

// region: run-fixture
Step<Pass> run_fixture(const TokenGrid& ids) {
  const std::vector<Tensor> point = {
      LLMFS_TRY_AT("fixture table", Tensor::from(Shape{3, 2}, kTable)),
      LLMFS_TRY_AT("fixture output", Tensor::from(Shape{2, 3}, kOutput))};
  Tape tape;
  const TensorValue table = tape.parameter(point[0]);
  const TensorValue output = tape.parameter(point[1]);
  const TensorValue hidden = LLMFS_TRY_AT("embedding", embedding(table, ids));
  const TensorValue logits =
      LLMFS_TRY_AT("logits", llmfs::autograd::matmul(hidden, output));
  const TensorValue loss = LLMFS_TRY_AT("loss", cross_entropy(logits, kTargets));
  LLMFS_TRY_AT("backward", backward(loss, Tensor::scalar(1.0)));
  Pass pass;
  pass.hidden = ch16_values(LLMFS_TRY_AT("hidden", hidden.value()));
  pass.logits = ch16_values(LLMFS_TRY_AT("logits", logits.value()));
  pass.loss = LLMFS_TRY_AT("loss", loss.value()).values()[0];
  pass.logit_gradient = ch16_values(LLMFS_TRY_AT("gz", logits.gradient()));
  pass.table_gradient = ch16_values(LLMFS_TRY_AT("gE", table.gradient()));
  pass.output_gradient = ch16_values(LLMFS_TRY_AT("gW", output.gradient()));
  pass.check = LLMFS_TRY_AT(
      "check", llmfs::autograd::check_tape_gradients(fixture_loss(ids), point));
  return pass;
}
// endregion: run-fixture

// region: check-ops
// Each op alone under a gradient check; a random-looking weighting R makes every
// output element count: loss = Σ op(x) ⊙ R (cross-entropy and mean are scalars).
Step<std::vector<OpCheck>> check_ops() {
  const Tensor x =
      LLMFS_TRY_AT("x", Tensor::from(Shape{1, 2, 3}, {0.5, -1, 2, 0, 3, -2}));
  const Tensor r =
      LLMFS_TRY_AT("r", Tensor::from(Shape{1, 2, 3}, {1, -2, 3, 0.5, 1, -1}));
  const Tensor e =
      LLMFS_TRY_AT("e", Tensor::from(Shape{3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}));
  using Op = std::expected<TensorValue, AutogradError> (*)(const TensorValue&);
  auto weighted = [&r](Op op) -> LossBuilder {
    return [op, &r](Tape& t, std::span<const TensorValue> in)
               -> std::expected<TensorValue, AutogradError> {
      const TensorValue y = LLMFS_TRY(op(in[0]));
      return llmfs::autograd::sum(LLMFS_TRY(multiply(y, t.constant(r))));
    };
  };
  auto score = [](const TensorValue& z) { return cross_entropy(z, kTargets); };
  std::vector<std::pair<std::string, std::pair<LossBuilder, Tensor>>> cases = {
      {"embedding",
       {weighted(+[](const TensorValue& w) {
          // token 2 at both positions: row 2 is used twice
          return embedding(w, TokenGrid{1, 2, {2, 2}});
        }),
        e}},
      {"silu", {weighted(&llmfs::autograd::silu), x}},
      {"log_softmax", {weighted(&llmfs::autograd::log_softmax_last_axis), x}},
      {"cross_entropy", {[score](Tape&, auto in) { return score(in[0]); }, x}},
      {"mean", {[](Tape&, auto in) { return mean(in[0]); }, x}}};
  std::vector<OpCheck> out;
  for (const auto& [name, c] : cases)
    out.push_back({name, LLMFS_TRY_AT(name, llmfs::autograd::check_tape_gradients(
                                                c.first, std::span(&c.second, 1)))});
  return out;
}
// endregion: check-ops

// region: refusals
// Calls the ops refuse: ids and targets outside [0, V), shapes that do not fit, ±∞.
std::vector<std::array<std::string, 2>> refusals() {
  Tape tape;
  const TensorValue table = tape.parameter(Tensor::zeros(Shape{3, 2}));
  const TensorValue logits = tape.parameter(Tensor::zeros(Shape{1, 2, 3}));
  const TensorValue bad = tape.parameter(Tensor::full(Shape{1, 2, 3}, INFINITY));
  const std::vector<std::pair<std::string, std::expected<TensorValue, AutogradError>>>
      calls = {{"id_out_of_range", embedding(table, TokenGrid{1, 2, {0, 3}})},
               {"ids_not_b_by_t", embedding(table, TokenGrid{1, 2, {0}})},
               {"target_out_of_range", cross_entropy(logits, TokenGrid{1, 2, {0, -1}})},
               {"targets_shape", cross_entropy(logits, TokenGrid{2, 1, {0, 1}})},
               {"logits_rank", cross_entropy(table, TokenGrid{1, 2, {0, 1}})},
               {"infinite_logit", cross_entropy(bad, kTargets)}};
  std::vector<std::array<std::string, 2>> out;
  for (const auto& [name, result] : calls)
    out.push_back(
        {name, result ? std::string("accepted") : fmt::format("{}", result.error())});
  return out;
}
// endregion: refusals

// region: exercises
Step<Exercises> solve_exercises() {
  Exercises x;
  const Pass repeated = LLMFS_TRY(run_fixture(TokenGrid{1, 2, {1, 1}}));
  x.repeated_table_gradient = repeated.table_gradient;
  Tape tape;
  const TensorValue zero = tape.parameter(Tensor::scalar(0.0));
  const TensorValue y = LLMFS_TRY_AT("silu", silu(zero));
  LLMFS_TRY_AT("silu backward", backward(y, Tensor::scalar(1.0)));
  x.silu_at_zero = LLMFS_TRY_AT("silu value", y.value()).values()[0];
  x.silu_slope_at_zero = LLMFS_TRY_AT("silu slope", zero.gradient()).values()[0];
  const TensorValue flat = tape.parameter(Tensor::zeros(Shape{1, 2, 3}));
  const TensorValue loss = LLMFS_TRY_AT("uniform", cross_entropy(flat, kTargets));
  x.uniform_loss = LLMFS_TRY_AT("uniform value", loss.value()).values()[0];
  return x;
}
// endregion: exercises

Step<Evidence> gather() {
  Evidence e;
  e.pass = LLMFS_TRY(run_fixture(kInputs));
  e.checks = LLMFS_TRY(check_ops());
  // Logits ±1e4: exp(1e4) overflows, so only the shifted form gets a number.
  Tape tape;
  const TensorValue z = tape.parameter(LLMFS_TRY_AT(
      "extreme", Tensor::from(Shape{1, 2, 3}, {1e4, -1e4, 0, -1e4, 1e4, 1e4})));
  const TokenGrid targets{1, 2, {1, 2}};
  const TensorValue loss = LLMFS_TRY_AT("extreme loss", cross_entropy(z, targets));
  LLMFS_TRY_AT("extreme backward", backward(loss, Tensor::scalar(1.0)));
  e.extreme_loss = LLMFS_TRY_AT("extreme value", loss.value()).values()[0];
  e.extreme_gradient = ch16_values(LLMFS_TRY_AT("extreme gradient", z.gradient()));
  // The misconception's recipe: probabilities first, then the log.
  const double p0 = std::exp(-1e4) / (std::exp(1e4) + std::exp(-1e4) + std::exp(0.0));
  const double p1 = std::exp(1e4) / (std::exp(-1e4) + 2 * std::exp(1e4));
  e.naive_extreme_loss = -(std::log(p0) + std::log(p1)) / 2;
  e.errors = refusals();
  e.exercises = LLMFS_TRY(solve_exercises());
  return e;
}

}  // namespace ch16
