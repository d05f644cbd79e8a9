// Chapter 0
#include <ranges>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch00 {
namespace {

// `shape:[T,d] values:[...]`, the rows one after the other, six decimals each.
std::string matrix(const std::vector<std::vector<double>>& m) {
  return fmt::format("shape:[{},{}] values:[{:.6f}]", m.size(), m[0].size(),
                     fmt::join(m | std::views::join, ","));
}

}  // namespace

// region: report
// One `key=value` line per stage, in the order the data flows, then the toy's error for
// the prompt it cannot read.
std::string render_report(const Evidence& evidence) {
  const ToyModel& model = evidence.model;
  const ForwardPass& e = evidence.pass;
  std::string out;
  out += fmt::format("prompt={}\n", e.prompt);
  out += fmt::format("vocabulary={}\n", fmt::join(model.vocabulary, ","));
  out += fmt::format("token_ids=[{}]\n", fmt::join(e.token_ids, ","));
  out += fmt::format("embeddings={}\n", matrix(e.embeddings));
  out += fmt::format("context={}\n", matrix(e.context));
  out += fmt::format("logits=shape:[{}] values:[{:.6f}]\n", e.logits.size(),
                     fmt::join(e.logits, ","));
  out += fmt::format("probabilities=shape:[{}] values:[{:.6f}]\n",
                     e.probabilities.size(), fmt::join(e.probabilities, ","));
  out += fmt::format("next_token={}\n", model.vocabulary[e.next_id]);
  out += fmt::format("rejected={} error:{}\n", kUnreadablePrompt, evidence.rejection);
  const ForwardPass& x = evidence.longer;
  out += fmt::format("exercise_1=prompt:{} logits:[{:.6f}] p_c:{:.6f} next_token:{}\n",
                     x.prompt, fmt::join(x.logits, ","), x.probabilities[2],
                     model.vocabulary[x.next_id]);
  out += fmt::format("exercise_2=prompts_starting_ab:{} predicted_a:{}\n",
                     evidence.never_a.prompts, evidence.never_a.predicted_a);
  return out;
}
// endregion: report

}  // namespace ch00
