// Chapter 0
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch00 {
namespace {

std::string values(const std::vector<double>& v) {
  std::vector<std::string> parts;
  for (double x : v) {
    parts.push_back(fmt::format("{:.6f}", x == 0.0 ? 0.0 : x));
  }
  return fmt::format("{}", fmt::join(parts, ","));
}

std::string matrix(const std::vector<std::vector<double>>& m) {
  std::vector<double> flat;
  for (const auto& row : m) {
    flat.insert(flat.end(), row.begin(), row.end());
  }
  return fmt::format("shape:[{},{}] values:[{}]", m.size(), m.empty() ? 0 : m[0].size(),
                     values(flat));
}

}  // namespace

// region: report
// One `key=value` line per stage, in the order the data flows.
std::string render_report(const ToyModel& model, const Evidence& e) {
  std::string out;
  out += fmt::format("prompt={}\n", e.prompt);
  out += fmt::format("vocabulary={}\n", fmt::join(model.vocabulary, ","));
  out += fmt::format("token_ids=[{}]\n", fmt::join(e.token_ids, ","));
  out += fmt::format("embeddings={}\n", matrix(e.embeddings));
  out += fmt::format("context={}\n", matrix(e.context));
  out +=
      fmt::format("logits=shape:[{}] values:[{}]\n", e.logits.size(), values(e.logits));
  out += fmt::format("probabilities=shape:[{}] values:[{}]\n", e.probabilities.size(),
                     values(e.probabilities));
  out += fmt::format("next_token={}\n", model.vocabulary[e.next_id]);
  return out;
}
// endregion: report

}  // namespace ch00
