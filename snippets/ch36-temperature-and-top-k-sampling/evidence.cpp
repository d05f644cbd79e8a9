// Chapter 36
// Gathers every value chapter 36 prints. Nothing here re-implements sampling: every
// probability and every token comes from llmfs::generation (or, in the misconception,
// from the naive formula the library refuses to evaluate).

#include "evidence.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <span>

#include <llmfs/core/splitmix64.hpp>

namespace ch36 {

using namespace llmfs::generation;
using llmfs::SplitMix64;

namespace {

// region: predict-draw
// The fixture's stages, its cumulative distribution, and one draw from SplitMix64(36).
[[nodiscard]] Step<Draw> predict_draw() {
  Draw d;
  d.stages = LLMFS_TRY_AT("fixture stages", sampling_stages(kLogits, kConfig));
  double running = 0.0;
  for (double p : d.stages.probabilities)
    d.cdf.push_back(running += p);
  SplitMix64 rng(kSeed);
  d.token = LLMFS_TRY_AT("fixture draw", sample_token(kLogits, kConfig, rng));
  d.u = SplitMix64(kSeed).next_unit();  // the one uniform sample_token drew
  const auto uncut = LLMFS_TRY_AT("uncut", sampling_distribution(kLogits, {}));
  d.uncut_token = LLMFS_TRY_AT("uncut draw", inverse_cdf(uncut, d.u));
  return d;
}
// endregion: predict-draw

// τ from 0.01 to 4 without a cut; k from 1 to 6 (> V) at τ = 1; greedy on the fixture.
[[nodiscard]] Step<void> sweep(Evidence& e) {
  for (double tau : {0.01, 0.25, 0.5, 1.0, 2.0, 4.0})
    e.temperatures.push_back(
        {fmt::format("{}", tau),
         LLMFS_TRY_AT("temperature sweep",
                      sampling_distribution(kLogits, {.temperature = tau}))});
  for (std::size_t k = 1; k <= 6; ++k)
    e.cuts.push_back(
        {fmt::format("{}", k),
         LLMFS_TRY_AT("top-k sweep", sampling_distribution(kLogits, {.top_k = k}))});
  const auto no_cut = LLMFS_TRY_AT("no cut", sampling_distribution(kLogits, {}));
  e.k_six_equals_no_cut = e.cuts.back().probabilities == no_cut;
  SplitMix64 rng(kSeed);
  e.greedy = LLMFS_TRY_AT("greedy",
                          sample_token(kLogits, {.decoding = Decoding::greedy}, rng));
  e.greedy_left_rng = rng == SplitMix64(kSeed);
  return {};
}

// kDraws draws at τ = 1 without a cut, counted per token, each count against N·p.
[[nodiscard]] Step<Frequencies> count_draws() {
  const auto p = LLMFS_TRY_AT("frequencies", sampling_distribution(kLogits, {}));
  Frequencies f{std::vector<std::size_t>(p.size(), 0), {}, {}};
  SplitMix64 rng(kSeed);
  for (std::size_t n = 0; n < kDraws; ++n)
    ++f.counts[static_cast<std::size_t>(
        LLMFS_TRY_AT("draw", sample_token(kLogits, {}, rng)))];
  const auto draws = static_cast<double>(kDraws);
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double spread = std::sqrt(draws * p[i] * (1.0 - p[i]));
    f.expected.push_back(draws * p[i]);
    f.z.push_back(spread > 0.0
                      ? (static_cast<double>(f.counts[i]) - draws * p[i]) / spread
                      : 0.0);
  }
  return f;
}

// Twelve draws at τ = 1 from a fresh generator seeded `seed`.
[[nodiscard]] Step<std::vector<TokenId>> run(std::uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<TokenId> tokens;
  for (int n = 0; n < 12; ++n)
    tokens.push_back(LLMFS_TRY_AT("run", sample_token(kLogits, {}, rng)));
  return tokens;
}

// region: generate
// kGenerated tokens after the prompt: each step runs the whole sequence through the
// decoder and samples from the logits of its last position ([1, T, V] → row T − 1).
[[nodiscard]] Step<std::vector<TokenId>> generate(llmfs::models::DecoderModel& model,
                                                  const SamplingConfig& config) {
  SplitMix64 rng(kSeed);
  std::vector<TokenId> ids = kPrompt;
  const std::size_t vocab = model.config().vocab_size;
  for (std::size_t step = 0; step < kGenerated; ++step) {
    const auto logits =
        LLMFS_TRY_AT("decoder forward", model.forward({1, ids.size(), ids}));
    const auto values = LLMFS_TRY_AT("read logits", logits.value());
    const auto last = values.values().subspan((ids.size() - 1) * vocab, vocab);
    ids.push_back(LLMFS_TRY_AT("sample", sample_token(last, config, rng)));
    LLMFS_TRY_AT("reset tape", model.reset_tape());  // drop this step's graph
  }
  return std::vector<TokenId>(ids.begin() + std::ssize(kPrompt), ids.end());
}
// endregion: generate

[[nodiscard]] Step<std::vector<Continuation>> continuations() {
  auto model =
      LLMFS_TRY_AT("decoder", llmfs::models::DecoderModel::create(kDecoderConfig));
  std::vector<Continuation> out;
  for (const auto& [name, config] : {std::pair<std::string, SamplingConfig>{
                                         "greedy", {.decoding = Decoding::greedy}},
                                     {"tau=1", {}},
                                     {"tau=0.7,k=5", {.temperature = 0.7, .top_k = 5}},
                                     {"tau=2", {.temperature = 2.0}}})
    out.push_back({name, LLMFS_TRY(generate(model, config))});
  return out;
}

// region: refusals
// Calls the library refuses, each kept as its error text.
std::vector<std::array<std::string, 2>> refusals() {
  using snippets::error_text;
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> with_nan{0.0, nan}, with_inf{0.0, inf}, masked{-inf, -inf};
  const auto with = [](double tau) {
    return error_text(sampling_distribution(kLogits, {.temperature = tau}));
  };
  return {{"temperature_zero", with(0.0)},
          {"temperature_negative", with(-1.0)},
          {"temperature_nan", with(nan)},
          {"temperature_infinite", with(inf)},
          {"top_k_zero", error_text(sampling_distribution(kLogits, {.top_k = 0}))},
          {"nan_logit", error_text(sampling_distribution(with_nan, {}))},
          {"infinite_logit", error_text(sampling_distribution(with_inf, {}))},
          {"all_masked", error_text(sampling_distribution(masked, {}))},
          {"empty_row", error_text(sampling_distribution({}, {}))},
          {"uniform_one", error_text(inverse_cdf(std::vector{0.5, 0.5}, 1.0))}};
}
// endregion: refusals

// region: tie-at-top
// Logits (1, 1, 0): a tiny τ, greedy, the naive formula at τ = 0, and the library at 0.
[[nodiscard]] Step<TieAtTop> tie_at_top() {
  const std::vector<double> row{1.0, 1.0, 0.0};
  TieAtTop t;
  t.tiny = LLMFS_TRY_AT("tiny", sampling_distribution(row, {.temperature = 1e-3}));
  t.greedy = LLMFS_TRY_AT("greedy",
                          sampling_distribution(row, {.decoding = Decoding::greedy}));
  const double tau = 0.0;
  double shift = -std::numeric_limits<double>::infinity(), total = 0.0;
  for (double z : row)
    shift = std::max(shift, z / tau);  // 1/0 = +∞ and 0/0 = NaN
  for (double z : row)
    total += std::exp(z / tau - shift);
  for (double z : row)
    t.naive_zero.push_back(std::exp(z / tau - shift) / total);
  t.zero_error = snippets::error_text(sampling_distribution(row, {.temperature = tau}));
  return t;
}
// endregion: tie-at-top

// region: exercises
[[nodiscard]] Step<Exercises> solve_exercises() {
  Exercises x;
  x.tau_one_top3 =
      LLMFS_TRY_AT("exercise 1", sampling_distribution(kLogits, {.top_k = 3}));
  double low = 0.1, high = 4.0;  // p(token 1) falls as τ grows: bisect for 1/2
  for (int i = 0; i < 100; ++i) {
    const double mid = (low + high) / 2;
    const auto p = LLMFS_TRY_AT("exercise 2",
                                sampling_distribution(kLogits, {.temperature = mid}));
    (p[1] > 0.5 ? low : high) = mid;
  }
  x.half_temperature = (low + high) / 2;
  auto p = LLMFS_TRY_AT("exercise 3", sampling_distribution(kLogits, {}));
  std::ranges::sort(p, std::greater<>());
  double mass = 0.0;  // the smallest set of most likely tokens holding ≥ 0.9
  while (mass < 0.9)
    mass += p[x.nucleus_size++];
  return x;
}
// endregion: exercises

}  // namespace

Step<Evidence> gather() {
  Evidence e;
  e.draw = LLMFS_TRY(predict_draw());
  LLMFS_TRY(sweep(e));
  e.frequencies = LLMFS_TRY(count_draws());
  for (std::size_t i = 0; i < 3; ++i)
    e.runs[i] = LLMFS_TRY(run(i < 2 ? kSeed : kSeed + 1));
  e.continuations = LLMFS_TRY(continuations());
  e.errors = refusals();
  e.tie = LLMFS_TRY(tie_at_top());
  e.exercises = LLMFS_TRY(solve_exercises());
  return e;
}

}  // namespace ch36
