// Chapter 40
// The appendix's report: one `key=value` line per fact, every number from evidence.cpp.
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <llmfs/report/format.hpp>

#include "evidence.hpp"

namespace ch40 {

std::string decade(double value) {
  if (value == 0.0) return "0";
  if (!std::isfinite(value)) return "mismatch";
  return fmt::format("<=1e{}", static_cast<int>(std::ceil(std::log10(value))));
}

namespace {

using llmfs::report::format_number;
using llmfs::report::format_values;

std::string parity_list(const std::vector<TensorParity>& tensors) {
  std::vector<std::string> items;
  for (const auto& t : tensors)
    items.push_back(fmt::format("{}:{}", t.name, decade(t.relative)));
  return fmt::format("{}", fmt::join(items, " "));
}

std::string failure_line(const std::string& prefix, const FailureOutcome& f) {
  // The two output-bias runs get their own keys: a bias of zero (as
  // nn.MultiheadAttention initialises it) and a bias that is not zero.
  const char* suffix = f.mistake != Mistake::output_bias ? ""
                       : f.bias == 0.0                   ? "_zero"
                                                         : "_nonzero";
  std::string line = fmt::format("{}{}{}=", prefix, mistake_name(f.mistake), suffix);
  if (f.mistake == Mistake::output_bias)
    line += fmt::format("bias:{} ", format_number(f.bias));
  line += fmt::format("caught_by:{}", f.caught_by());
  if (f.error) {
    line += fmt::format(" error:{}", *f.error);
  } else {
    line +=
        fmt::format(" output_relative:{} parameters:{}/{}", format_number(f.relative),
                    f.parameters, f.reference_parameters);
    if (f.torch_variant_relative)
      line += fmt::format(" vs_torch_mistake:{}", decade(*f.torch_variant_relative));
  }
  if (!f.torch_says.empty()) line += fmt::format(" torch:{}", f.torch_says);
  return line;
}

}  // namespace

std::string render_report(const Evidence& e) {
  const auto& w = e.example;
  const auto& x = e.exercises;
  const auto& f = e.float32;
  std::vector<std::string> lines{
      "chapter=40-pytorch-parity",
      fmt::format("reference=torch {} {} data:tests/reference/data/ch40_*.txt",
                  w.torch_version, w.blas),
      fmt::format("config=batch:{} tokens:{} heads:{} d_head:{} d_model:{} seed:123 "
                  "mask:additive-causal bias:false positions:none",
                  kBatch, kTokens, kHeads, kHeadWidth, kWidth),
      fmt::format("shapes=X:{} QKV:{} Q_K_V:{} split:{} scores_weights:{} mask:{} "
                  "head_outputs:{} merged:{} output:{}",
                  w.input_shape, w.qkv_shape, w.chunk_shape, w.split_shape,
                  w.weights_shape, w.mask_shape, w.head_output_shape, w.merged_shape,
                  w.output_shape),
      fmt::format("mapping=W_in:{} in_proj_weight:{} max|in_proj_weight^T-W_in|:{} "
                  "W_O:{} out_proj.weight:{} max|out_proj.weight^T-W_O|:{}",
                  w.w_in_shape, w.in_proj_weight_shape, decade(w.in_proj_gap),
                  w.w_o_shape, w.out_proj_weight_shape, decade(w.out_proj_gap)),
      fmt::format("masks=boolean:tril(ones(T,T)) then masked_fill(~mask,-inf) "
                  "additive:0 on/below the diagonal,-inf above, added to the scores "
                  "minus_inf_entries:{}",
                  w.mask_minus_inf),
      fmt::format("parameters=library:{} torch_bias_false:{} torch_bias_true:{} "
                  "formula:4*d_model^2",
                  w.parameters, w.torch_parameters, w.torch_parameters_with_bias),
      fmt::format("example_input=X[0,0,0:4]:{}", format_values(w.input_row)),
      fmt::format("example_output=output[0,0,0:4] torch:{} library:{}",
                  format_values(w.torch_output_row),
                  format_values(w.library_output_row)),
      fmt::format("example_weights=batch:0 head:0 query:4 torch:{}",
                  format_values(w.torch_weights_last)),
      fmt::format("example_softmax=rows:{} nearly_one_hot:{} (largest weight above "
                  "0.99; raw randn weights)",
                  w.rows, w.rows_one_hot),
  };
  for (const auto& c : e.cases) {
    std::string line = fmt::format(
        "parity_{}=B:{} T:{} h:{} d_head:{} rope:{} criterion:relative<=1e-12 "
        "manual[{}]",
        c.name.substr(5), c.batch, c.tokens, c.heads, c.head_width, c.rope,
        parity_list(c.manual));
    if (!c.module.empty())
      line += fmt::format(" nn.MultiheadAttention[{}]", parity_list(c.module));
    lines.push_back(std::move(line));
  }
  lines.push_back(
      fmt::format("float32_lesson_claim=max|manual-module|:{:.2e} claimed_below:{:.2e} "
                  "output_max:{} "
                  "float32_spacing_there:{:.2e}",
                  f.manual_vs_module, kLessonTolerance, format_number(f.output_max),
                  f.output_spacing));
  lines.push_back(fmt::format(
      "float32_criterion=|library-torch_float32|<={}*u*max|reference| u:2^-24 "
      "library_vs_float64_on_same_inputs:{}",
      kFloat32Factor, decade(f.exact_relative)));
  for (const auto& t : f.tensors)
    lines.push_back(
        fmt::format("float32_{}=max:{} manual:{:.2e} ({:.1f}u) module:{:.2e} ({:.1f}u)",
                    t.name, format_number(t.reference_max), t.manual_abs,
                    t.manual_factor, t.module_abs, t.module_factor));
  for (const auto& outcome : e.failures)
    lines.push_back(outcome.mistake == Mistake::none
                        ? fmt::format("failure_control=none output_relative:{} "
                                      "caught_by:{}",
                                      decade(outcome.relative), outcome.caught_by())
                        : failure_line("failure_", outcome));
  for (const auto& outcome : e.failures_t_eq_h)
    if (outcome.mistake == Mistake::missing_transpose ||
        outcome.mistake == Mistake::mask_batch_only)
      lines.push_back(failure_line("failure_t_eq_h_b1_", outcome));
  lines.push_back(fmt::format("exercise_1=d:{} W_in:{} W_O:{}", x.model_width,
                              x.w_in_shape, x.w_o_shape));
  lines.push_back(fmt::format(
      "exercise_2=view_strides:[{}] split_shape:{} split_strides:[{}] contiguous:{} "
      "after_contiguous:[{}]",
      fmt::join(x.view_strides, ","), x.split_shape, fmt::join(x.split_strides, ","),
      x.split_contiguous, fmt::join(x.contiguous_strides, ",")));
  lines.push_back(fmt::format("exercise_3=line:{} mask:{} scores:{} broadcast:{}",
                              x.mask_line, x.mask_shape, x.scores_shape,
                              x.mask_broadcast_shape));
  lines.push_back(fmt::format("exercise_4=combined:{} separate:{} formula:3*d^2",
                              x.combined_parameters, x.separate_parameters));
  return snippets::join_lines(lines);
}

}  // namespace ch40
