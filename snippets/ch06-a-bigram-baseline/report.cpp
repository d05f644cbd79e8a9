// Chapter 6
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch06 {

namespace {

// `a:0 b:1 n:1 BOS:0 EOS:0` for a row of counts or probabilities.
template <class T>
std::string named_row(const std::vector<T>& values, std::string_view format) {
  std::vector<std::string> cells;
  for (std::size_t next = 0; next < values.size(); ++next)
    cells.push_back(fmt::format("{}:{}", token_name(static_cast<TokenId>(next)),
                                fmt::format(fmt::runtime(format), values[next])));
  return fmt::format("{}", fmt::join(cells, " "));
}

// A sampled text on one line: a newline as `\n`, and every byte that is not printable
// ASCII (smoothing lets a sample wander into bytes the corpus never has) as `\xHH`.
std::string one_line(std::string_view text) {
  std::string line;
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n')
      line += "\\n";
    else if (byte < 0x20 || byte >= 0x7F || c == '\\')
      line += fmt::format("\\x{:02X}", byte);
    else
      line += c;
  }
  return line;
}

}  // namespace

// The fixture: its tokens, the count table and the smoothed table row by row, the
// validation document's predictions, the samples and the refusals; then the corpus
// under each tokenizer, and the exercise answers.
std::string render_report(const Evidence& e) {
  const Fixture& f = e.fixture;
  std::vector<std::string> lines;
  for (std::size_t d = 0; d < f.train.size(); ++d)
    lines.push_back(fmt::format("train_{}=text:{} tokens:[{}]", d + 1, kTrain[d],
                                fmt::join(f.train[d], ",")));
  lines.push_back(fmt::format("pairs=counted:{} distinct:{} cells:{}", f.pairs,
                              f.distinct_pairs, kFixtureVocab * kFixtureVocab));
  for (const Row& r : f.rows)
    lines.push_back(fmt::format("count_{}={} total:{}", token_name(r.prev),
                                named_row(r.counts, "{}"), r.total));
  for (const Row& r : f.rows)
    lines.push_back(fmt::format("prob_{}={}", token_name(r.prev),
                                named_row(r.probabilities, "{:.6f}")));
  for (const PairScore& s : f.scored)
    lines.push_back(fmt::format("validation_{}_{}=({} + {}) / ({} + {}*{}) = {:.6f}",
                                token_name(s.prev), token_name(s.next), s.count,
                                kFixtureAlpha, s.total, kFixtureAlpha, kFixtureVocab,
                                s.probability));
  lines.push_back(fmt::format("validation_likelihood={:.10f} = 1/{:.6f}", f.likelihood,
                              1.0 / f.likelihood));
  for (std::size_t i = 0; i < f.samples.size(); ++i)
    lines.push_back(fmt::format("sample_{}={}", i + 1, f.samples[i]));
  for (const Refusal& r : f.refusals)
    lines.push_back(fmt::format("refuse_{}={}", r.name, r.text));
  for (const CorpusBigram& c : e.corpus) {
    const double cells = static_cast<double>(c.vocab_size) * c.vocab_size;
    lines.push_back(
        fmt::format("corpus_{}=V:{} documents:{} pairs:{} distinct:{} filled:{:.4f}% "
                    "sparse_bytes:{} dense_bytes:{}",
                    c.name, c.vocab_size, c.documents, c.pairs, c.distinct_pairs,
                    100.0 * static_cast<double>(c.distinct_pairs) / cells,
                    c.stored_bytes, c.dense_bytes));
    for (std::size_t i = 0; i < c.samples.size(); ++i)
      lines.push_back(
          fmt::format("corpus_{}_sample_{}={}", c.name, i + 1, one_line(c.samples[i])));
  }
  const Exercises& x = e.exercises;
  lines.push_back(
      fmt::format("exercise_2=alpha:{} p_n_after_a:{:.6f} p_eos_after_n:{:.6f}",
                  kExerciseAlpha, x.p_n_after_a, x.p_eos_after_n));
  lines.push_back(fmt::format("exercise_3=V:{} cells:{} dense_bytes:{}", kCourseVocab,
                              x.dense_cells, x.dense_bytes));
  lines.push_back(
      fmt::format("exercise_4=unseen_mass_after_a:{:.6f}", x.unseen_mass_after_a));
  return snippets::join_lines(lines);
}

// region: trace-records
// ROW per conditioning token (its total and denominator), CELL per (prev, next) with
// the count and the smoothed probability, PAIR per validation prediction. The diagram
// reads these records and recomputes nothing.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  const Fixture& f = e.fixture;
  records.push_back(fmt::format("VOCAB|size={}|alpha={:.6f}|tokens=[{}]", kFixtureVocab,
                                kFixtureAlpha, "a,b,n,BOS,EOS"));
  for (const Row& r : f.rows) {
    records.push_back(fmt::format("ROW|prev={}|total={}|denominator={:.6f}",
                                  token_name(r.prev), r.total,
                                  r.total + kFixtureAlpha * kFixtureVocab));
    for (std::size_t next = 0; next < r.counts.size(); ++next)
      records.push_back(fmt::format("CELL|prev={}|next={}|count={}|probability={:.6f}",
                                    token_name(r.prev),
                                    token_name(static_cast<TokenId>(next)),
                                    r.counts[next], r.probabilities[next]));
  }
  for (const PairScore& s : f.scored)
    records.push_back(fmt::format("PAIR|prev={}|next={}|probability={:.6f}",
                                  token_name(s.prev), token_name(s.next),
                                  s.probability));
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch06
