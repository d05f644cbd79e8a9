// Chapter 5
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <algorithm>
#include <ranges>

#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch05 {

using llmfs::text::describe;

namespace {

// A token as the reader sees it: BOS, EOS, \n, sp for a space, or the character.
std::string token_text(TokenId id) {
  if (id == kByteSpecials.bos) return "BOS";
  if (id == kByteSpecials.eos) return "EOS";
  if (id == '\n') return "\\n";
  if (id == ' ') return "sp";
  return std::string(1, static_cast<char>(id));
}

std::string config_key(WindowConfig c) {
  return fmt::format("T{}_S{}", c.context, c.stride);
}

std::string split_line(std::string_view corpus, const SplitCount& c) {
  return fmt::format(
      "{}_{}_{}=documents:{} tokens:{} examples:{} too_short:{} eos_targets:{} "
      "stream_windows:{} crossing:{}",
      corpus, describe(c.split), config_key(c.config), c.documents, c.tokens,
      c.examples, c.too_short, c.eos_targets, c.stream_windows, c.crossing);
}

// region: report-exercise-lines
// The exercises and the misconception read the training split's counts under the
// course tokenizer (the first split: train[c] is configuration kCorpusConfigs[c]).
void add_exercise_lines(const Evidence& e, std::vector<std::string>& lines) {
  const std::vector<SplitCount>& train = e.kjv_bpe.splits;
  lines.push_back(fmt::format("exercise_1=n:{} T:{} S=1..{}:[{}]", kExerciseLength,
                              kExerciseContext, e.exercise_strides.size(),
                              fmt::join(e.exercise_strides, ",")));
  auto shortest = e.kjv_bpe.documents;  // the training documents come first
  shortest.resize(train[0].documents);
  std::ranges::sort(shortest, {}, &DocumentCount::n);
  std::vector<std::string> three;
  for (std::size_t k = 0; k < std::min<std::size_t>(3, shortest.size()); ++k)
    three.push_back(fmt::format("{} ({})", shortest[k].title, shortest[k].n));
  lines.push_back(fmt::format(
      "exercise_2=T256 too_short bytes:{} course:{} shortest:[{}]",
      e.kjv_bytes.splits[2].too_short, train[2].too_short, fmt::join(three, ", ")));
  const SplitCount& half = train[1];
  lines.push_back(fmt::format(
      "exercise_3=T64_S32 per_document:{} one_stream:{} crossing_a_boundary:{}",
      half.examples, half.stream_windows, half.crossing));
  lines.push_back(fmt::format(
      "exercise_4=T64_S32 eos_targets:{} of {} documents "
      "(D/S = {:.2f}); T1_S1 eos_targets:{}",
      half.eos_targets, half.documents,
      static_cast<double>(half.documents) / half.config.stride, train[0].eos_targets));
  for (std::size_t k = 0; k < kCorpusConfigs.size(); ++k)
    lines.push_back(fmt::format(
        "misconception_{}=targets:{} of {} tokens ({:.2f}%) never_a_target:{}",
        config_key(train[k].config), train[k].examples, train[k].tokens,
        100.0 * train[k].examples / train[k].tokens,
        train[k].tokens - train[k].examples));
}
// endregion: report-exercise-lines

}  // namespace

// The prediction, the fixture's splits, the errors, the King James text (the fixture's
// documents are the trace's COUNT records).
std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format(
      "predict_sequence=n:{} ids:[{}] tokens:{}", e.predict_sequence.size(),
      fmt::join(e.predict_sequence, ","),
      fmt::join(e.predict_sequence | std::views::transform(token_text), " ")));
  for (std::size_t k = 0; k < e.predict_windows.size(); ++k) {
    const Window& w = e.predict_windows[k];
    lines.push_back(
        fmt::format("predict_window_{}=start:{} context:[{}] next:{} ({})", k, w.start,
                    fmt::join(w.context | std::views::transform(token_text), " "),
                    w.next, token_text(w.next)));
  }
  for (const SplitCount& c : e.fixture.splits)
    lines.push_back(split_line("fixture", c));
  for (const Outcome& o : e.errors)
    lines.push_back(fmt::format("error_{}={}", o.name, o.answer));
  for (const auto& [name, counts] :
       {std::pair{"kjv_bytes", &e.kjv_bytes}, std::pair{"kjv_bpe", &e.kjv_bpe}}) {
    lines.push_back(fmt::format("{}_tokenizer={}", name, counts->tokenizer));
    for (const SplitCount& c : counts->splits)
      lines.push_back(split_line(name, c));
  }
  add_exercise_lines(e, lines);
  return snippets::join_lines(lines);
}

// region: trace-records
// TOKEN per position of the prediction's sequence, WINDOW per example (its context
// span and its target position), and COUNT per fixture document and configuration.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  for (std::size_t k = 0; k < e.predict_sequence.size(); ++k)
    records.push_back(fmt::format("TOKEN|position={}|id={}|text={}", k,
                                  e.predict_sequence[k],
                                  token_text(e.predict_sequence[k])));
  for (std::size_t k = 0; k < e.predict_windows.size(); ++k) {
    const Window& w = e.predict_windows[k];
    records.push_back(
        fmt::format("WINDOW|example={}|first={}|last={}|target={}|next={}", k, w.start,
                    w.start + w.context.size() - 1, w.start + w.context.size(),
                    token_text(w.next)));
  }
  for (const DocumentCount& d : e.fixture.documents)
    for (std::size_t c = 0; c < kFixtureConfigs.size(); ++c)
      records.push_back(
          fmt::format("COUNT|title={}|split={}|n={}|context={}|stride={}|examples={}",
                      d.title, describe(d.split), d.n, kFixtureConfigs[c].context,
                      kFixtureConfigs[c].stride, d.examples[c]));
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch05
