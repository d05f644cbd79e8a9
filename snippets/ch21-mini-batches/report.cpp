// Chapter 21
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch21 {

namespace {

template <class T>
std::string list(const std::vector<T>& v) {
  return fmt::format("[{}]", fmt::join(v, ","));
}

}  // namespace

// The fixture, its epochs, the bias, the corpus and every refusal.
void add_lines(const Evidence& e, std::vector<std::string>& lines) {
  const Fixture& f = e.fixture;
  lines.push_back(fmt::format("fixture_examples={} batches_keep:{} batches_drop:{}",
                              f.examples.size(), f.epochs[0].batches.size(),
                              f.examples.size() / kBatches.batch_size));
  for (const std::size_t i : {std::size_t{1}, std::size_t{4}})
    lines.push_back(fmt::format("fixture_example_{}=inputs:{} targets:{} loss:{:.6f}",
                                i, list(f.example_rows[i].inputs.ids),
                                list(f.example_rows[i].targets.ids),
                                f.example_loss[i]));
  for (std::size_t k = 0; k < f.epochs.size(); ++k) {
    const Epoch& ep = f.epochs[k];
    std::string batches;
    for (const BatchLoss& b : ep.batches)
      batches += fmt::format(" {}:{:.6f}", list(b.examples), b.loss);
    lines.push_back(
        fmt::format("epoch_{}=order:{}{} mean_of_batches:{:.6f} position_mean:{:.6f}",
                    k, list(ep.order), batches, ep.mean_of_batches, ep.position_mean));
  }
  lines.push_back(fmt::format("partial_batch_check=max_abs_error:{:.3e} passed:{}",
                              f.check.max_abs_error(), f.check.passed()));
  const Bias& b = e.bias;
  lines.push_back(
      fmt::format("bias_bytes_mod_3=[{}]", fmt::join(b.byte_residues, ",")));
  lines.push_back(
      fmt::format("bias_n_3x2^62=draws:{} x_mod_n_below_2^62:{:.4f} lemire:{:.4f}",
                  b.draws, b.modulo_below, b.lemire_below));
  const Corpus& c = e.corpus;
  lines.push_back(fmt::format(
      "kjv_train=documents:{} examples:{} (T=64 S=32) B=32 batches_keep:{} drop:{} "
      "last_rows:{}",
      c.sequences, c.examples, c.batches_keep, c.batches_drop, c.last_rows));
  lines.push_back(fmt::format("kjv_batch_0_row_0=inputs:{} targets:{} tokens:{:?}",
                              list(c.first_inputs), list(c.first_targets),
                              c.first_tokens));
  lines.push_back(fmt::format(
      "kjv_order_seed21=epoch_0:{}... same_seed_same_order:{} seed22_agreements:{}",
      list(c.epoch0_head), c.same_seed_same_order, c.other_seed_agreements));
  for (const auto& [name, text] : e.errors)
    lines.push_back(fmt::format("error_{}={}", name, text));
}

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  add_lines(e, lines);
  const Exercises& x = e.exercises;
  lines.push_back(fmt::format("exercise_1=drop sits_out epoch_0:{} epoch_1:{}",
                              list(x.dropped[0]), list(x.dropped[1])));
  lines.push_back(fmt::format("exercise_2=kjv B=64 batches:{} last_rows:{}",
                              x.batches_b64, x.last_rows_b64));
  lines.push_back(fmt::format("exercise_3=n=3x2^62 rejected_x:{} mean_draws:{:.4f}",
                              x.threshold, x.mean_draws));
  const Epoch& a = e.fixture.epochs[0];
  const Epoch& b = e.fixture.epochs[1];
  lines.push_back(fmt::format(
      "misconception=mean_of_batches epoch_0:{:.6f} epoch_1:{:.6f} "
      "position_mean:{:.6f} {:.6f}",
      a.mean_of_batches, b.mean_of_batches, a.position_mean, b.position_mean));
  return snippets::join_lines(lines);
}

// region: trace-records
// EXAMPLE per fixture example (its window, its loss), then per epoch one EPOCH record
// and one BATCH record per batch. The diagram reads these and recomputes nothing.
std::string render_trace(const Evidence& e) {
  const Fixture& f = e.fixture;
  std::vector<std::string> records{
      fmt::format("FIXTURE|examples={}|batch={}|context={}|seed={}", f.examples.size(),
                  kBatches.batch_size, kWindows.context, kSeed)};
  for (std::size_t i = 0; i < f.examples.size(); ++i)
    records.push_back(fmt::format(
        "EXAMPLE|index={}|sequence={}|start={}|inputs={}|targets={}|loss={:.6f}", i,
        f.examples[i].sequence, f.examples[i].start, list(f.example_rows[i].inputs.ids),
        list(f.example_rows[i].targets.ids), f.example_loss[i]));
  for (std::size_t k = 0; k < f.epochs.size(); ++k) {
    const Epoch& ep = f.epochs[k];
    records.push_back(fmt::format(
        "EPOCH|epoch={}|order={}|mean_of_batches={:.6f}|position_mean={:.6f}", k,
        list(ep.order), ep.mean_of_batches, ep.position_mean));
    for (std::size_t b = 0; b < ep.batches.size(); ++b)
      records.push_back(fmt::format(
          "BATCH|epoch={}|index={}|examples={}|positions={}|loss={:.6f}", k, b,
          list(ep.batches[b].examples),
          ep.batches[b].examples.size() * kWindows.context, ep.batches[b].loss));
  }
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch21
