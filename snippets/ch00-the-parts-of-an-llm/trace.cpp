// Chapter 0
#include <fmt/format.h>

#include "evidence.hpp"

namespace ch00 {

// region: trace
// The diagram's data: one PART record per stage (with the shape it outputs), one TOKEN
// per prompt position, one PROB per vocabulary entry, and the PICK.
std::string render_trace(const ToyModel& model, const Evidence& e) {
  const std::size_t T = e.token_ids.size();
  const std::size_t d = model.embedding[0].size();
  const std::size_t V = model.vocabulary.size();
  std::string out;
  out += fmt::format(
      "PART|stage=tokenizer|input=text|output=token ids|shape=[{}]|chapters=1-4\n", T);
  for (std::size_t t = 0; t < T; ++t) {
    out += fmt::format("TOKEN|position={}|text={}|id={}\n", t, e.prompt[t],
                       e.token_ids[t]);
  }
  out += fmt::format(
      "PART|stage=embedding|input=token ids|output=vectors|shape=[{},{}]|chapters=18\n",
      T, d);
  out += fmt::format(
      "PART|stage=blocks|input=vectors|output=vectors in "
      "context|shape=[{},{}]|chapters=20-31\n",
      T, d);
  out += fmt::format(
      "PART|stage=output head|input=last "
      "vector|output=logits|shape=[{}]|chapters=19,32\n",
      V);
  for (std::size_t v = 0; v < V; ++v) {
    out += fmt::format("PROB|token={}|logit={:.6f}|p={:.6f}\n", model.vocabulary[v],
                       e.logits[v], e.probabilities[v]);
  }
  out += fmt::format("PICK|token={}|rule=greedy|p={:.6f}|chapters=36\n",
                     model.vocabulary[e.next_id], e.probabilities[e.next_id]);
  return out;
}
// endregion: trace

}  // namespace ch00
