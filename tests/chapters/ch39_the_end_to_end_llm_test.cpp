// Chapter 39's claims: every validation token scored once (against a position-by-
// position recount), the model file's round trip and its refusals, generation's
// documented behaviours (empty prompt, past the context) and refusals, the demo run
// (repeatable bit for bit, its table consistent with Chapter 7's formulas), and the
// committed model of the long run against PyTorch float64 on a validation document.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include <llmfs/autograd/model_ops.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/text/merges_file.hpp>
#include <llmfs/training/decoder_loss.hpp>

#include "evidence.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace models = llmfs::models;

// A random model of the demo's sizes (its seed), and the first documents of the corpus.
const ch39::Corpus& small_corpus() {
  static const ch39::Corpus c = ch39::load_corpus(2).value();
  return c;
}

ch39::TrainedModel random_model() {
  const auto m = models::DecoderModel::create(ch39::kDemoModel).value();
  auto config = ch39::kDemoModel;
  config.seed = 0;
  return {config, m.values().value(), 7};
}

TEST(EveryToken, ScoresEachPredictedTokenOnceAsAPositionByPositionRecount) {
  const auto& corpus = small_corpus();
  const auto model = random_model();
  const auto scored =
      ch39::score_every_token(model.config, model.values, corpus.validation, 3).value();
  EXPECT_EQ(scored.tokens, corpus.validation.tokens);
  // Recount: each window of T every T (the last shorter) alone, summing −ln p by hand
  // from the logits of one forward pass per window
  auto decoder = models::DecoderModel::from_values(model.config, model.values).value();
  double total = 0.0;
  std::size_t count = 0;
  const std::size_t T = model.config.context_length, V = model.config.vocab_size;
  for (const auto& s : corpus.validation.sequences)
    for (std::size_t start = 0; start + 1 < s.size(); start += T) {
      const std::size_t width = std::min(T, s.size() - 1 - start);
      const llmfs::autograd::TokenGrid ids{
          1, width, {s.begin() + start, s.begin() + start + width}};
      ASSERT_TRUE(decoder.reset_tape().has_value());
      const auto logits = decoder.forward(ids).value().value().value();
      for (std::size_t t = 0; t < width; ++t) {
        const auto row = logits.values().subspan(t * V, V);
        double m = row[0];
        for (double z : row)
          m = std::max(m, z);
        double sum = 0.0;
        for (double z : row)
          sum += std::exp(z - m);
        total += std::log(sum) + m - row[static_cast<std::size_t>(s[start + t + 1])];
        ++count;
      }
    }
  EXPECT_EQ(count, scored.tokens);
  EXPECT_NEAR(scored.total, total, 1e-9 * total);
}

TEST(ModelFile, RoundTripsAndRefusesAnotherTokenizerOrAMisshapenFile) {
  const auto dir = llmfs::test::make_temp_dir("ch39-model");
  const auto& tokenizer = *small_corpus().tokenizer;
  const auto model = random_model();
  ASSERT_TRUE(ch39::save_model(dir / "m.safetensors", model, tokenizer).has_value());
  const auto back = ch39::load_model(dir / "m.safetensors", tokenizer).value();
  EXPECT_EQ(back.config, model.config);
  EXPECT_EQ(back.step, 7u);
  EXPECT_EQ(back.values, model.values);
  // Another tokenizer: refused before any number is read
  const auto fewer =
      llmfs::text::Tokenizer::create(
          {{tokenizer.merges().merges.begin(), tokenizer.merges().merges.begin() + 10}})
          .value();
  const auto other = ch39::load_model(dir / "m.safetensors", fewer);
  ASSERT_FALSE(other.has_value());
  EXPECT_EQ(other.error().code, ch39::GenerateErrorCode::other_tokenizer);
  // A file whose configuration says d = 64 but holds d = 32 tensors
  auto wider = model;
  wider.config.model_width = 64;
  wider.config.hidden_width = 128;
  auto file = llmfs::training::load_tensor_file(dir / "m.safetensors").value();
  file.metadata["config.d"] = "64";
  ASSERT_TRUE(
      llmfs::training::save_tensor_file(dir / "bad.safetensors", file).has_value());
  const auto bad = ch39::load_model(dir / "bad.safetensors", tokenizer);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ch39::GenerateErrorCode::bad_model_file);
  std::filesystem::remove_all(dir);
}

