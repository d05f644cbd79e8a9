// Chapter 41
// Chapter 41's trace: the Predict row's blocks and running statistics, the tiles of the
// Predict head, and the tape's bytes at growing T.

#include <llmfs/report/format.hpp>

#include "evidence.hpp"

namespace ch41 {

using llmfs::report::format_number;

std::string render_trace(const Evidence& p) {
  std::vector<std::string> out = {fmt::format(
      "ROW|scores={}|block={}",
      llmfs::report::format_values(std::vector<double>(kScores.begin(), kScores.end())),
      kBlock)};
  for (std::size_t b = 0; b < p.steps.size(); ++b) {
    const auto& s = p.steps[b];
    out.push_back(fmt::format(
        "BLOCK|index={}|first_key={}|keys={}|block_max={}|rescale={}|m={}|l={}", b,
        s.first_key, s.keys, format_number(s.block_max), format_number(s.rescale),
        format_number(s.after.max), format_number(s.after.sum)));
  }
  out.push_back(fmt::format("RESULT|log_sum_exp={}|one_pass_l={}",
                            format_number(p.log_sum_exp.values()[4]),
                            format_number(p.direct_sum)));
  for (const auto& t : p.tiles)
    out.push_back(fmt::format("TILE|query_block={}|key_block={}|kind={}", t.query_block,
                              t.key_block, t.kind));
  for (const auto& t : p.tape)
    out.push_back(fmt::format("TAPE|tokens={}|stored_bytes={}|streaming_bytes={}",
                              t.tokens, t.stored_bytes, t.streaming_bytes));
  return snippets::join_lines(out);
}

}  // namespace ch41
