// Chapter 37
// Chapter 37's trace: the Predict cache's slots after every step (which are new, which
// were filled before, which are empty) and what each slot holds.

#include <llmfs/report/format.hpp>

#include "evidence.hpp"

namespace ch37 {

// region: trace-records
std::string render_trace(const Evidence& p) {
  std::vector<std::string> out = {fmt::format("CACHE|capacity={}|heads=1|head_width={}",
                                              kFixtureCapacity, kFixtureWidth)};
  for (std::size_t i = 0; i < p.fixture_steps.size(); ++i) {
    const auto& s = p.fixture_steps[i];
    out.push_back(
        fmt::format("STEP|step={}|kind={}|first_position={}|tokens={}|length={}"
                    "|max_difference={:.1e}",
                    i, i == 0 ? "prefill" : "decode", s.first_position, s.tokens,
                    s.length_after, s.max_difference));
    // Every slot after this step: new in this step, filled before, or still empty
    for (std::size_t slot = 0; slot < kFixtureCapacity; ++slot) {
      const char* state = slot >= s.length_after    ? "empty"
                          : slot < s.first_position ? "kept"
                                                    : "new";
      out.push_back(fmt::format("SLOT|step={}|slot={}|state={}", i, slot, state));
    }
  }
  out.push_back(fmt::format("REFUSED|step={}|length={}", p.fixture_steps.size(),
                            p.fixture_length_after_refusal));
  for (const auto& s : p.fixture_slots)
    out.push_back(fmt::format("CONTENT|slot={}|position={}|key={}|value={}", s.position,
                              s.position, llmfs::report::format_values(s.key),
                              llmfs::report::format_values(s.value)));
  return snippets::join_lines(out);
}
// endregion: trace-records

}  // namespace ch37