TEST(Generate, DocumentedBehavioursAndRefusals) {
  const auto& tokenizer = *small_corpus().tokenizer;
  const auto model = random_model();
  const llmfs::generation::SamplingConfig greedy = ch39::kSettings[0];
  // Past T_max: a sliding window, every requested token produced (no EOS drawn here
  // unless the model picks it; the count never exceeds the request)
  const auto long_run =
      ch39::generate(model, tokenizer, "In the", 2 * 32 + 5, greedy, 1);
  ASSERT_TRUE(long_run.has_value());
  EXPECT_LE(long_run->size(), 69u);
  // Empty prompt: a document started from BOS alone, same as no prompt text at all
  EXPECT_TRUE(ch39::generate(model, tokenizer, "", 4, greedy, 1).has_value());
  // Same seed, same tokens; sampled draws reproducible
  const llmfs::generation::SamplingConfig sampled{0.8, 20};
  EXPECT_EQ(ch39::generate(model, tokenizer, "And", 8, sampled, 5).value(),
            ch39::generate(model, tokenizer, "And", 8, sampled, 5).value());
  auto code = [&](std::string_view prompt, std::size_t n,
                  llmfs::generation::SamplingConfig c) {
    const auto r = ch39::generate(model, tokenizer, prompt, n, c, 1);
    return r ? std::string("accepted") : std::string(describe(r.error().code));
  };
  EXPECT_EQ(code("\xc3", 4, greedy), "the prompt is not valid UTF-8");  // truncated
  EXPECT_EQ(code("ok", 0, greedy), "no tokens asked for");
  EXPECT_EQ(code("ok", 4, {0.0}), "a lower stage failed");  // τ = 0: chapter 36
}

TEST(Demo, RepeatableAndItsTableFollowsChapter7) {
  const auto e = ch39::gather().value();
  EXPECT_TRUE(e.repeat_equal);
  EXPECT_TRUE(e.model_file_round_trip);
  const auto& r = e.run;
  EXPECT_EQ(r.validation.tokens, e.corpus_validation_tokens);
  EXPECT_DOUBLE_EQ(r.validation_bpb,
                   r.validation.total / (std::log(2.0) * double(r.validation_bytes)));
  ASSERT_EQ(r.table.size(), 3u);
  EXPECT_NEAR(r.table[0].metrics.cross_entropy, std::log(4096.0), 1e-14);
  for (const auto& row : r.table)
    EXPECT_NEAR(row.metrics.bits_per_byte,
                row.metrics.cross_entropy * double(r.test_tokens) /
                    (std::log(2.0) * double(r.test_bytes)),
                1e-12);
  // The selected step is the one of lowest validation loss (ties to the earlier)
  double best = INFINITY;
  std::size_t step = 0;
  for (const auto& v : r.run.evaluations)
    if (v.validation_loss < best) best = v.validation_loss, step = v.step;
  EXPECT_EQ(r.run.selected.step(), step);
  // Exercises: parameters by the formula of chapter 32, the table's share, bytes/token
  const auto& c = ch39::kDemoModel;
  const std::size_t d = c.model_width, f = c.hidden_width;
  EXPECT_EQ(e.exercises[0],
            double(c.vocab_size * d + c.layers * (2 * d + 4 * d * d + 3 * d * f) + d));
  EXPECT_EQ(e.exercises[1], 4096.0 * 96.0);
  EXPECT_DOUBLE_EQ(e.exercises[2],
                   r.table[2].metrics.bits_per_byte / r.table[1].metrics.bits_per_byte);
  EXPECT_DOUBLE_EQ(e.exercises[3],
                   double(r.validation_bytes) / double(r.validation.tokens));
}

}  // namespace

namespace {

// The committed model against PyTorch float64
// (tests/reference/make_end_to_end_reference.py): every token of the first validation
// document, the summed nats within 1e-9 (relative).
TEST(Reference, CommittedModelMatchesTorchOnAValidationDocument) {
  const std::string root = LLMFS_SOURCE_DIR;
  const auto corpus = ch39::load_corpus(1).value();
  const auto model =
      ch39::load_model(root + "/tools/ch39-kjv-decoder.safetensors", *corpus.tokenizer)
          .value();
  std::ifstream data(root + "/tests/reference/data/models/ch39_end_to_end.txt");
  ASSERT_TRUE(data.good());
  std::size_t tokens = 0;
  double nats = 0.0;
  for (std::string line; std::getline(data, line);) {
    if (line.starts_with("DOCUMENT|"))
      tokens = std::stoul(line.substr(line.find("|tokens=") + 8));
    if (line.starts_with("NATS|total=")) nats = std::stod(line.substr(11));
  }
  ASSERT_GT(tokens, 0u);
  const auto scored =
      ch39::score_every_token(model.config, model.values, corpus.validation, 16)
          .value();
  EXPECT_EQ(scored.tokens, tokens);
  EXPECT_NEAR(scored.total, nats, 1e-9 * nats);
}

}  // namespace

