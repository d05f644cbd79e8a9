// Chapter 25
#include "evidence.hpp"

#include <cmath>
#include <limits>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/nn/rms_norm.hpp>

namespace ch25 {

namespace {

using llmfs::autograd::AutogradError;
using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::nn::NnError;
using llmfs::nn::RMSNorm;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

std::vector<double> ch25_values(const Tensor& t) {
  return {t.values().begin(), t.values().end()};
}

// Σ RMSNorm(x; g) as a plain loss of (x, g), for the checker.
[[nodiscard]] std::expected<TensorValue, AutogradError> fixture_loss(
    Tape&, std::span<const TensorValue> in) {
  auto y = llmfs::nn::rms_norm(in[0], in[1], kEpsilon);
  if (!y) return std::unexpected(y.error().cause.value_or(AutogradError{}));
  return llmfs::autograd::sum(*y);
}

}  // namespace

// region: run-fixture
Step<Pass> run_fixture(const std::vector<double>& rows) {
  const std::vector<Tensor> point = {
      LLMFS_TRY_AT("x", Tensor::from(Shape{rows.size() / 4, 4}, rows)),
      LLMFS_TRY_AT("g", Tensor::from(Shape{4}, kGain))};
  Tape tape;
  const TensorValue x = tape.parameter(point[0]);
  const RMSNorm norm = LLMFS_TRY_AT(
      "norm",
      RMSNorm::from_parameters({"norm.weight", tape.parameter(point[1])}, kEpsilon));
  const TensorValue y = LLMFS_TRY_AT("forward", norm.forward(x));
  LLMFS_TRY_AT("backward", backward(LLMFS_TRY_AT("loss", sum(y)), Tensor::scalar(1.0)));
  Pass pass;
  pass.rms = LLMFS_TRY_AT("rms", llmfs::nn::rms_rows(point[0], kEpsilon)).rms;
  pass.output = ch25_values(LLMFS_TRY_AT("y", y.value()));
  pass.input_gradient = ch25_values(LLMFS_TRY_AT("gx", x.gradient()));
  pass.gain_gradient = ch25_values(LLMFS_TRY_AT("gg", norm.gain().value.gradient()));
  pass.check =
      LLMFS_TRY_AT("check", llmfs::autograd::check_tape_gradients(fixture_loss, point));
  return pass;
}
// endregion: run-fixture

// region: variants
// The other choices, written out for one row of 4: ε outside the root; the variance in
// place of the mean square; LayerNorm's centring as well (gain 1, no bias).
std::array<double, 4> other_norm(const std::array<double, 4>& x, int variant) {
  double mean = 0.0, squares = 0.0;
  for (const double v : x)
    mean += v / 4;
  for (const double v : x)
    squares += (variant == 1 ? v * v : (v - mean) * (v - mean)) / 4;
  const double scale =
      variant == 1 ? std::sqrt(squares) + kEpsilon : std::sqrt(squares + kEpsilon);
  std::array<double, 4> y{};
  for (std::size_t j = 0; j < 4; ++j)
    y[j] = (x[j] - (variant == 3 ? mean : 0.0)) / scale;
  return y;
}
// endregion: variants

Step<std::vector<VariantRow>> compare_variants() {
  std::vector<VariantRow> out;
  for (const auto& [name, row] : kVariantInputs) {
    VariantRow v{std::string(name), {}};
    const Tensor x =
        LLMFS_TRY_AT("row", Tensor::from(Shape{1, 4}, {row.begin(), row.end()}));
    const auto ours = LLMFS_TRY_AT("rms", llmfs::nn::rms_rows(x, kEpsilon));
    std::copy(ours.normalized.values().begin(), ours.normalized.values().end(),
              v.values[0].begin());
    for (int variant = 1; variant < 4; ++variant)
      v.values[variant] = other_norm(row, variant);
    out.push_back(v);
  }
  return out;
}

// region: refusals
// ε that is zero or NaN, a gain of the wrong length, a row of the wrong width, a vector
// with no row axis, a layer of width 0.
std::vector<std::array<std::string, 2>> refusals() {
  Tape tape;
  const TensorValue x = tape.parameter(Tensor::zeros(Shape{2, 4}));
  const TensorValue g3 = tape.parameter(Tensor::full(Shape{3}, 1.0));
  const TensorValue g4 = tape.parameter(Tensor::full(Shape{4}, 1.0));
  const TensorValue flat = tape.parameter(Tensor::full(Shape{4}, 1.0));
  const auto norm3 = RMSNorm::create(tape, "norm", 3);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::pair<std::string, std::expected<TensorValue, NnError>>> calls =
      {{"epsilon_zero", llmfs::nn::rms_norm(x, g4, 0.0)},
       {"epsilon_nan", llmfs::nn::rms_norm(x, g4, nan)},
       {"gain_length", llmfs::nn::rms_norm(x, g3, kEpsilon)},
       {"input_width", norm3->forward(x)},
       {"no_row_axis", llmfs::nn::rms_norm(flat, g4, kEpsilon)}};
  std::vector<std::array<std::string, 2>> out;
  for (const auto& [name, result] : calls)
    out.push_back(
        {name, result ? std::string("accepted") : fmt::format("{}", result.error())});
  const auto empty = RMSNorm::create(tape, "norm", 0);
  out.push_back({"zero_width",
                 empty ? std::string("accepted") : fmt::format("{}", empty.error())});
  return out;
}
// endregion: refusals

// region: exercises
// 1: row 0 scaled by 10 and by 10⁻⁴; 2: x·∂L/∂x for row 0 of the fixture.
Step<Evidence> solve_exercises(Evidence e) {
  for (const auto& [k, factor] : {std::pair{0, 10.0}, std::pair{1, 1e-4}}) {
    std::vector<double> row(kInput.begin(), kInput.begin() + 4);
    for (double& v : row)
      v *= factor;
    e.scaled[k] = LLMFS_TRY(run_fixture(row)).output;
  }
  for (std::size_t j = 0; j < 4; ++j)
    e.radial_gradient += kInput[j] * e.pass.input_gradient[j];
  return e;
}
// endregion: exercises

Step<Evidence> gather() {
  Evidence e;
  e.pass = LLMFS_TRY(run_fixture(kInput));
  e.variants = LLMFS_TRY(compare_variants());
  e.errors = refusals();
  return solve_exercises(std::move(e));
}

}  // namespace ch25
