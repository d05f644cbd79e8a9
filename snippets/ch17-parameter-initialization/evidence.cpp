// Chapter 17
#include "evidence.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/tensor/matmul.hpp>

namespace ch17 {

namespace {

using llmfs::SplitMix64;
using llmfs::autograd::AutogradError;
using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::nn::Distribution;
using llmfs::nn::draw;
using llmfs::nn::InitScheme;
using llmfs::nn::lecun;
using llmfs::nn::make_parameter;
using llmfs::nn::NamedParameter;
using llmfs::nn::NamedParameters;
using llmfs::nn::NnError;
using llmfs::nn::xavier;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

std::vector<double> ch17_values(const Tensor& t) {
  return {t.values().begin(), t.values().end()};
}

}  // namespace

Step<FirstDraws> first_draws() {
  FirstDraws d;
  SplitMix64 outputs(kSeed), units(kSeed), uniform(kSeed), one(kSeed), normal(kSeed);
  for (std::size_t i = 0; i < kPublished.size(); ++i)
    d.outputs.push_back(outputs.next_u64());
  d.units = {units.next_unit(), units.next_unit()};
  const InitScheme u = LLMFS_TRY_AT("scheme", lecun(kFanIn, Distribution::uniform));
  const InitScheme n = LLMFS_TRY_AT("scheme", lecun(kFanIn, Distribution::normal));
  d.lecun_uniform =
      ch17_values(LLMFS_TRY_AT("uniform", draw({kFanIn, kFanOut}, u, uniform)));
  d.first_normal = llmfs::nn::standard_normal(one);
  d.lecun_normal =
      ch17_values(LLMFS_TRY_AT("normal", draw({kFanIn, kFanOut}, n, normal)));
  return d;
}

// region: stack
// x: [rows, width]. The variance of x, then of x·W₁, x·W₁·W₂, … after each layer; a
// fresh weight [width, width] comes from `next_weight` for every layer.
using WeightDraw = std::function<std::expected<Tensor, NnError>()>;

Step<std::vector<double>> variance_through_stack(Tensor x,
                                                 const WeightDraw& next_weight) {
  std::vector<double> variances = {llmfs::nn::moments(x.values()).variance};
  for (std::size_t layer = 0; layer < kDepth; ++layer) {
    const Tensor w = LLMFS_TRY_AT("weight", next_weight());
    x = LLMFS_TRY_AT("layer", llmfs::tensor::matmul(x, w));
    variances.push_back(llmfs::nn::moments(x.values()).variance);
  }
  return variances;
}
// endregion: stack

// region: measure-stack
// One input, unit normal; LeCun's normal σ times each gain, then PyTorch's default.
// Every run draws its weights from the same seed, so only the scale differs.
Step<std::vector<StackRun>> measure_stack() {
  SplitMix64 input_rng(17);
  const Tensor x = LLMFS_TRY_AT(
      "input", draw({kRows, kWidth}, {Distribution::normal, 1.0}, input_rng));
  const InitScheme base = LLMFS_TRY_AT("scheme", lecun(kWidth, Distribution::normal));
  std::vector<StackRun> runs;
  for (const double gain : kGains) {
    SplitMix64 rng(1717);
    const InitScheme scaled{Distribution::normal, gain * base.std_dev};
    runs.push_back({fmt::format("x{}", gain), gain * gain,
                    LLMFS_TRY(variance_through_stack(x, [&] {
                      return draw({kWidth, kWidth}, scaled, rng);
                    }))});
  }
  SplitMix64 rng(1717);
  runs.push_back(
      {"pytorch_default", 1.0 / 3.0, LLMFS_TRY(variance_through_stack(x, [&] {
         return llmfs::nn::uniform_fan_in({kWidth, kWidth}, kWidth, rng);
       }))});
  return runs;
}
// endregion: measure-stack

// region: named-stack
// Twelve layers [4, 4] named in the order they are drawn: stack.0.weight, …
Step<NamedParameters> build_named_stack(Tape& tape, std::uint64_t seed) {
  SplitMix64 rng(seed);
  const InitScheme scheme = LLMFS_TRY_AT("scheme", lecun(4, Distribution::normal));
  std::vector<NamedParameter> listed;
  for (std::size_t i = 0; i < 12; ++i) {
    listed.push_back(LLMFS_TRY_AT(
        "parameter",
        make_parameter(tape, fmt::format("stack.{}.weight", i), {4, 4}, scheme, rng)));
  }
  return LLMFS_TRY_AT("collection", NamedParameters::create(std::move(listed)));
}
// endregion: named-stack

Step<Naming> name_parameters() {
  Tape first, second;
  const NamedParameters a = LLMFS_TRY(build_named_stack(first, kSeed));
  const NamedParameters b = LLMFS_TRY(build_named_stack(second, kSeed));
  Naming n;
  n.rebuilt_identical = true;
  for (std::size_t i = 0; i < a.size(); ++i) {
    n.names.push_back(a.items()[i].name);
    const Tensor va = LLMFS_TRY_AT("value", a.items()[i].value.value());
    const Tensor vb = LLMFS_TRY_AT("value", b.items()[i].value.value());
    n.rebuilt_identical = n.rebuilt_identical && b.items()[i].name == n.names.back() &&
                          std::ranges::equal(va.values(), vb.values());
  }
  n.sorted = n.names;
  std::ranges::sort(n.sorted);
  n.scalars = a.scalar_count();
  return n;
}

// Chapter 13's checker through the first two named layers:
// loss = Σ (x·W₀·W₁) ⊙ R, with x and R fixed.
Step<GradientCheckReport> check_two_layers() {
  Tape tape;
  const NamedParameters stack = LLMFS_TRY(build_named_stack(tape, kSeed));
  SplitMix64 rng(99);
  const InitScheme unit{Distribution::normal, 1.0};
  const Tensor x = LLMFS_TRY_AT("x", draw({2, 4}, unit, rng));
  const Tensor r = LLMFS_TRY_AT("r", draw({2, 4}, unit, rng));
  const std::vector<Tensor> point = {
      LLMFS_TRY_AT("w0", stack.items()[0].value.value()),
      LLMFS_TRY_AT("w1", stack.items()[1].value.value())};
  auto loss = [&x, &r](Tape& t, std::span<const TensorValue> in)
      -> std::expected<TensorValue, AutogradError> {
    const TensorValue h = LLMFS_TRY(llmfs::autograd::matmul(t.constant(x), in[0]));
    const TensorValue y = LLMFS_TRY(llmfs::autograd::matmul(h, in[1]));
    return llmfs::autograd::sum(LLMFS_TRY(multiply(y, t.constant(r))));
  };
  return LLMFS_TRY_AT("check", llmfs::autograd::check_tape_gradients(loss, point));
}

// region: refusals
// Each call is refused before its first draw: the generator still equals a fresh one.
std::vector<Refusal> refusals() {
  Tape tape, released;
  released.release();
  const InitScheme unit{Distribution::normal, 1.0};
  SplitMix64 rng(kSeed);
  std::vector<Refusal> out;
  auto keep = [&](std::string name, const auto& result) {
    out.push_back(
        {std::move(name), snippets::error_text(result), rng == SplitMix64(kSeed)});
  };
  keep("fan_in_zero", lecun(0, Distribution::uniform));
  keep("fan_out_zero", xavier(4, 0, Distribution::normal));
  keep("negative_std", draw({2, 2}, {Distribution::normal, -1.0}, rng));
  keep("nan_std", draw({2, 2}, {Distribution::uniform, NAN}, rng));
  keep("shape_overflow", draw({1ULL << 40, 1ULL << 40}, unit, rng));
  keep("empty_name", make_parameter(tape, "", {2, 2}, unit, rng));
  keep("released_tape", make_parameter(released, "w", {2, 2}, unit, rng));
  const TensorValue a = tape.parameter(Tensor::zeros({2, 2}));
  const TensorValue b = tape.parameter(Tensor::zeros({2, 2}));
  keep("duplicate_name", NamedParameters::create({{"w", a}, {"w", b}}));
  return out;
}
// endregion: refusals

// region: exercises
Step<Exercises> solve_exercises(const std::vector<StackRun>& stack) {
  Exercises x;
  const InitScheme u = LLMFS_TRY_AT("xavier", xavier(300, 100, Distribution::uniform));
  x.xavier_bound = std::sqrt(3.0) * u.std_dev;
  x.xavier_std = LLMFS_TRY_AT("xavier", xavier(300, 100, Distribution::normal)).std_dev;
  const std::vector<double>& v = stack.back().variances;  // pytorch_default
  x.default_factor = std::pow(v.back() / v.front(), 1.0 / static_cast<double>(kDepth));
  SplitMix64 rng(kSeed);
  LLMFS_TRY_AT("normal", draw({3, 4}, {Distribution::normal, 1.0}, rng));
  x.state = rng.state();
  x.predicted = kSeed + 24 * 0x9E3779B97F4A7C15ULL;  // wraps mod 2⁶⁴
  return x;
}
// endregion: exercises

Step<Evidence> gather() {
  Evidence e;
  e.first = LLMFS_TRY(first_draws());
  const std::vector<std::pair<std::string, InitScheme>> schemes = {
      {"lecun_uniform", LLMFS_TRY_AT("s", lecun(kWidth, Distribution::uniform))},
      {"lecun_normal", LLMFS_TRY_AT("s", lecun(kWidth, Distribution::normal))},
      {"xavier_uniform",
       LLMFS_TRY_AT("s", xavier(kWidth, 4 * kWidth, Distribution::uniform))},
      {"xavier_normal",
       LLMFS_TRY_AT("s", xavier(kWidth, 4 * kWidth, Distribution::normal))}};
  for (const auto& [name, scheme] : schemes) {
    SplitMix64 rng(kSeed);
    const Tensor w = LLMFS_TRY_AT(name, draw({kWidth, 4 * kWidth}, scheme, rng));
    const auto [mean, variance] = llmfs::nn::moments(w.values());
    e.draws.push_back({name, scheme.std_dev, mean, variance});
  }
  e.stack = LLMFS_TRY(measure_stack());
  e.naming = LLMFS_TRY(name_parameters());
  e.check = LLMFS_TRY(check_two_layers());
  e.refusals = refusals();
  e.exercises = LLMFS_TRY(solve_exercises(e.stack));
  return e;
}

}  // namespace ch17
