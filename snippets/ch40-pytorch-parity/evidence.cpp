// Chapter 40
#include "evidence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include <llmfs/attention/multi_head.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/tensor/layout.hpp>

#ifndef LLMFS_SOURCE_DIR
#error \
    "ch40_lib needs LLMFS_SOURCE_DIR (set in snippets/ch40-pytorch-parity/CMakeLists.txt)"
#endif

namespace ch40 {

namespace {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::testing::discrepancy;
using llmfs::testing::ReferenceData;

Tensor transposed(const llmfs::testing::ReferenceTensor& reference) {
  return *llmfs::tensor::transpose(to_tensor(reference), 0, 1);
}

TensorParity compare(std::string name, const Tensor& library,
                     std::span<const double> reference, double tolerance) {
  const auto d = discrepancy(library.values(), reference);
  const bool ok = d.same_size && d.same_nonfinite && d.relative <= tolerance;
  return TensorParity{std::move(name), d.relative, d.max_abs, ok};
}

double max_abs(std::span<const double> values) {
  double m = 0.0;
  for (double v : values)
    if (std::isfinite(v)) m = std::max(m, std::abs(v));
  return m;
}

// The torch error key for a mistake that torch may refuse to run.
std::string torch_error_key(Mistake mistake) {
  switch (mistake) {
    case Mistake::missing_transpose: return "torch_error.missing_transpose";
    case Mistake::missing_contiguity: return "torch_error.missing_contiguous";
    case Mistake::mask_batch_only: return "torch_error.mask_batch_only";
    default: return "";
  }
}

}  // namespace

std::string default_data_dir() {
  return std::string(LLMFS_SOURCE_DIR) + "/tests/reference/data";
}

Tensor to_tensor(const llmfs::testing::ReferenceTensor& reference) {
  auto t = Tensor::from(Shape(reference.shape), reference.values);
  return t ? std::move(*t) : Tensor();
}

// region: library-run
std::expected<LibraryRun, std::string> run_library(const ReferenceData& data) {
  namespace attention = llmfs::attention;
  llmfs::autograd::Tape tape;
  const auto x = tape.parameter(to_tensor(data.at("X")));
  const auto w_in =
      tape.parameter(to_tensor(data.at("W_in")));  // [d, 3d] = in_proj_weightᵀ
  const auto w_o =
      tape.parameter(to_tensor(data.at("W_O")));  // [d, d]  = out_proj.weightᵀ
  const auto heads = static_cast<std::size_t>(data.scalar("heads"));
  const std::size_t tokens = x.shape()[1];

  // nn.MultiheadAttention has no positions inside the layer; the RoPE cases rotate Q
  // and K.
  attention::PositionEncoding positions = attention::NoPositions{};
  std::size_t offset = 0;
  if (data.contains("rope_base")) {
    offset = static_cast<std::size_t>(data.scalar("rope_offset"));
    positions = attention::RotaryPositions{offset + tokens, data.scalar("rope_base")};
  }
  auto layer = attention::MultiHeadAttention::from_combined_parameters(
      {"parity.in_projection.weight", w_in}, {"parity.output.weight", w_o}, heads,
      positions);
  if (!layer) return std::unexpected(fmt::format("{}", layer.error()));
  auto forward = layer->forward(x, offset);
  if (!forward) return std::unexpected(fmt::format("{}", forward.error()));

  // Seeding backward with `upstream` gives the gradients of loss = Σ output ⊙ upstream.
  if (auto done =
          llmfs::autograd::backward(forward->output, to_tensor(data.at("upstream")));
      !done)
    return std::unexpected(fmt::format("{}", done.error()));
  LibraryRun run;
  run.output = *forward->output.value();
  run.weights = *forward->attention_weights.value();
  run.grad_x = *x.gradient();
  run.grad_w_in = *w_in.gradient();
  run.grad_w_o = *w_o.gradient();
  run.parameter_count = layer->parameter_count();
  run.split_shape = forward->projected_query_heads.shape();
  run.head_output_shape = forward->head_outputs.shape();
  run.merged_shape = forward->merged.shape();
  return run;
}
// endregion: library-run

bool CaseParity::passed() const {
  auto ok = [](const TensorParity& t) { return t.passed; };
  return std::ranges::all_of(manual, ok) && std::ranges::all_of(module, ok);
}

bool FailureOutcome::caught() const {
  return error.has_value() || relative > kFloat64Relative ||
         parameters != reference_parameters;
}

std::string FailureOutcome::caught_by() const {
  if (error) return "typed error";
  const bool output = relative > kFloat64Relative;
  const bool count = parameters != reference_parameters;
  if (output && count) return "output and parameter count";
  if (output) return "output";
  if (count) return "parameter count";
  return "not caught";
}

FailureOutcome run_variant(const ReferenceData& data, Mistake mistake, double bias) {
  FailureOutcome outcome;
  outcome.mistake = mistake;
  outcome.bias = bias;
  outcome.reference_parameters =
      static_cast<std::size_t>(data.scalar("torch.mha_parameters_bias_false"));
  if (const auto key = torch_error_key(mistake); !key.empty())
    outcome.torch_says = data.comment(key);
  const auto heads = static_cast<std::size_t>(data.scalar("heads"));
  auto result = lesson_forward(to_tensor(data.at("X")), to_tensor(data.at("W_in")),
                               to_tensor(data.at("W_O")), heads, mistake, bias);
  if (!result) {
    outcome.error = fmt::format("{}", result.error());
    return outcome;
  }
  outcome.relative =
      discrepancy(result->output.values(), data.at("output").values).relative;
  outcome.parameters = result->parameter_count;
  const auto torch_name = fmt::format("wrong.{}.output", mistake_name(mistake));
  if (data.contains(torch_name))
    outcome.matches_torch_variant =
        discrepancy(result->output.values(), data.at(torch_name).values).relative <=
        kFloat64Relative;
  return outcome;
}

namespace {

CaseParity compare_case(const std::string& name, const ReferenceData& data,
                        const LibraryRun& run) {
  CaseParity c;
  c.name = name;
  const auto& shape = data.at("X").shape;
  c.batch = shape[0];
  c.tokens = shape[1];
  c.heads = static_cast<std::size_t>(data.scalar("heads"));
  c.head_width = shape[2] / c.heads;
  c.rope = data.contains("rope_base");
  const double tol = kFloat64Relative;
  c.manual = {compare("output", run.output, data.at("output").values, tol),
              compare("weights", run.weights, data.at("weights").values, tol),
              compare("grad_X", run.grad_x, data.at("grad_X").values, tol),
              compare("grad_W_in", run.grad_w_in, data.at("grad_W_in").values, tol),
              compare("grad_W_O", run.grad_w_o, data.at("grad_W_O").values, tol)};
  if (data.contains("mha.output")) {
    c.module = {compare("output", run.output, data.at("mha.output").values, tol),
                compare("weights", run.weights, data.at("mha.weights").values, tol),
                compare("grad_X", run.grad_x, data.at("mha.grad_X").values, tol),
                compare("grad_W_in", run.grad_w_in,
                        transposed(data.at("mha.grad_in_proj_weight")).values(), tol),
                compare("grad_W_O", run.grad_w_o,
                        transposed(data.at("mha.grad_out_proj_weight")).values(), tol)};
  }
  return c;
}

Float32Finding float32_finding(const ReferenceData& data, const LibraryRun& run) {
  Float32Finding f;
  const auto& manual_out = data.at("output").values;
  const auto& module_out = data.at("mha.output").values;
  f.manual_vs_module = discrepancy(manual_out, module_out).max_abs;
  f.output_max = max_abs(data.at("float64_of_float32_inputs.output").values);
  const auto as_float = static_cast<float>(f.output_max);
  f.output_spacing = static_cast<double>(
      std::nextafter(as_float, std::numeric_limits<float>::infinity()) - as_float);
  f.lesson_claim_holds = f.manual_vs_module < kLessonTolerance;
  f.exact_relative = discrepancy(run.output.values(),
                                 data.at("float64_of_float32_inputs.output").values)
                         .relative;
  const Tensor grad_in_module = transposed(data.at("mha.grad_in_proj_weight"));
  const Tensor grad_o_module = transposed(data.at("mha.grad_out_proj_weight"));
  struct Row {
    const char* name;
    const Tensor* library;
    std::span<const double> manual;
    std::span<const double> module;
  };
  const Row rows[] = {
      {"output", &run.output, manual_out, module_out},
      {"weights", &run.weights, data.at("weights").values,
       data.at("mha.weights").values},
      {"grad_X", &run.grad_x, data.at("grad_X").values, data.at("mha.grad_X").values},
      {"grad_W_in", &run.grad_w_in, data.at("grad_W_in").values,
       grad_in_module.values()},
      {"grad_W_O", &run.grad_w_o, data.at("grad_W_O").values, grad_o_module.values()},
  };
  for (const auto& row : rows) {
    Float32Tensor t;
    t.name = row.name;
    t.reference_max = max_abs(row.library->values());
    t.manual_abs = discrepancy(row.library->values(), row.manual).max_abs;
    t.module_abs = discrepancy(row.library->values(), row.module).max_abs;
    const double unit = kFloat32UnitRoundoff * t.reference_max;
    t.manual_factor = t.manual_abs / unit;
    t.module_factor = t.module_abs / unit;
    t.passed = t.manual_factor <= kFloat32Factor && t.module_factor <= kFloat32Factor;
    f.tensors.push_back(std::move(t));
  }
  return f;
}

WorkedExample worked_example(const ReferenceData& data, const LibraryRun& run) {
  WorkedExample w;
  w.torch_version = data.comment("torch");
  w.blas = data.comment("blas");
  const auto first4 = [](std::span<const double> v) {
    return std::vector<double>(v.begin(), v.begin() + 4);
  };
  w.input_row = first4(data.at("X").values);
  w.torch_output_row = first4(data.at("mha.output").values);
  w.library_output_row = first4(run.output.values());
  const auto& weights =
      data.at("mha.weights").values;  // [B,h,T,T]; batch 0, head 0, query 4
  w.torch_weights_last.assign(weights.begin() + 4 * kTokens,
                              weights.begin() + 5 * kTokens);
  const auto& manual_weights = data.at("weights").values;
  w.rows = manual_weights.size() / kTokens;
  for (std::size_t r = 0; r < w.rows; ++r) {
    const auto row =
        std::span<const double>(manual_weights).subspan(r * kTokens, kTokens);
    if (std::ranges::max(row) > 0.99) ++w.rows_one_hot;
  }
  const auto& in_proj = data.at("mha.in_proj_weight");
  const auto& out_proj = data.at("mha.out_proj_weight");
  w.in_proj_weight_shape = Shape(in_proj.shape);
  w.out_proj_weight_shape = Shape(out_proj.shape);
  w.in_proj_is_transpose =
      transposed(in_proj).values().size() == data.at("W_in").values.size() &&
      std::ranges::equal(transposed(in_proj).values(), data.at("W_in").values);
  w.out_proj_is_transpose =
      std::ranges::equal(transposed(out_proj).values(), data.at("W_O").values);
  // The additive mask is −∞ exactly where the boolean tril mask is false (key j > query
  // i).
  const auto& mask = data.at("mha.attn_mask").values;
  w.masks_agree = mask.size() == kTokens * kTokens;
  for (std::size_t i = 0; i < kTokens && w.masks_agree; ++i)
    for (std::size_t j = 0; j < kTokens; ++j)
      w.masks_agree =
          w.masks_agree &&
          (j > i ? mask[i * kTokens + j] == -std::numeric_limits<double>::infinity()
                 : mask[i * kTokens + j] == 0.0);
  w.parameters = run.parameter_count;
  w.torch_parameters =
      static_cast<std::size_t>(data.scalar("torch.mha_parameters_bias_false"));
  w.torch_parameters_with_bias =
      static_cast<std::size_t>(data.scalar("torch.mha_parameters_bias_true"));
  const auto& x = data.at("X").shape;
  const auto& w_in = data.at("W_in").shape;
  w.input_shape = Shape(x);
  w.w_in_shape = Shape(w_in);
  w.w_o_shape = Shape(data.at("W_O").shape);
  w.qkv_shape = Shape{x[0], x[1], w_in[1]};
  w.chunk_shape = Shape{x[0], x[1], w_in[1] / 3};
  w.split_shape = run.split_shape;
  w.weights_shape = run.weights.shape();
  w.mask_shape = Shape{1, 1, x[1], x[1]};
  w.head_output_shape = run.head_output_shape;
  w.merged_shape = run.merged_shape;
  w.output_shape = run.output.shape();
  return w;
}

std::vector<FailureOutcome> all_variants(const ReferenceData& data) {
  std::vector<FailureOutcome> outcomes;
  for (const Mistake mistake : kMistakes) {
    if (mistake == Mistake::output_bias) {
      outcomes.push_back(
          run_variant(data, mistake, 0.0));  // as nn.MultiheadAttention initialises it
      outcomes.push_back(run_variant(data, mistake, kBiasValue));
    } else {
      outcomes.push_back(run_variant(data, mistake));
    }
  }
  return outcomes;
}

}  // namespace

std::expected<Evidence, std::string> gather_evidence(const std::string& data_dir) {
  try {
    Evidence e;
    auto load = [&](const std::string& name) {
      return llmfs::testing::load_reference(data_dir + "/" + name + ".txt");
    };
    for (const auto& name : parity_case_names()) {
      const auto data = load(name);
      auto run = run_library(data);
      if (!run)
        return std::unexpected(fmt::format("library on {}: {}", name, run.error()));
      e.cases.push_back(compare_case(name, data, *run));
      if (name == "ch40_seed123_float64") {
        e.example = worked_example(data, *run);
        e.failures = all_variants(data);
      }
      if (name == "ch40_random_b1_t4_h4") e.failures_t_eq_h = all_variants(data);
    }
    const auto f32 = load("ch40_seed123_float32");
    auto run = run_library(f32);
    if (!run)
      return std::unexpected(
          fmt::format("library on ch40_seed123_float32: {}", run.error()));
    e.float32 = float32_finding(f32, *run);
    e.exercises = answer_exercises();
    return e;
  } catch (const llmfs::testing::ReferenceError& error) {
    return std::unexpected(std::string("reference data: ") + error.what());
  }
}

}  // namespace ch40
