// Chapter 39
// `make train` and `make generate`: the long run on the whole corpus, writing the log,
// the summary, the samples, the model file and the last checkpoint; and text from the
// model file for a reader's prompt.
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string_view>

#include <llmfs/core/atomic_file.hpp>
#include <llmfs/models/ngram_weights.hpp>
#include <llmfs/tensor/matmul.hpp>

#include "evidence.hpp"

#include <malloc.h>
#include <unistd.h>

namespace ch39 {

// `--flag value` pairs after the mode; unknown flags and missing values refused.
std::expected<std::map<std::string, std::string>, std::string> flags(
    int argc, char** argv, std::initializer_list<std::string_view> known) {
  std::map<std::string, std::string> out;
  for (int i = 2; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (std::ranges::find(known, flag) == known.end())
      return std::unexpected(fmt::format("unknown option '{}'", flag));
    if (flag == "--greedy") {
      out[std::string(flag)] = "1";
      continue;
    }
    if (i + 1 >= argc) return std::unexpected(fmt::format("{} needs a value", flag));
    out[std::string(flag)] = argv[++i];
  }
  return out;
}

namespace {

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// The summary: sizes, times, the selected step, every-token validation and the table.
std::string summary_json(const PipelineResult& r, const RunSettings& s) {
  std::string out = fmt::format(
      "{{\"kind\":\"summary\",\"parameters\":{},\"steps\":{},\"tokens_per_step\":{},"
      "\"train_tokens_seen\":{},\"train_wall_s\":{:.1f},\"train_cpu_s\":{:.1f},"
      "\"tokens_per_wall_s\":{:.0f},\"matmul_threads\":{},\"selected_step\":{},"
      "\"validation_tokens\":{},\"validation_bytes\":{},\"validation_nats\":{},"
      "\"validation_bpb\":{:.6f},\"bigram_alpha\":{},\"test_examples\":{},"
      "\"test_tokens\":{},\"test_bytes\":{},\"test\":[",
      r.parameters, s.steps, s.batch * s.model.context_length,
      s.steps * s.batch * s.model.context_length, r.train_wall_seconds,
      r.train_cpu_seconds,
      static_cast<double>(s.steps * s.batch * s.model.context_length) /
          r.train_wall_seconds,
      llmfs::tensor::matmul_defaults().threads, r.run.selected.step(),
      r.validation.tokens, r.validation_bytes, r.validation.total, r.validation_bpb,
      r.bigram_alpha, r.test_examples, r.test_tokens, r.test_bytes);
  for (std::size_t k = 0; k < r.table.size(); ++k)
    out += fmt::format(
        "{}{{\"name\":\"{}\",\"cross_entropy\":{:.6f},\"perplexity\":{:.3f},"
        "\"bits_per_byte\":{:.6f}}}",
        k == 0 ? "" : ",", r.table[k].name, r.table[k].metrics.cross_entropy,
        r.table[k].metrics.perplexity, r.table[k].metrics.bits_per_byte);
  return out + "]}\n";
}

}  // namespace

std::string samples_text(std::span<const Sample> samples) {
  std::string out;
  for (const Sample& s : samples) {
    const auto& c = kSettings[s.setting];
    out += fmt::format("{}\t{}\t{}\t{}\n", json_string(s.prompt),
                       c.decoding == llmfs::generation::Decoding::greedy
                           ? std::string("greedy")
                           : fmt::format("{}", c.temperature),
                       c.top_k ? fmt::format("{}", *c.top_k) : std::string("-"),
                       json_string(s.text));
  }
  return out;
}

int train_long(int argc, char** argv) {
  const auto f =
      flags(argc, argv, {"--out", "--model", "--checkpoint", "--steps", "--ngram"});
  if (!f || !f->contains("--out") || !f->contains("--model")) {
    fmt::print(stderr,
               "usage: {} --train-long --out PREFIX --model FILE "
               "[--checkpoint FILE] [--steps S] [--ngram WEIGHTS]{}\n",
               argv[0], f ? "" : "\n" + f.error());
    return 2;
  }
  // Large tensors are freed and allocated again every step: keep them in the heap
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  RunSettings settings = long_settings();
  if (f->contains("--steps")) {
    const std::string& text = f->at("--steps");
    const auto [end, ec] =
        std::from_chars(text.data(), text.data() + text.size(), settings.steps);
    if (ec != std::errc() || end != text.data() + text.size() || settings.steps == 0) {
      fmt::print(stderr, "train: --steps wants a positive whole number, not '{}'\n",
                 text);
      return 2;
    }
  }
  const auto corpus = load_corpus(0);
  if (!corpus) {
    fmt::print(stderr, "train: {}\n", corpus.error());
    return 1;
  }
  // Chapter 23's long run, for the test table's n-gram row (make train-ngram writes it)
  std::optional<llmfs::models::NgramMlp> ngram;
  if (f->contains("--ngram")) {
    auto loaded = llmfs::models::load_ngram_weights(f->at("--ngram"));
    if (!loaded) {
      fmt::print(stderr, "train: {}\n", loaded.error());
      return 1;
    }
    if (loaded->config().vocab_size != corpus->tokenizer->vocab_size()) {
      fmt::print(stderr, "train: {} has V = {}, the tokenizer {}\n", f->at("--ngram"),
                 loaded->config().vocab_size, corpus->tokenizer->vocab_size());
      return 1;
    }
    ngram.emplace(std::move(*loaded));
  }
  const std::string prefix = f->at("--out");
  const std::string header = fmt::format(
      R"({{"kind":"config","V":{},"d":{},"h":{},"N":{},"d_ff":{},"T":{},"B":{},)"
      R"("steps":{},"every":{},"peak":{},"floor":{},"warmup":{},"clip":{},"seed":{},)"
      R"("train_tokens":{},"validation_tokens":{},"validation_bytes":{}}})",
      settings.model.vocab_size, settings.model.model_width, settings.model.heads,
      settings.model.layers, settings.model.hidden_width, settings.model.context_length,
      settings.batch, settings.steps, settings.every, settings.peak, settings.floor,
      settings.warmup, kClip, kSeed, corpus->train.tokens, corpus->validation.tokens,
      corpus->validation.bytes);
  llmfs::training::TrainingMonitor monitor(header, prefix + "-train.jsonl",
                                           llmfs::training::stderr_is_terminal());
  const auto result =
      run_pipeline(settings, *corpus, &monitor,
                   f->contains("--checkpoint") ? f->at("--checkpoint") : std::string(),
                   f->at("--model"), ngram ? &*ngram : nullptr);
  if (!result) {
    fmt::print(stderr, "train: {}\n", result.error());
    return 1;
  }
  const auto a = llmfs::write_file_atomically(prefix + "-summary.json",
                                              summary_json(*result, settings));
  const auto b = llmfs::write_file_atomically(prefix + "-samples.tsv",
                                              samples_text(result->samples));
  if (!a || !b) {
    fmt::print(stderr, "train: cannot write the summary or the samples\n");
    return 1;
  }
  fmt::print(
      "parameters {}; {} steps in {:.0f} s ({:.0f} s CPU); selected step {}; "
      "validation {:.4f} bits/byte over every token; test: ",
      result->parameters, settings.steps, result->train_wall_seconds,
      result->train_cpu_seconds, result->run.selected.step(), result->validation_bpb);
  for (const auto& row : result->table)
    fmt::print("{} {:.4f}  ", row.name, row.metrics.bits_per_byte);
  fmt::print("\n");
  return 0;
}

int generate_cli(int argc, char** argv) {
  const auto f = flags(argc, argv,
                       {"--model", "--prompt", "--tokens", "--temperature", "--top-k",
                        "--greedy", "--seed"});
  if (!f || !f->contains("--model")) {
    fmt::print(stderr,
               "usage: {} --generate --model FILE [--prompt TEXT] [--tokens N] "
               "[--temperature T] [--top-k K] [--greedy] [--seed S]{}\n",
               argv[0], f ? "" : "\n" + f.error());
    return 2;
  }
  const auto corpus_tokenizer = load_tokenizer();
  if (!corpus_tokenizer) {
    fmt::print(stderr, "generate: {}\n", corpus_tokenizer.error());
    return 1;
  }
  const auto model = load_model(f->at("--model"), **corpus_tokenizer);
  if (!model) {
    fmt::print(stderr, "generate: {}\n", model.error());
    return 1;
  }
  llmfs::generation::SamplingConfig settings;
  std::size_t tokens = 100;
  std::uint64_t seed = kSampleSeed;
  try {
    if (f->contains("--temperature"))
      settings.temperature = std::stod(f->at("--temperature"));
    if (f->contains("--top-k")) settings.top_k = std::stoul(f->at("--top-k"));
    if (f->contains("--tokens")) tokens = std::stoul(f->at("--tokens"));
    if (f->contains("--seed")) seed = std::stoull(f->at("--seed"));
  } catch (const std::exception&) {
    fmt::print(stderr, "generate: a number option is not a number\n");
    return 2;
  }
  if (f->contains("--greedy")) settings.decoding = llmfs::generation::Decoding::greedy;
  const bool interactive = !f->contains("--prompt");
  std::string prompt = interactive ? std::string() : f->at("--prompt");
  for (;;) {
    if (interactive) {
      if (isatty(STDIN_FILENO) != 0) fmt::print(stderr, "prompt> ");
      if (!std::getline(std::cin, prompt)) return 0;
    }
    const auto ids =
        generate(*model, **corpus_tokenizer, prompt, tokens, settings, seed);
    if (!ids) {
      fmt::print(stderr, "generate: {}\n", ids.error());
      if (!interactive) return 1;
      continue;
    }
    fmt::print("{}{}\n", prompt, continuation_text(**corpus_tokenizer, *ids));
    std::fflush(stdout);
    if (!interactive) return 0;
  }
}

}  // namespace ch39
