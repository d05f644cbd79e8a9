// Chapter 38
// Chapter 38's report: one `key=...` line per fact, then the exercise answers.

#include <llmfs/report/format.hpp>

#include "evidence.hpp"

namespace ch38 {

using llmfs::report::format_number;

namespace {

// Row b of a grid, as [id,id,...], from position `begin` for `count` ids.
std::string ids(const llmfs::autograd::TokenGrid& g, std::size_t b, std::size_t begin,
                std::size_t count) {
  const auto row = g.ids.begin() + static_cast<std::ptrdiff_t>(b * g.time + begin);
  return fmt::format("[{}]",
                     fmt::join(row, row + static_cast<std::ptrdiff_t>(count), ","));
}

}  // namespace

std::string render_report(const Evidence& p) {
  const auto& f = p.fixture;
  std::vector<std::string> lines = {
      "chapter=38-cached-generation",
      "prediction=the Predict model repeats the token it just read, so [2] continues "
      "2,2,2 and [0] continues 0,0,0; the cache holds 1, 2, 3 positions after the "
      "three "
      "forward passes; it needs 2·N·B·T_max·d = 2·1·2·4·4 = 64 doubles, 512 bytes; a "
      "fourth new token does not fit T_max = 4 and is refused before any work"};
  for (std::size_t b = 0; b < f.tokens.batch; ++b)
    lines.push_back(fmt::format("fixture_row_{}=prompt:{} generated:{}", b,
                                ids(f.tokens, b, 0, 1), ids(f.tokens, b, 1, 3)));
  for (std::size_t s = 0; s < f.step_logits.size(); ++s)
    lines.push_back(fmt::format(
        "fixture_step_{}=cache_length:{} logits_row_0:{}", s, f.cache_lengths[s],
        llmfs::report::format_values(f.step_logits[s].values().subspan(0, 4))));
  lines.push_back(fmt::format("fixture_memory=derived_bytes:{} measured_bytes:{}",
                              p.fixture_derived_bytes, p.fixture_measured_bytes));
  lines.push_back(fmt::format("fixture_too_long={}", p.fixture_too_long));
  const auto& c = kDemoConfig;
  lines.push_back(
      fmt::format("demo=V:{} d_model:{} heads:{} layers:{} d_ff:{} T_max:{} "
                  "seed:{} B:{} prompt:{} new_tokens:{} chooser:sample τ:{} top_k:none "
                  "sampling_seed:{}",
                  c.vocab_size, c.model_width, c.heads, c.layers, c.hidden_width,
                  c.context_length, c.seed, kDemoBatch, kDemoPrompt, kDemoNewTokens,
                  format_number(kDemoTemperature), kDemoSamplingSeed));
  for (std::size_t b = 0; b < kDemoBatch; ++b)
    lines.push_back(fmt::format("demo_row_{}=prompt:{} first_generated:{}", b,
                                ids(p.prompt, b, 0, kDemoPrompt),
                                ids(p.cached.tokens, b, kDemoPrompt, 16)));
  lines.push_back(fmt::format(
      "demo_cached_vs_uncached=token_mismatches:{} of:{} max_logit_difference:{:.1e}",
      p.token_mismatches, p.cached.tokens.ids.size(), p.max_logit_difference));
  lines.push_back(
      fmt::format("demo_cached_vs_chapter_32_forward=max_logit_difference:{:.1e}",
                  p.max_against_full));
  lines.push_back(fmt::format("demo_cache_length=after_prefill:{} after_last_step:{}",
                              p.cached.cache_lengths.front(),
                              p.cached.cache_lengths.back()));
  lines.push_back(
      fmt::format("demo_positions_computed=cached:{} uncached:{} ratio:{}",
                  p.cached.positions_computed, p.uncached.positions_computed,
                  format_number(static_cast<double>(p.uncached.positions_computed) /
                                static_cast<double>(p.cached.positions_computed))));
  lines.push_back(fmt::format("demo_memory=derived_bytes:{} measured_bytes:{}",
                              p.derived_bytes, p.measured_bytes));
  for (const auto& [name, text] : p.errors)
    lines.push_back(fmt::format("error_{}={}", name, text));
  const auto& e = p.exercises;
  lines.push_back(fmt::format(
      "exercise_1=N:12 d:768 T_max:1024 B:1 bytes:{} MiB:{}", e.gpt_cache_bytes,
      format_number(static_cast<double>(e.gpt_cache_bytes) / 1048576.0)));
  lines.push_back(fmt::format("exercise_2=parameter_bytes:{} break_even_T_max:{}",
                              e.parameter_bytes, e.break_even_context));
  lines.push_back(fmt::format(
      "exercise_3=row_0_in_batch_vs_alone_max_difference:{:.1e}", e.batch_vs_alone));
  lines.push_back(
      fmt::format("exercise_4=prompt:1 new:100 positions_cached:{} "
                  "positions_uncached:{}",
                  e.cached_100, e.uncached_100));
  return snippets::join_lines(lines);
}

}  // namespace ch38
