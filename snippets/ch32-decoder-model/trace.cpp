// Chapter 32
// Chapter 32's trace: where the parameters are, the residual stream through the demo
// model, and the Predict model's logits position by position.

#include <llmfs/report/format.hpp>

#include "evidence.hpp"

namespace ch32 {

std::string render_trace(const Evidence& p) {
  const auto& c = kDemoConfig;
  std::vector<std::string> out = {fmt::format(
      "CONFIG|vocab={}|model_width={}|heads={}|layers={}|hidden_width={}|parameters={}",
      c.vocab_size, c.model_width, c.heads, c.layers, c.hidden_width,
      p.parameter_count)};
  for (const auto& [name, count] : p.components)
    out.push_back(fmt::format("PARAMS|component={}|count={}", name, count));
  for (const auto& s : p.stream) {
    // The embeddings have no branches: their branch fields are "-"
    const bool branches = s.stage != "embeddings";
    auto branch = [&](double rms) {
      return branches ? llmfs::report::format_number(rms) : std::string("-");
    };
    out.push_back(
        fmt::format("STREAM|stage={}|stream_rms={}|attention_rms={}|ffn_rms={}",
                    s.stage, llmfs::report::format_number(s.stream_rms),
                    branch(s.attention_rms), branch(s.ffn_rms)));
  }
  const std::size_t v = kFixtureConfig.vocab_size;
  const auto ids = fixture_ids().ids;
  const auto targets = fixture_targets().ids;
  for (std::size_t t = 0; t < ids.size(); ++t) {
    out.push_back(fmt::format(
        "LOGITS|position={}|input={}|target={}|predicted={}|logits={}", t, ids[t],
        targets[t], p.fixture_predicted[t],
        llmfs::report::format_values(p.fixture_logits.values().subspan(t * v, v))));
  }
  out.push_back(fmt::format("LOSS|fixture={}|demo_initial={}|ln_vocab={}",
                            llmfs::report::format_number(p.fixture_loss),
                            llmfs::report::format_number(p.loss),
                            llmfs::report::format_number(p.log_vocab)));
  return snippets::join_lines(out);
}

}  // namespace ch32
