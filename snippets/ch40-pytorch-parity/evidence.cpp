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
#error "ch40_lib needs LLMFS_SOURCE_DIR (snippets/ch40-pytorch-parity/CMakeLists.txt)"
#endif

namespace ch40 {

namespace {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::testing::discrepancy;
using llmfs::testing::ReferenceData;

// The cases compared with the library, in report order.
const std::vector<std::string> kCases{
    "ch40_seed123_float64", "ch40_random_b1_t7_h2", "ch40_random_b1_t4_h4",
    "ch40_random_b3_t4_h3_rope", "ch40_random_b2_t6_h8_rope"};

Tensor transposed(const llmfs::testing::ReferenceTensor& reference) {
  return *llmfs::tensor::transpose(to_tensor(reference), 0, 1);
}

TensorParity compare(std::string name, const Tensor& library,
                     std::span<const double> reference) {
  const auto d = discrepancy(library.values(), reference);
  const bool comparable = d.same_size && d.same_nonfinite;
  return {std::move(name),
          comparable ? d.relative : std::numeric_limits<double>::infinity()};
}

// The torch error key for a mistake that torch refuses to run, or "".
std::string torch_error_key(Mistake mistake) {
  switch (mistake) {
    case Mistake::missing_transpose: return "torch_error.missing_transpose";
    case Mistake::missing_contiguity: return "torch_error.missing_contiguous";
    case Mistake::mask_batch_only: return "torch_error.mask_batch_only";
    default: return "";
  }
}

}  // namespace

Tensor to_tensor(const llmfs::testing::ReferenceTensor& reference) {
  return *Tensor::from(Shape(reference.shape), reference.values);
}

// region: library-run
snippets::Step<LibraryRun> run_library(const ReferenceData& data) {
  namespace attention = llmfs::attention;
  llmfs::autograd::Tape tape;
  const auto x = tape.parameter(to_tensor(data.at("X")));
  const auto w_in = tape.parameter(to_tensor(data.at("W_in")));  // in_proj_weightᵀ
  const auto w_o = tape.parameter(to_tensor(data.at("W_O")));    // out_proj.weightᵀ
  const auto heads = static_cast<std::size_t>(data.scalar("heads"));

  // nn.MultiheadAttention has no positions; the RoPE cases rotate Q and K.
  attention::PositionEncoding positions = attention::NoPositions{};
  std::size_t offset = 0;
  if (data.contains("rope_base")) {
    offset = static_cast<std::size_t>(data.scalar("rope_offset"));
    positions =
        attention::RotaryPositions{offset + x.shape()[1], data.scalar("rope_base")};
  }
  const auto layer =
      LLMFS_TRY_AT("layer from W_in and W_O",
                   attention::MultiHeadAttention::from_combined_parameters(
                       {"parity.in_projection.weight", w_in},
                       {"parity.output.weight", w_o}, heads, positions));
  const auto forward = LLMFS_TRY_AT("forward", layer.forward(x, offset));
  // Seeding backward with `upstream` gives the gradients of Σ output ⊙ upstream.
  LLMFS_TRY_AT("backward", llmfs::autograd::backward(forward.output,
                                                     to_tensor(data.at("upstream"))));
  return LibraryRun{.output = *forward.output.value(),
                    .weights = *forward.attention_weights.value(),
                    .grad_x = *x.gradient(),
                    .grad_w_in = *w_in.gradient(),
                    .grad_w_o = *w_o.gradient(),
                    .parameter_count = layer.parameter_count(),
                    .split_shape = forward.projected_query_heads.shape(),
                    .head_output_shape = forward.head_outputs.shape(),
                    .merged_shape = forward.merged.shape()};
}
// endregion: library-run

bool FailureOutcome::caught() const {
  return caught_by() != "not caught";
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
  const auto result =
      lesson_forward(to_tensor(data.at("X")), to_tensor(data.at("W_in")),
                     to_tensor(data.at("W_O")), heads, mistake, bias);
  if (!result) {
    outcome.error = fmt::format("{}", result.error());
    return outcome;
  }
  const auto output = result->output.values();
  outcome.relative = discrepancy(output, data.at("output").values).relative;
  outcome.parameters = result->parameter_count;
  const auto torch_name = fmt::format("wrong.{}.output", mistake_name(mistake));
  if (data.contains(torch_name))
    outcome.torch_variant_relative =
        discrepancy(output, data.at(torch_name).values).relative;
  return outcome;
}

namespace {

CaseParity compare_case(const std::string& name, const ReferenceData& data,
                        const LibraryRun& run) {
  const auto& shape = data.at("X").shape;
  const auto heads = static_cast<std::size_t>(data.scalar("heads"));
  CaseParity c;
  c.name = name;
  c.batch = shape[0];
  c.tokens = shape[1];
  c.heads = heads;
  c.head_width = shape[2] / heads;
  c.rope = data.contains("rope_base");
  const auto against = [&](const std::string& prefix, const Tensor& grad_w_in,
                           const Tensor& grad_w_o) {
    return std::vector<TensorParity>{
        compare("output", run.output, data.at(prefix + "output").values),
        compare("weights", run.weights, data.at(prefix + "weights").values),
        compare("grad_X", run.grad_x, data.at(prefix + "grad_X").values),
        compare("grad_W_in", run.grad_w_in, grad_w_in.values()),
        compare("grad_W_O", run.grad_w_o, grad_w_o.values())};
  };
  c.manual =
      against("", to_tensor(data.at("grad_W_in")), to_tensor(data.at("grad_W_O")));
  if (data.contains("mha.output"))
    c.module = against("mha.", transposed(data.at("mha.grad_in_proj_weight")),
                       transposed(data.at("mha.grad_out_proj_weight")));
  return c;
}

Float32Finding float32_finding(const ReferenceData& data, const LibraryRun& run) {
  Float32Finding f;
  const auto& exact = data.at("float64_of_float32_inputs.output").values;
  f.manual_vs_module =
      discrepancy(data.at("output").values, data.at("mha.output").values).max_abs;
  const auto exact_gap = discrepancy(run.output.values(), exact);
  f.output_max = exact_gap.reference_max;
  const auto as_float = static_cast<float>(f.output_max);
  f.output_spacing = static_cast<double>(
      std::nextafter(as_float, std::numeric_limits<float>::infinity()) - as_float);
  f.exact_relative = exact_gap.relative;
  const Tensor grad_in_module = transposed(data.at("mha.grad_in_proj_weight"));
  const Tensor grad_o_module = transposed(data.at("mha.grad_out_proj_weight"));
  const auto row = [&](const char* name, const Tensor& library,
                       std::span<const double> manual, std::span<const double> module) {
    // The reference is the library's exact answer for the float32 inputs.
    const auto manual_gap = discrepancy(manual, library.values());
    Float32Tensor t{.name = name,
                    .reference_max = manual_gap.reference_max,
                    .manual_abs = manual_gap.max_abs,
                    .module_abs = discrepancy(module, library.values()).max_abs};
    const double unit = kFloat32UnitRoundoff * t.reference_max;
    t.manual_factor = t.manual_abs / unit;
    t.module_factor = t.module_abs / unit;
    f.tensors.push_back(std::move(t));
  };
  row("output", run.output, data.at("output").values, data.at("mha.output").values);
  row("weights", run.weights, data.at("weights").values, data.at("mha.weights").values);
  row("grad_X", run.grad_x, data.at("grad_X").values, data.at("mha.grad_X").values);
  row("grad_W_in", run.grad_w_in, data.at("grad_W_in").values, grad_in_module.values());
  row("grad_W_O", run.grad_w_o, data.at("grad_W_O").values, grad_o_module.values());
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
  const auto& weights = data.at("mha.weights").values;  // batch 0, head 0, query 4
  w.torch_weights_last.assign(weights.begin() + 4 * kTokens,
                              weights.begin() + 5 * kTokens);
  const std::span<const double> manual_weights = data.at("weights").values;
  w.rows = manual_weights.size() / kTokens;
  for (std::size_t r = 0; r < w.rows; ++r)
    if (std::ranges::max(manual_weights.subspan(r * kTokens, kTokens)) > 0.99)
      ++w.rows_one_hot;
  const auto& in_proj = data.at("mha.in_proj_weight");
  const auto& out_proj = data.at("mha.out_proj_weight");
  w.in_proj_weight_shape = Shape(in_proj.shape);
  w.out_proj_weight_shape = Shape(out_proj.shape);
  w.in_proj_gap =
      discrepancy(transposed(in_proj).values(), data.at("W_in").values).max_abs;
  w.out_proj_gap =
      discrepancy(transposed(out_proj).values(), data.at("W_O").values).max_abs;
  w.mask_minus_inf = static_cast<std::size_t>(std::ranges::count(
      data.at("mha.attn_mask").values, -std::numeric_limits<double>::infinity()));
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
    outcomes.push_back(run_variant(data, mistake));  // output_bias: zero, as torch
    if (mistake == Mistake::output_bias)
      outcomes.push_back(run_variant(data, mistake, kBiasValue));
  }
  return outcomes;
}

}  // namespace

snippets::Step<Evidence> gather() {
  using llmfs::testing::read_reference;
  using llmfs::testing::reference_path;
  Evidence e;
  for (const auto& name : kCases) {
    const auto data =
        LLMFS_TRY_AT("reference data", read_reference(reference_path(name)));
    const auto run = LLMFS_TRY_AT("library on " + name, run_library(data));
    e.cases.push_back(compare_case(name, data, run));
    if (name == "ch40_seed123_float64") {
      e.example = worked_example(data, run);
      e.failures = all_variants(data);
    }
    if (name == "ch40_random_b1_t4_h4") e.failures_t_eq_h = all_variants(data);
  }
  const auto f32 = LLMFS_TRY_AT("reference data",
                                read_reference(reference_path("ch40_seed123_float32")));
  const auto run = LLMFS_TRY_AT("library on ch40_seed123_float32", run_library(f32));
  e.float32 = float32_finding(f32, run);
  e.exercises = answer_exercises();
  return e;
}

}  // namespace ch40
