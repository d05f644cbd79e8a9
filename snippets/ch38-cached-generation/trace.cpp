// Chapter 38
// Chapter 38's trace: the Predict model's generation step by step (the cache's length,
// the token chosen), and the demo's work per step with and without the cache.

#include <llmfs/report/format.hpp>

#include "evidence.hpp"

namespace ch38 {

// region: trace-records
std::string render_trace(const Evidence& p) {
  const auto& f = p.fixture;
  std::vector<std::string> out = {fmt::format("PROMPT|rows={}|length={}|capacity={}",
                                              f.tokens.batch, f.prompt_length,
                                              kFixtureConfig.context_length)};
  for (std::size_t s = 0; s < f.step_logits.size(); ++s)
    for (std::size_t b = 0; b < f.tokens.batch; ++b)
      out.push_back(fmt::format("TOKEN|step={}|row={}|fed={}|cache_length={}|chosen={}",
                                s, b, f.tokens.ids[b * f.tokens.time + s],
                                f.cache_lengths[s],
                                f.tokens.ids[b * f.tokens.time + s + 1]));
  // Positions through the model per step: B new ones cached, the whole sequence
  // uncached
  const std::size_t batch = p.prompt.batch;
  for (std::size_t s = 0; s < kDemoNewTokens; s += 40) {
    const std::size_t cached = batch * (s == 0 ? kDemoPrompt : 1);
    out.push_back(fmt::format(
        "WORK|step={}|sequence={}|cache_length={}|cached={}|uncached={}", s,
        kDemoPrompt + s, p.cached.cache_lengths[s], cached, batch * (kDemoPrompt + s)));
  }
  out.push_back(fmt::format("TOTAL|cached={}|uncached={}", p.cached.positions_computed,
                            p.uncached.positions_computed));
  out.push_back(fmt::format("MEMORY|derived_bytes={}|measured_bytes={}",
                            p.derived_bytes, p.measured_bytes));
  return snippets::join_lines(out);
}
// endregion: trace-records

}  // namespace ch38
