// Chapter 32
// The refused calls and the exercise answers, each computed by running the library.

#include "evidence.hpp"

namespace ch32 {

using llmfs::models::DecoderConfig;
using llmfs::models::DecoderModel;

// region: refused-configurations
// One refused configuration, input or value list per way the model can say no.
Step<std::vector<std::pair<std::string, std::string>>> gather_errors() {
  std::vector<std::pair<std::string, std::string>> errors;
  auto with = [](auto change) {
    DecoderConfig config = kDemoConfig;
    change(config);
    return snippets::error_text(llmfs::models::validate(config));
  };
  errors.emplace_back("zero_size", with([](DecoderConfig& c) { c.vocab_size = 0; }));
  errors.emplace_back("width_not_divisible",
                      with([](DecoderConfig& c) { c.heads = 3; }));
  errors.emplace_back("odd_head_width", with([](DecoderConfig& c) { c.heads = 16; }));
  errors.emplace_back("bad_rope_base",
                      with([](DecoderConfig& c) { c.rope_base = 1.0; }));
  errors.emplace_back("bad_epsilon", with([](DecoderConfig& c) { c.epsilon = 0.0; }));
  const auto model = LLMFS_TRY_AT("model", DecoderModel::create(kDemoConfig));
  errors.emplace_back("token_out_of_range",
                      snippets::error_text(model.forward({1, 2, {3, 32}})));
  errors.emplace_back(
      "context_overflow",
      snippets::error_text(model.forward({1, 17, std::vector<int>(17, 0)})));
  errors.emplace_back("target_shape",
                      snippets::error_text(model.loss({1, 2, {0, 1}}, {1, 1, {1}})));
  auto values = LLMFS_TRY_AT("values", model.values());
  values.pop_back();
  errors.emplace_back("value_count", snippets::error_text(DecoderModel::from_values(
                                         kDemoConfig, values)));
  values.push_back(Tensor::zeros({17}));
  errors.emplace_back("value_shape", snippets::error_text(DecoderModel::from_values(
                                         kDemoConfig, std::move(values))));
  return errors;
}
// endregion: refused-configurations

Step<Exercises> answer_exercises(const Evidence& evidence) {
  Exercises e;
  // 1. A model the size of GPT-2 small, with SwiGLU and tied embeddings.
  DecoderConfig gpt{.vocab_size = 50257,
                    .model_width = 768,
                    .heads = 12,
                    .layers = 12,
                    .hidden_width = 2048,
                    .context_length = 1024,
                    .rope_base = 10000.0,
                    .epsilon = 1e-6,
                    .seed = 0};
  e.gpt_sized_tied =
      LLMFS_TRY_AT("gpt count", llmfs::models::decoder_parameter_count(gpt));
  e.gpt_sized_untied_extra = gpt.vocab_size * gpt.model_width;
  // 2. The table's share of all parameters, here and there.
  e.demo_embedding_share = static_cast<double>(evidence.components.front().count) /
                           static_cast<double>(evidence.parameter_count);
  e.gpt_embedding_share = static_cast<double>(e.gpt_sized_untied_extra) /
                          static_cast<double>(e.gpt_sized_tied);
  // 3. Which head counts a 12-wide model accepts.
  for (std::size_t heads : {3, 4, 5, 6}) {
    DecoderConfig c = kDemoConfig;
    c.model_width = 12;
    c.heads = heads;
    const auto verdict = llmfs::models::validate(c);
    e.configs.emplace_back(fmt::format("heads_{}", heads),
                           verdict ? std::string("accepted")
                                   : std::string(describe(verdict.error().code)));
  }
  // 4. The untrained loss against ln V.
  e.loss_minus_log_vocab = evidence.loss - evidence.log_vocab;
  return e;
}

}  // namespace ch32
