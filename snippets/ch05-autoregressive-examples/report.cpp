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
      "{}_{}_{}=documents:{} tokens:{} formula:{} enumerated:{} equal:{} too_short:{} "
      "eos_targets:{} stream_windows:{} crossing:{}",
      corpus, describe(c.split), config_key(c.config), c.documents, c.tokens,
      c.by_formula, c.enumerated, c.by_formula == c.enumerated ? "yes" : "no",
      c.too_short, c.eos_targets, c.stream_windows, c.crossing);
}

}  // namespace

void add_exercise_lines(const Evidence& e, std::vector<std::string>& lines);

// region: report-lines
// The prediction, the fixture's documents and splits, the errors, the King James text.
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
  lines.push_back(fmt::format("predict_count=formula:{} enumerated:{}",
                              e.predict_formula, e.predict_windows.size()));
  for (std::size_t d = 0; d < e.fixture_documents.size(); ++d) {
    const DocumentCount& doc = e.fixture_documents[d];
    std::vector<std::string> counts;
    for (std::size_t c = 0; c < kFixtureConfigs.size(); ++c)
      counts.push_back(fmt::format("{}:{}/{}", config_key(kFixtureConfigs[c]),
                                   doc.by_formula[c], doc.enumerated[c]));
    lines.push_back(
        fmt::format("fixture_doc_{}=title:{} split:{} n:{} formula/enumerated {}", d,
                    doc.title, describe(doc.split), doc.n, fmt::join(counts, " ")));
  }
  for (const SplitCount& c : e.fixture_splits)
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
// endregion: report-lines

// region: report-exercise-lines
// The exercises and the misconception read the training split's counts under the
// course tokenizer.
void add_exercise_lines(const Evidence& e, std::vector<std::string>& lines) {
  const auto train = [&](WindowConfig config) {
    for (const SplitCount& c : e.kjv_bpe.splits)
      if (c.split == Split::train && c.config.context == config.context &&
          c.config.stride == config.stride)
        return c;
    return SplitCount{};
  };
  lines.push_back(fmt::format("exercise_1=n:{} T:{} S=1..{}:[{}]", kExerciseLength,
                              kExerciseContext, e.exercise_strides.size(),
                              fmt::join(e.exercise_strides, ",")));
  auto shortest = e.kjv_bpe.too_short;
  std::ranges::sort(shortest, {}, [](const auto& d) { return d.second; });
  std::vector<std::string> three;
  for (std::size_t k = 0; k < std::min<std::size_t>(3, shortest.size()); ++k)
    three.push_back(fmt::format("{} ({})", shortest[k].first, shortest[k].second));
  lines.push_back(fmt::format(
      "exercise_2=T256 too_short bytes:{} course:{} shortest:[{}]",
      e.kjv_bytes.too_short.size(), shortest.size(), fmt::join(three, ", ")));
  const SplitCount half = train(kCorpusConfigs[1]);
  lines.push_back(fmt::format(
      "exercise_3=T64_S32 per_document:{} one_stream:{} crossing_a_boundary:{}",
      half.enumerated, half.stream_windows, half.crossing));
  lines.push_back(
      fmt::format("exercise_4=T64_S32 eos_targets:{} of {} documents "
                  "(D/S = {:.2f}); T1_S1 eos_targets:{}",
                  half.eos_targets, half.documents,
                  static_cast<double>(half.documents) / half.config.stride,
                  train(kCorpusConfigs[0]).eos_targets));
  for (WindowConfig config : kCorpusConfigs) {
    const SplitCount c = train(config);
    lines.push_back(fmt::format(
        "misconception_{}=targets:{} of {} tokens ({:.2f}%) never_a_target:{}",
        config_key(config), c.enumerated, c.tokens, 100.0 * c.enumerated / c.tokens,
        c.tokens - c.enumerated));
  }
}
// endregion: report-exercise-lines

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
  for (const DocumentCount& d : e.fixture_documents)
    for (std::size_t c = 0; c < kFixtureConfigs.size(); ++c)
      records.push_back(fmt::format(
          "COUNT|title={}|split={}|n={}|context={}|stride={}|formula={}|enumerated={}",
          d.title, describe(d.split), d.n, kFixtureConfigs[c].context,
          kFixtureConfigs[c].stride, d.by_formula[c], d.enumerated[c]));
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch05
