// Chapter 17
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <algorithm>

#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch17 {

namespace {

// `[a,b]` with 6 decimals.
std::string ch17_list(const std::vector<double>& values) {
  return fmt::format("[{:.6f}]", fmt::join(values, ","));
}

// `[a,b]` with 4 significant digits (variances span twelve orders of magnitude).
std::string ch17_sci(const std::vector<double>& values) {
  return fmt::format("[{:.4g}]", fmt::join(values, ","));
}

}  // namespace

// The generator, the first draws and each scheme's sample statistics.
void add_draw_lines(const Evidence& e, std::vector<std::string>& lines) {
  const FirstDraws& f = e.first;
  lines.push_back(
      fmt::format("splitmix64_seed_{}=[{}]", kSeed, fmt::join(f.outputs, ",")));
  lines.push_back(fmt::format("splitmix64_matches_published={}",
                              std::ranges::equal(f.outputs, kPublished)));
  lines.push_back(fmt::format("first_units={}", ch17_list(f.units)));
  lines.push_back(fmt::format("lecun_uniform_3x2={}", ch17_list(f.lecun_uniform)));
  lines.push_back(fmt::format("first_standard_normal={:.6f}", f.first_normal));
  lines.push_back(fmt::format("lecun_normal_3x2={}", ch17_list(f.lecun_normal)));
  for (const DrawStats& d : e.draws) {
    lines.push_back(
        fmt::format("draws_{}=std:{:.6f} variance:{:.6f} sample_mean:{:.6f} "
                    "sample_variance:{:.6f}",
                    d.name, d.std_dev, d.std_dev * d.std_dev, d.mean, d.variance));
  }
}

// The stack, the names, the gradient check and the refusals.
void add_model_lines(const Evidence& e, std::vector<std::string>& lines) {
  for (const StackRun& r : e.stack) {
    lines.push_back(fmt::format("stack_{}=per_layer:{:.6f} variances:{}", r.scale,
                                r.per_layer, ch17_sci(r.variances)));
  }
  const Naming& n = e.naming;
  lines.push_back(fmt::format("names_in_order=[{}]", fmt::join(n.names, ",")));
  lines.push_back(fmt::format("names_sorted_as_text=[{}]", fmt::join(n.sorted, ",")));
  lines.push_back(fmt::format("named_scalars={} rebuilt_from_seed_identical:{}",
                              n.scalars, n.rebuilt_identical));
  lines.push_back(fmt::format("two_layer_check=check_max_abs_error:{:.3e} passed:{}",
                              e.check.max_abs_error(), e.check.passed()));
  for (const Refusal& r : e.refusals) {
    lines.push_back(
        fmt::format("error_{}={} | rng_untouched:{}", r.name, r.text, r.rng_untouched));
  }
}

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  add_draw_lines(e, lines);
  add_model_lines(e, lines);
  const Exercises& x = e.exercises;
  lines.push_back(
      fmt::format("exercise_1=xavier_300_100 uniform_bound:{:.6f} "
                  "normal_std:{:.6f}",
                  x.xavier_bound, x.xavier_std));
  lines.push_back(fmt::format("exercise_2=pytorch_default_factor_per_layer:{:.6f}",
                              x.default_factor));
  lines.push_back(
      fmt::format("exercise_3=state_after_normal_3x4:{} predicted:{} equal:{}", x.state,
                  x.predicted, x.state == x.predicted));
  return snippets::join_lines(lines);
}

// region: trace-records
// STACK per scale (its name and predicted factor per layer) and LAYER per layer of
// each run (the measured variance and the prediction input · factorᵏ). The diagram
// reads these records and recomputes nothing.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  records.push_back(
      fmt::format("SETUP|rows={}|width={}|depth={}", kRows, kWidth, kDepth));
  for (const StackRun& r : e.stack) {
    records.push_back(
        fmt::format("STACK|scale={}|per_layer={:.6f}", r.scale, r.per_layer));
    double predicted = r.variances.front();
    for (std::size_t k = 0; k < r.variances.size(); ++k) {
      records.push_back(
          fmt::format("LAYER|scale={}|layer={}|variance={:.6e}|predicted={:.6e}",
                      r.scale, k, r.variances[k], predicted));
      predicted *= r.per_layer;
    }
  }
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch17
