// Chapter 23
// The long run behind `--train-long --log FILE [--steps N]` (make train-ngram): the
// demo's model and seed with larger batches and more steps, scored on every token of
// the validation partition. Progress goes to stderr only when stderr is a terminal; the
// log is JSON lines, appended and flushed line by line to FILE.partial and renamed to
// FILE when the run ends, so FILE is only ever a whole log.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string_view>

#include "evidence.hpp"

#include <unistd.h>

namespace ch23 {

namespace {

struct Options {
  std::string log;
  std::size_t steps = kLongSteps;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (flag == "--log") o.log = argv[i + 1];
    if (flag == "--steps") o.steps = std::stoul(argv[i + 1]);
  }
  return o;
}

}  // namespace

int train_long(int argc, char** argv) {
  const Options options = parse(argc, argv);
  if (options.log.empty() || options.steps == 0) {
    fmt::print(stderr, "usage: {} --train-long --log FILE [--steps N]\n", argv[0]);
    return 2;
  }
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
      "\"steps\":{},\"lr\":{},\"weight_decay\":{},\"seed\":{},\"train_examples\":{},"
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
  const auto curve = train(*corpus, corpus->validation, corpus->validation_bytes,
                           kLongBatch, options.steps, kLongEvery, on_point, on_step);
  if (!curve) {
    std::fclose(log);
    fmt::print(stderr, "train-long: {}\n", curve.error());
    return 1;
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
