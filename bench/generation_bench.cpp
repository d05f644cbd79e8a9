// Chapter 38
// Generation throughput with and without the key/value cache: a 1-token prompt
// continued greedily to the context's end T (T − 1 new tokens), for T = 32, 64, 128,
// 256, on one decoder (V 256, d 32, h 4, N 2, d_ff 88). Tokens/s counts new tokens per
// row. Cached work per token grows like T (attention over the cache), uncached like T²
// (every position again): the ratio grows about linearly with T. Run by
// tools/run-generation-bench.sh, which writes bench/results/ch38-generation.txt.

#include <benchmark/benchmark.h>

#include <llmfs/generation/generate.hpp>
#include <llmfs/models/decoder.hpp>

namespace {

using llmfs::generation::CacheMode;

llmfs::models::DecoderConfig config_for(std::size_t context) {
  return {.vocab_size = 256,
          .model_width = 32,
          .heads = 4,
          .layers = 2,
          .hidden_width = 88,
          .context_length = context,
          .rope_base = 10000.0,
          .epsilon = 1e-6,
          .seed = 38};
}

void generation(benchmark::State& state, CacheMode mode) {
  const auto context = static_cast<std::size_t>(state.range(0));
  const auto model = llmfs::models::DecoderModel::create(config_for(context)).value();
  const llmfs::autograd::TokenGrid prompt{1, 1, {65}};
  const auto greedy = llmfs::generation::greedy_chooser();
  for (auto _ : state) {
    auto g = llmfs::generation::generate(model, prompt, context - 1, greedy, mode);
    if (!g) state.SkipWithError("generation failed");
    benchmark::DoNotOptimize(g);
  }
  state.counters["tokens_per_s"] = benchmark::Counter(
      static_cast<double>(context - 1), benchmark::Counter::kIsIterationInvariantRate);
}

void cached(benchmark::State& state) {
  generation(state, CacheMode::cached);
}
void uncached(benchmark::State& state) {
  generation(state, CacheMode::uncached);
}

const bool registered = [] {
  benchmark::RegisterBenchmark("generation/cached", cached)
      ->RangeMultiplier(2)
      ->Range(32, 256)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("generation/uncached", uncached)
      ->RangeMultiplier(2)
      ->Range(32, 256)
      ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace
