// Chapter 18
#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch18 {

namespace {

template <class Values>
std::string ch18_list(const Values& values) {
  return fmt::format("[{:.6f}]", fmt::join(values, ","));
}

// The report and the trace. A token is named by its byte, BOS, EOS or ␠ (space).
std::string token_name(TokenId id, const Pass& p) {
  if (id == p.bos) return "BOS";
  if (id == p.eos) return "EOS";
  if (id == ' ') return "␠";
  return std::string(1, static_cast<char>(id));
}

}  // namespace

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  const Pass& p = e.pass;
  lines.push_back(
      fmt::format("tokenizer=vocab:{} bos:{} eos:{}", p.vocab, p.bos, p.eos));
  lines.push_back(fmt::format("sequence=[{}]", fmt::join(p.sequence, ",")));
  lines.push_back(fmt::format("context=[{}]", fmt::join(p.context, ",")));
  lines.push_back(fmt::format("hidden={}", ch18_list(p.hidden)));
  for (const RowGradient& r : p.rows) {
    lines.push_back(fmt::format("row_{}={} reads:{} gradient:{}", r.row,
                                token_name(r.row, p), r.reads, ch18_list(r.gradient)));
  }
  lines.push_back(fmt::format("zero_gradient_rows={}_of_{}", p.zero_rows, p.vocab));
  lines.push_back(
      fmt::format("table_check=coordinates:{} check_max_abs_error:{:.3e} passed:{}",
                  p.check.coordinates(), p.check.max_abs_error(), p.check.passed()));
  for (const ScaleRun& s : e.scales) {
    lines.push_back(fmt::format(
        "scale_{}=std:{:.6f} hidden_variance:{:.6f} tied_logit_variance:{:.6f}", s.rule,
        s.std_dev, s.hidden_variance, s.tied_logit_variance));
  }
  lines.push_back(fmt::format("cost=V:{} d_model:{} parameters:{} bytes_float64:{}",
                              kVocab, kModelWidth, e.parameters, 8 * e.parameters));
  lines.push_back(fmt::format("rows_4094_4095_bos_eos=norm_squared:{}",
                              ch18_list(e.special_norms)));
  for (const auto& [name, text] : e.errors)
    lines.push_back(fmt::format("error_{}={}", name, text));
  lines.push_back(fmt::format("refused_create_rng_untouched={}", e.rng_untouched));
  const Exercises& x = e.exercises;
  lines.push_back(fmt::format("exercise_1=parameters:{}", x.large_parameters));
  lines.push_back(fmt::format("exercise_2=gradient_h:{}", ch18_list(x.triple)));
  lines.push_back(fmt::format("exercise_3=rows_with_gradient:{}", x.rows_reached));
  return snippets::join_lines(lines);
}

// region: trace-records
// POS per context position (its id, token, the row it read and its upstream gradient)
// and ROW per table row the backward pass reached, plus EOS (how many positions read
// it, and its gradient). The diagram recomputes nothing.
std::string render_trace(const Evidence& e) {
  const Pass& p = e.pass;
  std::vector<std::string> records;
  records.push_back(fmt::format("TABLE|vocab={}|width={}|bos={}|eos={}", p.vocab,
                                kWidth, p.bos, p.eos));
  for (std::size_t t = 0; t < p.context.size(); ++t) {
    records.push_back(fmt::format(
        "POS|t={}|id={}|token={}|hidden={}|upstream={}", t, p.context[t],
        token_name(p.context[t], p),
        ch18_list(std::vector<double>{p.hidden[2 * t], p.hidden[2 * t + 1]}),
        ch18_list(std::vector<double>{static_cast<double>(t), 1.0})));
  }
  for (const RowGradient& r : p.rows) {
    records.push_back(fmt::format("ROW|row={}|token={}|reads={}|gradient={}", r.row,
                                  token_name(r.row, p), r.reads,
                                  ch18_list(r.gradient)));
  }
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch18
