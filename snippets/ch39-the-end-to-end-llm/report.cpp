// Chapter 39
// The report (stdout, the golden expected.txt) and the trace records.
#include <fmt/format.h>

#include "evidence.hpp"

namespace ch39 {

namespace {

std::string ids_text(std::span<const llmfs::text::TokenId> ids) {
  return fmt::format("{}", fmt::join(ids, ","));
}

}  // namespace

std::string render_report(const Evidence& e) {
  const auto& r = e.run;
  std::string out;
  auto line = [&](std::string_view key, const auto& value) {
    out += fmt::format("{}={}\n", key, value);
  };
  line("demo_model",
       fmt::format("V={} d={} h={} N={} d_ff={} T={} parameters={}",
                   kDemoModel.vocab_size, kDemoModel.model_width, kDemoModel.heads,
                   kDemoModel.layers, kDemoModel.hidden_width,
                   kDemoModel.context_length, r.parameters));
  line("demo_data",
       fmt::format("train_documents={} train_windows={} validation_windows={}",
                   r.train_documents, r.train_examples, r.validation_examples));
  for (const auto& v : r.run.evaluations)
    line(fmt::format("validation_step_{}", v.step),
         fmt::format("{:.6f}{}", v.validation_loss, v.best ? " best" : ""));
  line("selected_step", r.run.selected.step());
  line("validation_every_token",
       fmt::format("tokens={} of {} nats={:.6f} bytes={} bits_per_byte={:.6f}",
                   r.validation.tokens, e.corpus_validation_tokens, r.validation.total,
                   r.validation_bytes, r.validation_bpb));
  line("bigram_alpha", r.bigram_alpha);
  line("test", fmt::format("windows={} tokens={} bytes={}", r.test_examples,
                           r.test_tokens, r.test_bytes));
  for (const auto& row : r.table)
    line(fmt::format("test_{}", row.name),
         fmt::format("cross_entropy={:.6f} perplexity={:.3f} bits_per_byte={:.6f}",
                     row.metrics.cross_entropy, row.metrics.perplexity,
                     row.metrics.bits_per_byte));
  line("repeat_equal", e.repeat_equal);
  line("model_file_round_trip", e.model_file_round_trip);
  for (const auto& s : r.samples)
    if (s.prompt == kPrompts[0])
      line(fmt::format("sample_setting_{}", s.setting), ids_text(s.ids));
  line("long_generation_tokens", e.long_generation.size());
  line("empty_prompt", ids_text(e.empty_prompt));
  for (const auto& [name, text] : e.errors)
    line(fmt::format("error[{}]", name), text);
  line("exercises", fmt::format("{:.0f} {:.0f} {:.6f} {:.6f}", e.exercises[0],
                                e.exercises[1], e.exercises[2], e.exercises[3]));
  return out;
}

std::string render_trace(const Evidence& e) {
  const auto& r = e.run;
  std::string out;
  // The pipeline's stages, in the order the data flows through them
  out += fmt::format("STAGE|name=tokenizer|chapters=3-4|value=V {}\n",
                     kDemoModel.vocab_size);
  out += fmt::format(
      "STAGE|name=partitions|chapters=2,5|value={} train documents, {} windows of "
      "T={}\n",
      r.train_documents, r.train_examples, kDemoModel.context_length);
  out +=
      fmt::format("STAGE|name=model|chapters=32|value={} parameters\n", r.parameters);
  out +=
      fmt::format("STAGE|name=training|chapters=33|value={} steps, selected step {}\n",
                  r.run.steps.size(), r.run.selected.step());
  out += fmt::format(
      "STAGE|name=validation|chapters=7|value={} tokens, {:.6f} bits/byte\n",
      r.validation.tokens, r.validation_bpb);
  out += fmt::format("STAGE|name=sealed test|chapters=34|value={} windows, {} bytes\n",
                     r.test_examples, r.test_bytes);
  out += fmt::format("STAGE|name=model file|chapters=35|value=round trip {}\n",
                     e.model_file_round_trip);
  out += fmt::format("STAGE|name=generation|chapters=36|value={} samples\n",
                     r.samples.size());
  for (const auto& v : r.run.evaluations)
    out += fmt::format("VALID|step={}|loss={:.6f}|best={}\n", v.step, v.validation_loss,
                       v.best);
  for (const auto& row : r.table)
    out += fmt::format("TEST|name={}|bits_per_byte={:.6f}\n", row.name,
                       row.metrics.bits_per_byte);
  return out;
}

}  // namespace ch39
