// Chapter 34
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch34 {

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format(
      "fixture=tokens:{} bytes:{} cross_entropy:{:.6f} perplexity:{:.6f} "
      "bits_per_byte:{:.6f}",
      e.fixture.score.tokens, e.fixture.score.bytes, e.fixture.cross_entropy,
      e.fixture.perplexity, e.fixture.bits_per_byte));
  lines.push_back(fmt::format("fixture_second_scoring={}", e.second_scoring));
  lines.push_back(fmt::format("fixture_moved_from={}", e.moved_from));
  lines.push_back(fmt::format("fixture_sealed_after_refused_config={}",
                              e.sealed_after_refused_config));
  lines.push_back(fmt::format("selected=step:{} of:{} validation_loss:{:.6f}",
                              e.selected_step, e.last_step, e.selected_validation));
  lines.push_back(fmt::format("bigram_alpha=validation:[{:.6f}] alphas:[{}] kept:{}",
                              fmt::join(e.alpha_validation, ","),
                              fmt::join(kAlphas, ","), e.alpha));
  lines.push_back(fmt::format("test=documents:{} examples:{} positions:{} bytes:{}",
                              e.test_documents, e.test_examples,
                              e.table.empty() ? 0 : e.table[0].metrics.score.tokens,
                              e.test_bytes));
  lines.push_back(fmt::format(
      "ngram=chapter_23_demo steps:{} seed:{} subset_bpb:{:.6f} test_tokens:{}",
      ch23::kSteps, ch23::kSeed, e.ngram_subset_bpb,
      e.table.size() > 3 ? e.table[3].metrics.score.tokens : 0));
  for (const auto& row : e.table)
    lines.push_back(fmt::format(
        "final_{}=cross_entropy:{:.6f} perplexity:{:.6f} bits_per_byte:{:.6f}",
        row.name, row.metrics.cross_entropy, row.metrics.perplexity,
        row.metrics.bits_per_byte));
  lines.push_back(
      fmt::format("exercise_1=eos_as_one_byte_bits_per_byte:{:.6f}", e.exercises[0]));
  lines.push_back(
      fmt::format("exercise_2=bigram_over_uniform_bits:{:.6f}", e.exercises[1]));
  lines.push_back(
      fmt::format("exercise_3=decoder_bits_per_token:{:.6f}", e.exercises[2]));
  lines.push_back(
      fmt::format("exercise_4=ngram_bits_per_token:{:.6f} bytes_per_token:{:.6f}",
                  e.exercises[3], e.exercises[4]));
  return snippets::join_lines(lines);
}

std::string render_trace(const Evidence& e) {
  std::vector<std::string> lines;
  for (const auto& row : e.table)
    lines.push_back(fmt::format(
        "MODEL|name={}|tokens={}|cross_entropy={:.6f}|perplexity={:.6f}|bpb={:.6f}",
        row.name, row.metrics.score.tokens, row.metrics.cross_entropy,
        row.metrics.perplexity, row.metrics.bits_per_byte));
  lines.push_back(fmt::format("TEST|positions={}|bytes={}",
                              e.table.empty() ? 0 : e.table[0].metrics.score.tokens,
                              e.test_bytes));
  return snippets::join_lines(lines);
}

}  // namespace ch34
