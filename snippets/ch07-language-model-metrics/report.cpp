// Chapter 7
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch07 {

namespace {

std::string metrics_text(const Metrics& m) {
  return fmt::format(
      "tokens:{} bytes:{} total_nats:{:.6f} cross_entropy:{:.6f} perplexity:{:.6f} "
      "bits_per_byte:{:.6f}",
      m.score.tokens, m.score.bytes, m.score.total_nats, m.cross_entropy, m.perplexity,
      m.bits_per_byte);
}

}  // namespace

// The fixture: each prediction under each tokenizer, the three metrics beside the
// uniform model's, and the refusals; then the King James validation partition under
// each tokenizer, and the exercises.
std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  const auto model_lines = [&](std::string_view prefix, const Evaluation& ev) {
    lines.push_back(fmt::format("{}_bigram=V:{} {}", prefix, ev.vocab_size,
                                metrics_text(ev.metrics)));
    lines.push_back(fmt::format("{}_uniform=V:{} {}", prefix, ev.vocab_size,
                                metrics_text(ev.uniform)));
  };
  for (const Evaluation& ev : e.fixture) {
    for (std::size_t i = 0; i < ev.predictions.size(); ++i) {
      const Prediction& p = ev.predictions[i];
      lines.push_back(fmt::format("{}_token_{}={}->{} bytes:{} p:{:.6f} nats:{:.6f}",
                                  ev.name, i + 1, p.prev, p.next, p.bytes,
                                  p.probability, p.nats));
    }
    model_lines(ev.name, ev);
  }
  for (const Refusal& r : e.refusals)
    lines.push_back(fmt::format("refuse_{}={}", r.name, r.text));
  for (const Evaluation& ev : e.corpus) {
    model_lines("corpus_" + ev.name, ev);
    lines.push_back(fmt::format(
        "corpus_{}_bytes_per_token={:.6f}", ev.name,
        static_cast<double>(ev.metrics.score.bytes) / ev.metrics.score.tokens));
    for (std::size_t i = 0; i < ev.alphas.size(); ++i)
      lines.push_back(
          fmt::format("corpus_{}_alpha_{}=cross_entropy:{:.6f} perplexity:{:.6f} "
                      "bits_per_byte:{:.6f}",
                      ev.name, kAlphas[i], ev.alphas[i].cross_entropy,
                      ev.alphas[i].perplexity, ev.alphas[i].bits_per_byte));
  }
  const Exercises& x = e.exercises;
  lines.push_back(fmt::format("exercise_2=unsmoothed:[{:.6f}] score:{}",
                              fmt::join(x.unsmoothed, ", "), x.unsmoothed_score));
  lines.push_back(fmt::format("exercise_3=uniform_bits_per_byte_token:{:.6f}",
                              x.uniform_bytes_bits));
  lines.push_back(fmt::format("exercise_4=bits_per_byte:{:.6f}", x.converted_bpb));
  return snippets::join_lines(lines);
}

// region: trace-records
// TOKEN per fixture prediction (its bytes and surprisal in nats and bits), and MODEL
// per evaluation, the bigram's and the uniform model's metrics side by side. The
// diagram reads these records and recomputes nothing.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  const auto model = [&](std::string_view text, const Evaluation& ev) {
    records.push_back(fmt::format(
        "MODEL|text={}|tokenizer={}|vocab={}|tokens={}|bytes={}|cross_entropy={:.6f}|"
        "perplexity={:.6f}|bits_per_byte={:.6f}|uniform_cross_entropy={:.6f}|"
        "uniform_bits_per_byte={:.6f}",
        text, ev.name, ev.vocab_size, ev.metrics.score.tokens, ev.metrics.score.bytes,
        ev.metrics.cross_entropy, ev.metrics.perplexity, ev.metrics.bits_per_byte,
        ev.uniform.cross_entropy, ev.uniform.bits_per_byte));
  };
  for (const Evaluation& ev : e.fixture) {
    for (std::size_t i = 0; i < ev.predictions.size(); ++i) {
      const Prediction& p = ev.predictions[i];
      records.push_back(fmt::format(
          "TOKEN|tokenizer={}|index={}|prev={}|next={}|bytes={}|probability={:.6f}|"
          "nats={:.6f}|bits={:.6f}",
          ev.name, i, p.prev, p.next, p.bytes, p.probability, p.nats,
          p.nats / std::numbers::ln2));
    }
    model("fixture", ev);
  }
  for (const Evaluation& ev : e.corpus)
    model("kjv validation", ev);
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch07
