// Chapter 42
#include "train_fast.hpp"

#include <charconv>
#include <chrono>
#include <vector>

#include <fmt/format.h>

#include <llmfs/attention/streaming.hpp>
#include <llmfs/core/atomic_file.hpp>
#include <llmfs/tensor/matmul.hpp>
#include <llmfs/training/batches.hpp>
#include <llmfs/training/clipping.hpp>
#include <llmfs/training/decoder_loss.hpp>

#include "../ch39-the-end-to-end-llm/evidence.hpp"

#include <malloc.h>

namespace ch42 {

namespace training = llmfs::training;

ch39::RunSettings fast_settings() {
  return {kFastModel,  kFastBatch, kFastSteps, kFastEvery,
          kFastWarmup, kFastPeak,  kFastFloor, ch39::kSampleTokens};
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

// A positive whole number, or nothing (with the message on stderr).
std::optional<std::size_t> whole_number(const std::string& text,
                                        std::string_view flag) {
  std::size_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value == 0) {
    fmt::print(stderr, "{} wants a positive whole number, not '{}'\n", flag, text);
    return std::nullopt;
  }
  return value;
}

}  // namespace

// region: fast-run-body
Step<FastRun> run_fast(const ch39::RunSettings& s, const ch39::Corpus& corpus,
                       training::TrainingMonitor* monitor,
                       const std::filesystem::path& model_file) {
  const std::size_t T = s.model.context_length;
  const auto train_set = LLMFS_TRY(ch39::windows(corpus.train, T));
  const auto validation_set = LLMFS_TRY(ch39::windows(corpus.validation, T));
  const auto initial =
      LLMFS_TRY_AT("create", llmfs::models::DecoderModel::create(s.model));
  FastRun out;
  out.parameters = initial.parameter_count();
  const training::TrainConfig config{
      s.batch,     {T, T},  {s.peak, s.floor, s.warmup, s.steps},
      ch39::kClip, s.every, ch39::kSeed};
  auto adamw = LLMFS_TRY_AT(
      "adamw",
      training::AdamW::create(
          {s.peak, ch39::kHyper.beta1, ch39::kHyper.beta2, ch39::kHyper.epsilon},
          training::decoder_groups(s.model, ch39::kWeightDecay)));
  const auto start = std::chrono::steady_clock::now();
  out.run = LLMFS_TRY_AT(
      "train", training::train(LLMFS_TRY_AT("values", initial.values()), adamw,
                               training::decoder_loss(s.model), train_set,
                               validation_set, config, monitor));
  out.wall_seconds = seconds_since(start);
  // endregion: fast-run-body
  // The selected model on every validation token, as chapter 39 scored its own
  const auto& selected = out.run.selected.values();
  out.validation =
      LLMFS_TRY(ch39::score_every_token(s.model, selected, corpus.validation, s.batch));
  out.validation_bpb =
      ch39::bits_per_byte(out.validation.total, corpus.validation.bytes);
  const ch39::TrainedModel trained{
      s.model, {selected.begin(), selected.end()}, out.run.selected.step()};
  if (!model_file.empty())
    LLMFS_TRY_AT("model file",
                 ch39::save_model(model_file, trained, *corpus.tokenizer));
  for (const auto prompt : ch39::kPrompts)
    for (std::size_t k = 0; k < ch39::kSettings.size(); ++k) {
      auto ids = LLMFS_TRY_AT(
          "sample", ch39::generate(trained, *corpus.tokenizer, prompt, s.sample_tokens,
                                   ch39::kSettings[k], ch39::kSampleSeed + k));
      out.samples.push_back({std::string(prompt), k, ids,
                             ch39::continuation_text(*corpus.tokenizer, ids)});
    }
  return out;
}

