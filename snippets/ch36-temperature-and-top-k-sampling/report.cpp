// Chapter 36
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <cmath>

#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch36 {

namespace {

// `[a,b]` with 6 decimals.
std::string ch36_list(const std::vector<double>& values) {
  return fmt::format("[{:.6f}]", fmt::join(values, ","));
}

// The kept flags as the ids they keep, e.g. `[0,1]`.
std::string ch36_kept(const std::vector<bool>& kept) {
  std::vector<std::size_t> ids;
  for (std::size_t i = 0; i < kept.size(); ++i)
    if (kept[i]) ids.push_back(i);
  return fmt::format("[{}]", fmt::join(ids, ","));
}

// The Predict's stages and draw, the sweeps, greedy and the frequencies.
void add_fixture_lines(const Evidence& e, std::vector<std::string>& lines) {
  const Draw& d = e.draw;
  lines.push_back(fmt::format("fixture_tempered={}", ch36_list(d.stages.tempered)));
  lines.push_back(fmt::format("fixture_kept={}", ch36_kept(d.stages.kept)));
  lines.push_back(
      fmt::format("fixture_probabilities={}", ch36_list(d.stages.probabilities)));
  lines.push_back(fmt::format("fixture_cdf={}", ch36_list(d.cdf)));
  lines.push_back(fmt::format("fixture_draw=u:{:.6f} token:{} uncut_token:{}", d.u,
                              d.token, d.uncut_token));
  for (const Row& r : e.temperatures)
    lines.push_back(fmt::format("tau_{}={}", r.setting, ch36_list(r.probabilities)));
  for (const Row& r : e.cuts)
    lines.push_back(fmt::format("top_k_{}={}", r.setting, ch36_list(r.probabilities)));
  lines.push_back(
      fmt::format("top_k_beyond_vocab_equals_no_cut={}", e.k_six_equals_no_cut));
  lines.push_back(fmt::format("greedy=token:{} generator_untouched:{}", e.greedy,
                              e.greedy_left_rng));
  const Frequencies& f = e.frequencies;
  lines.push_back(fmt::format("frequencies=draws:{} counts:[{}] expected:{}", kDraws,
                              fmt::join(f.counts, ","), ch36_list(f.expected)));
  lines.push_back(fmt::format("frequencies_z={}", ch36_list(f.z)));
}

}  // namespace

// Then the runs, the decoder, the refusals, the misconception and the exercises.
std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  add_fixture_lines(e, lines);
  for (std::size_t i = 0; i < e.runs.size(); ++i)
    lines.push_back(fmt::format("run_{}=seed:{} tokens:[{}]", i,
                                i < 2 ? kSeed : kSeed + 1, fmt::join(e.runs[i], ",")));
  for (const Continuation& c : e.continuations)
    lines.push_back(fmt::format("decoder_{}=prompt:[{}] generated:[{}]", c.setting,
                                fmt::join(kPrompt, ","), fmt::join(c.tokens, ",")));
  for (const auto& [name, text] : e.errors)
    lines.push_back(fmt::format("error_{}={}", name, text));
  // fabs: the NaN's sign bit is the platform's choice, not a fact of the chapter.
  std::vector<double> naive;
  for (double v : e.tie.naive_zero)
    naive.push_back(std::fabs(v));
  lines.push_back(fmt::format("misconception=tau_0.001:{} greedy:{} naive_tau_0:{}",
                              ch36_list(e.tie.tiny), ch36_list(e.tie.greedy),
                              ch36_list(naive)));
  lines.push_back(fmt::format("misconception_tau_0={}", e.tie.zero_error));
  const Exercises& x = e.exercises;
  lines.push_back(
      fmt::format("exercise_1=tau:1 k:3 probabilities:{}", ch36_list(x.tau_one_top3)));
  lines.push_back(
      fmt::format("exercise_2=half_temperature:{:.6f}", x.half_temperature));
  lines.push_back(fmt::format("exercise_3=nucleus_0.9_tokens:{}", x.nucleus_size));
  return snippets::join_lines(lines);
}

// region: trace-records
// CONFIG (the Predict's settings and draw), TOKEN per fixture token (every stage's
// value) and SWEEP per temperature. The diagram reads these records and recomputes
// nothing.
std::string render_trace(const Evidence& e) {
  const Draw& d = e.draw;
  std::vector<std::string> records{
      fmt::format("CONFIG|temperature={:.6f}|top_k={}|seed={}|u={:.6f}|token={}",
                  kConfig.temperature, kConfig.top_k.value_or(0), kSeed, d.u, d.token)};
  for (std::size_t i = 0; i < kLogits.size(); ++i)
    records.push_back(
        fmt::format("TOKEN|id={}|logit={:.6f}|tempered={:.6f}|kept={}|probability={:."
                    "6f}|cdf={:.6f}",
                    i, kLogits[i], d.stages.tempered[i], d.stages.kept[i] ? 1 : 0,
                    d.stages.probabilities[i], d.cdf[i]));
  for (const Row& r : e.temperatures)
    records.push_back(fmt::format("SWEEP|tau={}|probabilities={}", r.setting,
                                  ch36_list(r.probabilities)));
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch36
