// Chapter 23
// The long run behind `--train-long --log FILE [--steps N] [--weights FILE]` (make
// train-ngram): the demo's model and seed with larger batches and more steps, scored on
// every token of the validation partition; with --weights, the trained model is saved
// (llmfs/models/ngram_weights.hpp) for Chapter 39's final table. Progress goes to
// stderr only when stderr is a terminal; the log is JSON lines, appended and flushed
// line by line to FILE.partial and renamed to FILE when the run ends, so FILE is only
// ever a whole log.
#include <charconv>
#include <chrono>
#include <cstdio>
#include <expected>
#include <filesystem>
#include <optional>
#include <string_view>

#include <llmfs/models/ngram_weights.hpp>

#include "evidence.hpp"

#include <unistd.h>

namespace ch23 {

namespace {

struct Options {
  std::string log;
  std::string weights;  // empty: not saved
  std::size_t steps = kLongSteps;
};

// `--log FILE`, `--steps N` and `--weights FILE` in any order after `--train-long`;
// anything else, a missing value or a count that is not a positive decimal number is
// refused by name.
[[nodiscard]] std::expected<Options, std::string> parse(int argc, char** argv) {
  Options o;
  for (int i = 2; i < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) return std::unexpected(fmt::format("{} needs a value", flag));
    const std::string_view value = argv[i + 1];
    if (flag == "--log") {
      o.log = value;
    } else if (flag == "--weights") {
      o.weights = value;
    } else if (flag == "--steps") {
      const auto [end, ec] =
          std::from_chars(value.data(), value.data() + value.size(), o.steps);
      if (ec != std::errc() || end != value.data() + value.size() || o.steps == 0)
        return std::unexpected(
            fmt::format("--steps wants a positive whole number, not '{}'", value));
    } else {
      return std::unexpected(fmt::format("unknown option '{}'", flag));
    }
  }
  if (o.log.empty()) return std::unexpected(std::string("--log FILE is required"));
  return o;
}

}  // namespace

int train_long(int argc, char** argv) {
  const auto parsed = parse(argc, argv);
  if (!parsed) {
    fmt::print(
        stderr,
        "train-long: {}\nusage: {} --train-long --log FILE [--steps N] [--weights "
        "FILE]\n",
        parsed.error(), argv[0]);
    return 2;
  }
  const Options& options = *parsed;
  const auto corpus = corpus_examples();
  if (!corpus) {
    fmt::print(stderr, "train-long: {}\n", corpus.error());
    return 1;
  }
  const std::string partial = options.log + ".partial";
  std::FILE* log = std::fopen(partial.c_str(), "w");
  if (log == nullptr) {
    fmt::print(stderr, "train-long: cannot write {}\n", partial);
    return 1;
  }
  const bool tty = isatty(STDERR_FILENO) != 0;
  const auto start = std::chrono::steady_clock::now();
  const auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
        .count();
  };
  fmt::print(
      log,
      "{{\"kind\":\"config\",\"V\":{},\"n\":{},\"d\":{},\"h\":{},\"batch\":{},"
      "\"steps\":{},\"lr\":{},\"lr_schedule\":\"linear decay to "
      "lr/steps\",\"weight_decay\":{},\"seed\":{},\"train_examples\":{},"
      "\"validation_examples\":{},\"validation_bytes\":{},\"bigram_bpb\":{:.6f}}}\n",
      corpus->vocab, kContext, kEmbedding, kHidden, kLongBatch, options.steps,
      kHyper.learning_rate, kWeightDecay, kSeed, corpus->train.targets.batch,
      corpus->validation.targets.batch, corpus->validation_bytes,
      corpus->bigram_validation_bpb);
  std::fflush(log);
  const auto on_point = [&](const CurvePoint& p) {
    fmt::print(
        log,
        "{{\"kind\":\"eval\",\"step\":{},\"train_loss\":{:.6f},"
        "\"validation_loss\":{:.6f},\"validation_bpb\":{:.6f},\"seconds\":{:.1f}}}\n",
        p.step, p.train_loss, p.validation_loss, p.validation_bpb, seconds());
    std::fflush(log);
    if (tty)
      fmt::print(stderr, "\nstep {:>6}: validation {:.4f} nats, {:.4f} bits/byte\n",
                 p.step, p.validation_loss, p.validation_bpb);
  };
  const auto on_step = [&](std::size_t step, double loss) {
    if (!tty || (step % 10 != 0 && step != options.steps)) return;
    const double s = seconds();
    const double rate = static_cast<double>(step * kLongBatch) / s;
    const double eta =
        s / static_cast<double>(step) * static_cast<double>(options.steps - step);
    fmt::print(stderr, "\rstep {}/{}  loss {:.4f}  {:.0f} tokens/s  ETA {:.0f} s   ",
               step, options.steps, loss, rate, eta);
  };
  std::optional<llmfs::models::NgramMlp> trained;
  const auto curve =
      train(*corpus, corpus->validation, corpus->validation_bytes, kLongBatch,
            options.steps, kLongEvery, true, on_point, on_step, &trained);
  if (!curve) {
    std::fclose(log);
    fmt::print(stderr, "train-long: {}\n", curve.error());
    return 1;
  }
  if (!options.weights.empty()) {
    if (auto saved = llmfs::models::save_ngram_weights(options.weights, *trained);
        !saved) {
      std::fclose(log);
      fmt::print(stderr, "train-long: {}\n", saved.error());
      return 1;
    }
  }
  fmt::print(log,
             "{{\"kind\":\"final\",\"validation_bpb\":{:.6f},\"bigram_bpb\":{:.6f},"
             "\"seconds\":{:.1f}}}\n",
             curve->back().validation_bpb, corpus->bigram_validation_bpb, seconds());
  std::fclose(log);
  std::filesystem::rename(partial, options.log);
  fmt::print("final_validation_bpb={:.6f} bigram_alpha_0.01={:.6f}\n",
             curve->back().validation_bpb, corpus->bigram_validation_bpb);
  return 0;
}

}  // namespace ch23