int train_fast(int argc, char** argv) {
  const auto f = ch39::flags(argc, argv, {"--out", "--model", "--steps"});
  if (!f || !f->contains("--out") || !f->contains("--model")) {
    fmt::print(stderr,
               "usage: {} --train-fast --out PREFIX --model FILE [--steps S]{}\n",
               argv[0], f ? "" : "\n" + f.error());
    return 2;
  }
  // Large tensors are freed and allocated again every step: keep them in the heap
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  ch39::RunSettings settings = fast_settings();
  if (f->contains("--steps")) {
    const auto steps = whole_number(f->at("--steps"), "train-fast: --steps");
    if (!steps) return 2;
    settings.steps = *steps;
    settings.every = std::max<std::size_t>(1, *steps / 3);
    settings.warmup = std::min(settings.warmup, *steps);
  }
  const auto corpus = ch39::load_corpus(0);
  if (!corpus) {
    fmt::print(stderr, "train-fast: {}\n", corpus.error());
    return 1;
  }
  const auto& m = settings.model;
  const std::string prefix = f->at("--out");
  const std::string header = fmt::format(
      R"({{"kind":"config","V":{},"d":{},"h":{},"N":{},"d_ff":{},"T":{},"B":{},)"
      R"("steps":{},"every":{},"peak":{},"floor":{},"warmup":{},"clip":{},"seed":{},)"
      R"("threads":{},"attention":"{}","train_tokens":{},"validation_tokens":{},)"
      R"("validation_bytes":{}}})",
      m.vocab_size, m.model_width, m.heads, m.layers, m.hidden_width, m.context_length,
      settings.batch, settings.steps, settings.every, settings.peak, settings.floor,
      settings.warmup, ch39::kClip, ch39::kSeed,
      llmfs::tensor::matmul_defaults().threads, m.attention.name, corpus->train.tokens,
      corpus->validation.tokens, corpus->validation.bytes);
  training::TrainingMonitor monitor(header, prefix + "-train.jsonl",
                                    training::stderr_is_terminal());
  const auto r = run_fast(settings, *corpus, &monitor, f->at("--model"));
  if (!r) {
    fmt::print(stderr, "train-fast: {}\n", r.error());
    return 1;
  }
  const std::size_t tokens = settings.steps * settings.batch * m.context_length;
  const auto a = llmfs::write_file_atomically(
      prefix + "-summary.json",
      fmt::format(
          R"({{"kind":"summary","parameters":{},"steps":{},"tokens_per_step":{},)"
          R"("train_tokens_seen":{},"train_wall_s":{:.1f},"tokens_per_wall_s":{:.0f},)"
          R"("matmul_threads":{},"selected_step":{},"validation_tokens":{},)"
          R"("validation_bytes":{},"validation_nats":{},"validation_bpb":{:.6f}}})"
          "\n",
          r->parameters, settings.steps, settings.batch * m.context_length, tokens,
          r->wall_seconds, static_cast<double>(tokens) / r->wall_seconds,
          llmfs::tensor::matmul_defaults().threads, r->run.selected.step(),
          r->validation.tokens, corpus->validation.bytes, r->validation.total,
          r->validation_bpb));
  const auto b = llmfs::write_file_atomically(prefix + "-samples.tsv",
                                              ch39::samples_text(r->samples));
  if (!a || !b) {
    fmt::print(stderr, "train-fast: cannot write the summary or the samples\n");
    return 1;
  }
  fmt::print(
      "parameters {}; {} steps in {:.0f} s (training and validation); selected step "
      "{}; "
      "validation {:.4f} bits/byte over every token\n",
      r->parameters, settings.steps, r->wall_seconds, r->run.selected.step(),
      r->validation_bpb);
  return 0;
}

int bench_train(int argc, char** argv) {
  const auto f = ch39::flags(argc, argv, {"--steps", "--streaming"});
  std::size_t steps = 0;
  if (f && f->contains("--steps"))
    steps = whole_number(f->at("--steps"), "--steps").value_or(0);
  if (steps == 0) {
    fmt::print(stderr, "usage: {} --bench-train --steps K [--streaming BLOCK]\n",
               argv[0]);
    return 2;
  }
  auto m = kFastModel;
  m.attention = {};                  // stored weights unless --streaming says otherwise
  if (f->contains("--streaming")) {  // chapter 41's kernel, BLOCK keys at a time
    const auto block = whole_number(f->at("--streaming"), "--streaming");
    if (!block) return 2;
    const auto kernel = llmfs::attention::streaming_kernel(*block);
    if (!kernel) return 2;
    m.attention = *kernel;
  }
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  auto model = llmfs::models::DecoderModel::create(m);
  auto adamw = training::AdamW::create(ch39::kHyper,
                                       training::decoder_groups(m, ch39::kWeightDecay));
  if (!model || !adamw) {
    fmt::print(stderr, "bench-train: cannot create the model or the optimizer\n");
    return 1;
  }
  auto values = model->values();
  const auto loss = training::decoder_loss(m);
  llmfs::SplitMix64 rng(kFastModel.seed);
  std::vector<double> seconds;
  for (std::size_t k = 0; k < steps; ++k) {
    training::Batch batch{
        {kFastBatch, m.context_length, {}}, {kFastBatch, m.context_length, {}}, {}};
    for (std::size_t i = 0; i < kFastBatch * m.context_length; ++i) {
      batch.inputs.ids.push_back(
          static_cast<llmfs::text::TokenId>(training::bounded(rng, m.vocab_size)));
      batch.targets.ids.push_back(
          static_cast<llmfs::text::TokenId>(training::bounded(rng, m.vocab_size)));
    }
    const auto start = std::chrono::steady_clock::now();
    auto pass = loss(*values, batch, true);
    if (!pass) {
      fmt::print(stderr, "bench-train: {}\n", pass.error().text);
      return 1;
    }
    (void)training::clip_by_global_norm(pass->gradients, ch39::kClip);
    if (!adamw->step(*values, pass->gradients)) return 1;
    seconds.push_back(seconds_since(start));
  }
  fmt::print(R"({{"threads":{},"tokens_per_step":{},"attention":"{}","step_s":[{}]}})"
             "\n",
             llmfs::tensor::matmul_defaults().threads, kFastBatch * m.context_length,
             m.attention.name, fmt::join(seconds, ","));
  return 0;
}

}  // namespace ch42
