// Chapter 31
// Chapter 31's trace: the block's stages on X and on 10·X, one record per stage, each
// with token 0's row and every token's RMS; and the zero-branch identity check.

#include <cmath>

#include <llmfs/report/format.hpp>

#include "evidence.hpp"

namespace ch31 {

namespace {

// √(mean(row²)) of every token row.
std::string row_rms(const Tensor& t) {
  std::vector<double> rms;
  for (std::size_t token = 0; token < kTokens; ++token) {
    double sum = 0.0;
    for (double v : llmfs::report::row(t, token, kModelWidth))
      sum += v * v;
    rms.push_back(std::sqrt(sum / static_cast<double>(kModelWidth)));
  }
  return llmfs::report::format_values(rms);
}

void stage_records(std::vector<std::string>& out, const char* input, const Stages& s) {
  const std::pair<const char*, const Tensor*> stages[] = {
      {"input", &s.input},
      {"attention_input", &s.attention_input},
      {"attention_output", &s.attention_output},
      {"hidden", &s.hidden},
      {"ffn_input", &s.ffn_input},
      {"ffn_output", &s.ffn_output},
      {"output", &s.output}};
  for (const auto& [name, value] : stages) {
    const bool stream = std::string_view(name) == "input" ||
                        std::string_view(name) == "hidden" ||
                        std::string_view(name) == "output";
    out.push_back(fmt::format(
        "STAGE|input={}|stage={}|path={}|shape={}|token_0={}|rms={}", input, name,
        stream ? "stream" : "branch", value->shape(),
        llmfs::report::format_values(llmfs::report::row(*value, 0, kModelWidth)),
        row_rms(*value)));
  }
}

}  // namespace

std::string render_trace(const Evidence& p) {
  std::vector<std::string> out = {fmt::format(
      "CONFIG|batch={}|tokens={}|model_width={}|heads={}|hidden_width={}|parameters={}",
      kBatch, kTokens, kModelWidth, kHeads, kHiddenWidth, p.parameter_count)};
  stage_records(out, "X", p.fixture);
  stage_records(out, "10X", p.scaled);
  out.push_back(fmt::format("IDENTITY|branches=zero|mismatches={}|post_norm_token_0={}",
                            p.identity_mismatches,
                            llmfs::report::format_values(
                                llmfs::report::row(p.post_norm_zero, 0, kModelWidth))));
  return snippets::join_lines(out);
}

}  // namespace ch31
