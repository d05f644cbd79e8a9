// Chapter 22
#include "evidence.hpp"

#include <cmath>
#include <map>

#include "../common/reference_records.hpp"

namespace ch22 {

namespace {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using namespace llmfs::training;
using snippets::read_reference_records;
constexpr auto numbers = snippets::reference_numbers;

Tensor tensor_of(const std::vector<double>& values) {
  return Tensor::from(Shape{values.size()}, values).value();
}

}  // namespace

std::string_view name(Variant variant) {
  constexpr std::array<std::string_view, 5> names = {
      "adamw", "decay_unscaled", "adam_l2", "no_bias_correction", "adam"};
  return names[static_cast<std::size_t>(variant)];
}

Step<Trajectory> run_fixture() {
  auto adamw = LLMFS_TRY_AT("create", AdamW::create(kHyper, kGroups));
  std::vector<Tensor> values = {LLMFS_TRY_AT("w", Tensor::from(Shape{1, 2}, kWeight)),
                                tensor_of(kGain)};
  const std::vector<Tensor> gradients = {
      LLMFS_TRY_AT("gw", Tensor::from(Shape{1, 2}, kWeightGradient)),
      tensor_of(kGainGradient)};
  Trajectory out;
  for (int t = 1; t <= 3; ++t) {
    LLMFS_TRY_AT("step", adamw.step(values, gradients));
    out.weight.emplace_back(values[0].values().begin(), values[0].values().end());
    out.gain.emplace_back(values[1].values().begin(), values[1].values().end());
  }
  return out;
}

// region: variants
// The same scalar step five ways; only the marked lines differ between the variants.
void variant_step(Variant variant, double& theta, double& m, double& v, double g,
                  int t) {
  const double eta = kHyper.learning_rate, b1 = kHyper.beta1, b2 = kHyper.beta2;
  const double lambda = variant == Variant::adam ? 0.0 : kLambda;
  if (variant == Variant::adam_l2)
    g += lambda * theta;  // L2: decay inside the gradient
  if (variant == Variant::adamw || variant == Variant::no_bias_correction)
    theta *= 1.0 - eta * lambda;  // decoupled, scaled by η
  if (variant == Variant::decay_unscaled) theta *= 1.0 - lambda;  // decoupled, not by η
  m = b1 * m + (1.0 - b1) * g;
  v = b2 * v + (1.0 - b2) * g * g;
  const bool correct = variant != Variant::no_bias_correction;
  const double m_hat = correct ? m / (1.0 - std::pow(b1, t)) : m;
  const double v_hat = correct ? v / (1.0 - std::pow(b2, t)) : v;
  theta -= eta * m_hat / (std::sqrt(v_hat) + kHyper.epsilon);
}
// endregion: variants

namespace {

// region: rounding-bound
// How far two correct float64 AdamW implementations can drift apart, to first order:
// each operation rounds with relative error ≤ u = 2⁻⁵³; an error already made is
// multiplied by β₁ (in m), β₂ (in v) and 1 − ηλ (in θ), all < 1, so errors add up and
// never grow. `e` bounds one implementation's distance from exact arithmetic, per
// element; two implementations are at most 2·e.θ apart.
struct ErrorBound {
  double theta = 0, m = 0, v = 0;
};

void advance(ErrorBound& e, double m0, double v0, double g, double m, double v,
             double theta0, double theta, double decay, const AdamWHyper& h,
             std::uint64_t t) {
  constexpr double u = 0x1p-53;
  const double bc2 = std::sqrt(1.0 - std::pow(h.beta2, static_cast<double>(t)));
  const double step =
      h.learning_rate / (1.0 - std::pow(h.beta1, static_cast<double>(t)));
  e.m = h.beta1 * e.m + 3 * u * (h.beta1 * std::abs(m0) + (1 - h.beta1) * std::abs(g));
  e.v = h.beta2 * e.v + 4 * u * (h.beta2 * v0 + (1 - h.beta2) * g * g);
  const double root =
      v > 0 ? std::min(e.v / (2 * std::sqrt(v)), std::sqrt(e.v)) : std::sqrt(e.v);
  const double d = std::sqrt(v) / bc2 + h.epsilon, r = std::abs(m) / d;
  const double e_d = root / bc2 + 3 * u * d;
  const double e_r = e.m / d + r * e_d / d + u * r;
  e.theta = decay * e.theta + u * std::abs(theta0 * decay) + step * e_r +
            3 * u * step * r + u * std::abs(theta);
}
// endregion: rounding-bound

}  // namespace

// The reference's gradients fed to the library's AdamW step by step; after each kept
// step θ is compared with torch's, beside the bound accumulated so far.
Step<Replay> replay_reference() {
  const auto records = read_reference_records(LLMFS_ADAMW_REFERENCE_PATH);
  AdamWHyper h;
  std::vector<ParameterGroup> groups;
  std::vector<Tensor> values, grads;
  std::map<std::string, std::size_t> index;
  for (const auto& [kind, r] : records) {
    if (kind == "CONFIG")
      h = {std::stod(r.at("lr")), std::stod(r.at("beta1")), std::stod(r.at("beta2")),
           std::stod(r.at("eps"))};
    if (kind != "PARAM") continue;
    const auto dims = numbers(r.at("shape"));
    const Shape shape(std::vector<std::size_t>(dims.begin(), dims.end()));
    if (groups.empty() || groups.back().name != r.at("group"))
      groups.push_back({r.at("group"), std::stod(r.at("weight_decay")), {}});
    groups.back().parameters.push_back({r.at("name"), shape});
    index[r.at("name")] = values.size();
    values.push_back(
        LLMFS_TRY_AT("initial", Tensor::from(shape, numbers(r.at("initial")))));
  }
  auto adamw = LLMFS_TRY_AT("create", AdamW::create(h, groups));
  std::vector<double> decay;
  for (const ParameterGroup& g : groups)
    decay.insert(decay.end(), g.parameters.size(),
                 1.0 - h.learning_rate * g.weight_decay);
  Replay out{values.size(), 0, 0};
  std::vector<std::vector<ErrorBound>> bound;
  for (const Tensor& v : values)
    bound.emplace_back(v.size()), out.elements += v.size();
  out.smallest_margin = INFINITY;
  for (const auto& [kind, r] : records) {
    if (kind == "GRAD") {
      const Shape& shape = values[grads.size()].shape();
      grads.push_back(
          LLMFS_TRY_AT("grad", Tensor::from(shape, numbers(r.at("values")))));
      if (grads.size() < values.size()) continue;
      const std::vector<Tensor> before = values;
      const AdamWState was = adamw.state();
      LLMFS_TRY_AT("step", adamw.step(values, grads));
      const AdamWState& now = adamw.state();
      for (std::size_t i = 0; i < values.size(); ++i)
        for (std::size_t k = 0; k < values[i].size(); ++k)
          advance(bound[i][k], was.first_moment[i].values()[k],
                  was.second_moment[i].values()[k], grads[i].values()[k],
                  now.first_moment[i].values()[k], now.second_moment[i].values()[k],
                  before[i].values()[k], values[i].values()[k], decay[i], h, now.step);
      grads.clear();
      out.steps = now.step;
      continue;
    }
    if (kind != "AFTER" && kind != "MOMENTS") continue;
    const std::size_t i = index.at(r.at("name"));
    if (kind == "MOMENTS") {
      const auto m = numbers(r.at("m")), v = numbers(r.at("v"));
      const AdamWState& s = adamw.state();
      for (std::size_t k = 0; k < m.size(); ++k)
        out.moments_max_relative = std::max(
            {out.moments_max_relative,
             std::abs(s.first_moment[i].values()[k] - m[k]) / std::abs(m[k]),
             std::abs(s.second_moment[i].values()[k] - v[k]) / std::abs(v[k])});
      continue;
    }
    const auto want = numbers(r.at("values"));
    for (std::size_t k = 0; k < want.size(); ++k) {
      const double got = values[i].values()[k], diff = std::abs(got - want[k]);
      const double limit = 2 * bound[i][k].theta;
      if (out.steps == 1)
        out.step1_max_relative =
            std::max(out.step1_max_relative, diff / std::abs(want[k]));
      if (diff > 0) out.smallest_margin = std::min(out.smallest_margin, limit / diff);
      if (out.steps == 100 && diff >= out.step100_max_abs)
        out.step100_max_abs = diff, out.step100_bound = limit;
      if (out.steps == 100) out.bitwise_equal += got == want[k];
    }
  }
  return out;
}

namespace {

// region: refused-and-restored
// A step whose second gradient has the wrong shape: refused, and nothing moved. Then
// the state saved after 3 steps, restored into a fresh optimizer, continues bit for
// bit.
[[nodiscard]] Step<std::array<bool, 2>> refuse_and_restore() {
  auto adamw = LLMFS_TRY_AT("create", AdamW::create(kHyper, kGroups));
  std::vector<Tensor> values = {LLMFS_TRY_AT("w", Tensor::from(Shape{1, 2}, kWeight)),
                                tensor_of(kGain)};
  const std::vector<Tensor> grads = {
      LLMFS_TRY_AT("gw", Tensor::from(Shape{1, 2}, kWeightGradient)),
      tensor_of(kGainGradient)};
  for (int t = 0; t < 3; ++t)
    LLMFS_TRY_AT("step", adamw.step(values, grads));
  const std::vector<Tensor> saved_values = values;
  const AdamWState saved = adamw.state();
  const std::vector<Tensor> wrong = {grads[0], tensor_of({1.0, 2.0})};
  const bool refused = !adamw.step(values, wrong).has_value();
  const bool unchanged = refused && values == saved_values && adamw.state() == saved;
  auto fresh = LLMFS_TRY_AT("fresh", AdamW::create(kHyper, kGroups));
  LLMFS_TRY_AT("restore", fresh.restore(saved));
  std::vector<Tensor> copy = values;
  for (int t = 0; t < 2; ++t) {
    LLMFS_TRY_AT("step", adamw.step(values, grads));
    LLMFS_TRY_AT("step", fresh.step(copy, grads));
  }
  return std::array{unchanged, values == copy && adamw.state() == fresh.state()};
}
// endregion: refused-and-restored

// region: refusals
// Configurations and steps the optimizer refuses, each checked before anything changes.
std::vector<std::array<std::string, 2>> refusals() {
  using snippets::error_text;
  auto adamw = AdamW::create(kHyper, kGroups).value();
  std::vector<Tensor> values = {Tensor::zeros(Shape{1, 2}), tensor_of({0.0})};
  const auto step = [&](std::vector<Tensor> g) {
    return error_text(adamw.step(values, g));
  };
  AdamWState bad = adamw.state();
  bad.first_moment.pop_back();
  return {{"learning_rate", error_text(AdamW::create({-0.1}, kGroups))},
          {"beta2", error_text(AdamW::create({0.1, 0.9, 1.0}, kGroups))},
          {"duplicate", error_text(AdamW::create(kHyper, {kGroups[0], kGroups[0]}))},
          {"count", step({Tensor::zeros(Shape{1, 2})})},
          {"shape", step({Tensor::zeros(Shape{2, 1}), tensor_of({0.0})})},
          {"non_finite", step({Tensor::zeros(Shape{1, 2}), tensor_of({NAN})})},
          {"restore", error_text(adamw.restore(bad))}};
}
// endregion: refusals

// region: exercises
[[nodiscard]] Step<Exercises> solve_exercises(
    const std::vector<std::vector<double>>& variants) {
  Exercises x;
  auto plain =
      LLMFS_TRY_AT("adam", AdamW::create(kHyper, {{"all", 0.0, {{"t", Shape{1}}}}}));
  std::vector<Tensor> theta = {tensor_of({kTheta0})};
  for (std::size_t t = 0; t < 3; ++t) {
    const std::vector<Tensor> g = {tensor_of({theta[0].values()[0] - kTarget})};
    LLMFS_TRY_AT("step", plain.step(theta, g));
    x.adam_vs_lambda_zero = std::max(x.adam_vs_lambda_zero,
                                     std::abs(theta[0].values()[0] - variants[4][t]));
  }
  auto idle =
      LLMFS_TRY_AT("idle", AdamW::create({1e-3}, {{"d", 0.1, {{"t", Shape{1}}}}}));
  std::vector<Tensor> w = {tensor_of({1.0})};
  const std::vector<Tensor> zero = {tensor_of({0.0})};
  while (w[0].values()[0] > 0.5 && x.halving_steps < 100000) {
    LLMFS_TRY_AT("idle step", idle.step(w, zero));
    ++x.halving_steps;
  }
  const std::array<double, 4> gradients = {1e-9, 1e-3, 1.0, 1e3};
  for (std::size_t k = 0; k < gradients.size(); ++k) {
    auto one =
        LLMFS_TRY_AT("one", AdamW::create({0.1}, {{"g", 0.0, {{"t", Shape{1}}}}}));
    std::vector<Tensor> p = {tensor_of({0.0})};
    LLMFS_TRY_AT("first step",
                 one.step(p, std::vector<Tensor>{tensor_of({gradients[k]})}));
    x.first_step[k] = std::abs(p[0].values()[0]);
  }
  return x;
}
// endregion: exercises

}  // namespace

Step<Evidence> gather() {
  Evidence e;
  e.fixture = LLMFS_TRY(run_fixture());
  for (const Variant variant : kVariants) {
    double theta = kTheta0, m = 0, v = 0;
    e.variants.emplace_back();
    for (int t = 1; t <= 3; ++t) {
      variant_step(variant, theta, m, v, theta - kTarget, t);
      e.variants.back().push_back(theta);
    }
  }
  e.replay = LLMFS_TRY(replay_reference());
  const auto [unchanged, restored] = LLMFS_TRY(refuse_and_restore());
  e.refused_changed_nothing = unchanged;
  e.restore_bit_for_bit = restored;
  e.errors = refusals();
  e.exercises = LLMFS_TRY(solve_exercises(e.variants));
  return e;
}

}  // namespace ch22
