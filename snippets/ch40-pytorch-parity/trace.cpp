// Chapter 40
// The appendix's trace: the shape trace of the worked example with both libraries'
// names for each step, where each failure mode strikes and how it is caught, and the
// parity results. docs/_ext/diagrams/ch40.py draws the diagram from these records only.
#include <algorithm>
#include <ranges>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <llmfs/report/record.hpp>

#include "evidence.hpp"

namespace ch40 {

namespace {

using llmfs::report::Record;

struct Step {
  const char* name;
  llmfs::tensor::Shape shape;
  std::string library;
  std::string torch;
  std::vector<Mistake> mistakes;
};

// Trace keys are lower case: "grad_W_in" -> "grad_w_in".
std::string lower(std::string text) {
  for (auto& c : text)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return text;
}

}  // namespace

std::string render_trace(const Evidence& e) {
  const auto& w = e.example;
  std::vector<std::string> lines;
  lines.push_back(Record("CONFIG")
                      .field("batch", kBatch)
                      .field("tokens", kTokens)
                      .field("heads", kHeads)
                      .field("head_width", kHeadWidth)
                      .field("model_width", kWidth)
                      .field("seed", 123)
                      .field("torch", w.torch_version)
                      .str());
  const std::vector<Step> steps{
      {"input", w.input_shape, "X", "X", {}},
      {"in-projection",
       w.qkv_shape,
       fmt::format("X·W_in, W_in {}", w.w_in_shape),
       fmt::format("F.linear(X, in_proj_weight), in_proj_weight {} = W_inᵀ",
                   w.in_proj_weight_shape),
       {}},
      {"chunk", w.chunk_shape, "three column blocks Q, K, V", "chunk(3, dim=-1)", {}},
      {"split",
       w.split_shape,
       "reshape [B,T,h,d_h], transpose(1,2): a new contiguous tensor",
       "view(B,T,h,d_head).transpose(1,2): a strided view",
       {Mistake::split_order, Mistake::missing_transpose}},
      {"scores",
       w.weights_shape,
       "Q·Kᵀ·(1/√d_h)",
       "Q @ K.transpose(-2,-1) / √d_head",
       {}},
      {"mask",
       w.weights_shape,
       "additive [T,T]: 0 or −∞, broadcast over B and h",
       "boolean [1,1,T,T] with masked_fill, or additive [T,T] attn_mask",
       {Mistake::mask_batch_only}},
      {"softmax", w.weights_shape, "row softmax over keys", "softmax(dim=-1)", {}},
      {"value-mixture", w.head_output_shape, "weights·V", "attn @ V", {}},
      {"merge",
       w.merged_shape,
       "transpose(1,2), reshape [B,T,d]",
       "transpose(1,2).contiguous().view(B,T,d)",
       {Mistake::missing_contiguity, Mistake::merge_order}},
      {"output-projection",
       w.output_shape,
       fmt::format("merged·W_O, W_O {}", w.w_o_shape),
       fmt::format("F.linear(merged, out_proj.weight), out_proj.weight {} = W_Oᵀ",
                   w.out_proj_weight_shape),
       {Mistake::output_bias}},
  };
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto mistakes = steps[i].mistakes | std::views::transform(mistake_name);
    lines.push_back(Record("STAGE")
                        .field("step", i + 1)
                        .field("name", steps[i].name)
                        .field("shape", steps[i].shape)
                        .field("library", steps[i].library)
                        .field("torch", steps[i].torch)
                        .field("mistakes", fmt::format("{}", fmt::join(mistakes, ",")))
                        .str());
  }
  for (const auto& f : e.failures) {
    if (f.mistake == Mistake::none) continue;
    Record r("FAILURE");
    // The step where the mistake is made: the one whose list names it.
    const auto step = std::ranges::find_if(steps, [&](const Step& s) {
      return std::ranges::count(s.mistakes, f.mistake);
    });
    r.field("mistake", mistake_name(f.mistake))
        .field("stage", step == steps.end() ? "none" : step->name);
    if (f.mistake == Mistake::output_bias) r.field("bias", f.bias);
    r.field("caught_by", f.caught_by());
    if (f.error) {
      r.field("library_error", *f.error);
    } else {
      r.field("output_relative", f.relative).field("parameters", f.parameters);
    }
    r.field("torch_error", f.torch_says.empty() ? std::string("none") : f.torch_says);
    if (f.mistake == Mistake::missing_contiguity && !f.caught())
      r.field("note",
              "cannot be written here: transpose returns a new contiguous tensor");
    lines.push_back(r.str());
  }
  for (const auto& c : e.cases) {
    for (const auto* against : {&c.manual, &c.module}) {
      if (against->empty()) continue;
      Record r("PARITY");
      r.field("case", c.name.substr(5))
          .field("against", against == &c.manual ? "manual" : "nn.MultiheadAttention")
          .field("shape", fmt::format("B={} T={} h={} d_head={}", c.batch, c.tokens,
                                      c.heads, c.head_width))
          .field("rope", c.rope);
      for (const auto& t : *against)
        r.field(lower(t.name), decade(t.relative));
      lines.push_back(r.str());
    }
  }
  const auto& f = e.float32;
  Record r("FLOAT32");
  r.field("lesson_claim", fmt::format("{:.2e}", kLessonTolerance))
      .field("measured", fmt::format("{:.2e}", f.manual_vs_module))
      .field("output_max", f.output_max)
      .field("criterion_factor", static_cast<int>(kFloat32Factor));
  for (const auto& t : f.tensors)
    r.field("factor." + lower(t.name),
            fmt::format("{:.1f}", std::max(t.manual_factor, t.module_factor)));
  lines.push_back(r.str());
  return snippets::join_lines(lines);
}

}  // namespace ch40