namespace {

// Chapter 39's change to chapter 16's cross-entropy: on a grid large enough to be split
// over two threads (N·V ≥ 262144), the loss and its gradient have exactly the bits of
// chapter 16's sequential formula, computed here row by row in the same order.
TEST(CrossEntropy, LargeGridHasTheSequentialFormulasBits) {
  const std::size_t B = 4, T = 32, V = 4096, N = B * T;
  llmfs::SplitMix64 rng(39);
  std::vector<double> z(N * V);
  for (double& x : z)
    x = 8.0 * rng.next_unit() - 4.0;
  llmfs::autograd::TokenGrid targets{B, T, {}};
  for (std::size_t p = 0; p < N; ++p)
    targets.ids.push_back(static_cast<llmfs::text::TokenId>(rng.next_u64() % V));
  llmfs::autograd::Tape tape;
  const auto logits = tape.parameter(
      llmfs::tensor::Tensor::from(llmfs::tensor::Shape{B, T, V}, z).value());
  const auto loss = llmfs::autograd::cross_entropy(logits, targets).value();
  ASSERT_TRUE(llmfs::autograd::backward(loss, llmfs::tensor::Tensor::scalar(1.0)));
  double total = 0.0;
  std::vector<double> want(N * V);
  for (std::size_t p = 0; p < N; ++p) {
    double m = z[p * V];
    for (std::size_t k = 0; k < V; ++k)
      m = std::max(m, z[p * V + k]);
    double sum = 0.0;
    for (std::size_t k = 0; k < V; ++k)
      sum += std::exp(z[p * V + k] - m);
    const auto t = static_cast<std::size_t>(targets.ids[p]);
    total += std::log(sum) - (z[p * V + t] - m);
    const double scale = 1.0 / static_cast<double>(N);
    for (std::size_t k = 0; k < V; ++k)
      want[p * V + k] = 0.0 + scale * std::exp(z[p * V + k] - m) / sum;
    want[p * V + t] = 0.0 + (scale * std::exp(z[p * V + t] - m) / sum - scale);
  }
  EXPECT_EQ(loss.value().value().values()[0], total / static_cast<double>(N));
  const auto got = logits.gradient().value();
  EXPECT_TRUE(std::ranges::equal(got.values(), want));
}

// The test table's n-gram row: target t of a window is predicted from the window's
// inputs t-2..t, BOS before the window, exactly as Chapter 23 frames a document.
TEST(NgramRow, WindowLossIsChapter23sScoreWithBosBeforeTheWindow) {
  llmfs::SplitMix64 rng(39);
  const models::NgramMlp model = models::NgramMlp::create({9, 3, 2, 4}, rng).value();
  const llmfs::text::TokenId bos = 7, eos = 8;
  const std::vector<std::vector<llmfs::text::TokenId>> docs{
      {1, 4, 2, 2, 6, 0, 3, 5, 1}};
  const auto loss_of = [&](std::vector<llmfs::text::TokenId> in,
                           std::vector<llmfs::text::TokenId> out) {
    const std::size_t T = in.size();
    llmfs::training::Batch batch;
    batch.inputs = {1, T, std::move(in)};
    batch.targets = {1, T, std::move(out)};
    return ch39::ngram_window_loss(model, bos)({}, batch, false).value().loss;
  };
  // A window at the document's start: the first 9 of Chapter 23's rows.
  const auto all = models::ngram_examples(docs, 3, bos, eos);
  const std::vector<std::size_t> first{0, 1, 2, 3, 4, 5, 6, 7, 8};
  const auto want =
      models::score(model, models::select_rows(all, first), 0, 1024).value();
  EXPECT_EQ(loss_of({bos, 1, 4, 2, 2, 6, 0, 3, 5}, {1, 4, 2, 2, 6, 0, 3, 5, 1}),
            want.total_nats / 9.0);
  // A window in the middle: contexts written out by hand.
  const models::NgramBatch mid{{4, 3, {bos, bos, 2, bos, 2, 6, 2, 6, 0, 6, 0, 3}},
                               {4, 1, {6, 0, 3, 5}}};
  const auto mid_want = models::score(model, mid, 0, 1024).value();
  EXPECT_EQ(loss_of({2, 6, 0, 3}, {6, 0, 3, 5}), mid_want.total_nats / 4.0);
  // A token out of the model's range is a ModelFailure naming the n-gram's error.
  llmfs::training::Batch bad;
  bad.inputs = {1, 1, {11}};
  bad.targets = {1, 1, {0}};
  const auto refused = ch39::ngram_window_loss(model, bos)({}, bad, false);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().text.find("out of range"), std::string::npos)
      << refused.error().text;
}

}  // namespace
