// Chapter 21's claims: the fixture's values derived by hand in
// chapters/21-mini-batches.md, the shuffles and batch losses against plain Python and
// PyTorch float64 (tests/reference/data/training/ch21_batches.txt,
// make_batches_reference.py), the refusals and the exercises.

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/training/batches.hpp>

#include "evidence.hpp"
#include "support/records.hpp"

namespace {

using namespace llmfs::training;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

const ch21::Evidence& ch21_evidence() {
  static const ch21::Evidence e = [] {
    auto gathered = ch21::gather();
    EXPECT_TRUE(gathered.has_value());
    return gathered.value_or(ch21::Evidence{});
  }();
  return e;
}

template <class T>
std::vector<T> ch21_numbers(const std::string& text) {
  std::vector<T> out;
  std::istringstream parts(text);
  for (std::string item; std::getline(parts, item, ',');)
    out.push_back(static_cast<T>(std::stod(item)));
  return out;
}

// A known step costs ln(15/8), any other ln 8: examples 1 and 2 are two known steps,
// the other four one of each.
const double kKnown = std::log(15.0 / 8.0);
const double kMixed = (std::log(8.0) + kKnown) / 2;

TEST(Fixture, ExampleLossesMatchTheHandDerivation) {
  const auto& f = ch21_evidence().fixture;
  ASSERT_EQ(f.example_loss.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i)
    EXPECT_NEAR(f.example_loss[i], i == 1 || i == 2 ? kKnown : kMixed, 1e-15) << i;
  EXPECT_EQ(f.example_rows[1].inputs.ids, (std::vector<llmfs::text::TokenId>{2, 3}));
  EXPECT_EQ(f.example_rows[1].targets.ids, (std::vector<llmfs::text::TokenId>{3, 4}));
}

TEST(Fixture, PositionMeanIgnoresTheShuffleAndTheMeanOfBatchesDoesNot) {
  const auto& f = ch21_evidence().fixture;
  ASSERT_EQ(f.epochs.size(), 2u);
  EXPECT_EQ(f.epochs[0].order, (std::vector<std::size_t>{3, 1, 5, 0, 2, 4}));
  // Epoch 0: [3,1,5,0] = 3 mixed + 1 known, [2,4] = 1 known + 1 mixed.
  EXPECT_NEAR(f.epochs[0].mean_of_batches,
              ((3 * kMixed + kKnown) / 4 + (kKnown + kMixed) / 2) / 2, 1e-15);
  // Every position once: 4 mixed and 2 known examples of 2 positions each.
  for (const auto& epoch : f.epochs)
    EXPECT_NEAR(epoch.position_mean, (4 * kMixed + 2 * kKnown) / 6, 1e-15);
  EXPECT_NE(f.epochs[0].mean_of_batches, f.epochs[1].mean_of_batches);
  EXPECT_TRUE(f.check.passed());
}

TEST(Reference, BoundedDrawsAndOrdersMatchPlainPython) {
  std::size_t bounded_lines = 0, order_lines = 0;
  for (const auto& r : llmfs::testing::read_keyed_records(
           "tests/reference/data/training/ch21_batches.txt")) {
    if (r.kind == "BOUNDED") {
      llmfs::SplitMix64 rng(std::stoull(r.fields.at("seed")));
      const std::uint64_t n = std::stoull(r.fields.at("n"));
      std::istringstream want(r.fields.at("draws"));
      for (std::string item; std::getline(want, item, ',');)
        EXPECT_EQ(bounded(rng, n), std::stoull(item)) << "n=" << n;
      ++bounded_lines;
    } else if (r.kind == "ORDER") {
      const auto order = epoch_order(std::stoull(r.fields.at("count")),
                                     std::stoull(r.fields.at("seed")),
                                     std::stoull(r.fields.at("epoch")));
      EXPECT_EQ(order, ch21_numbers<std::size_t>(r.fields.at("order")));
      ++order_lines;
    }
  }
  EXPECT_EQ(bounded_lines, 6u);
  EXPECT_EQ(order_lines, 8u);
}

TEST(Reference, BatchesLossesAndGradientsMatchPyTorchFloat64) {
  std::vector<std::vector<llmfs::text::TokenId>> sequences;
  Tensor table;
  std::size_t batches = 0;
  std::vector<double> losses;
  std::vector<std::size_t> positions;
  for (const auto& r : llmfs::testing::read_keyed_records(
           "tests/reference/data/training/ch21_batches.txt")) {
    if (r.kind == "SEQUENCE")
      sequences.push_back(ch21_numbers<llmfs::text::TokenId>(r.fields.at("ids")));
    if (r.kind == "TABLE")
      table = Tensor::from(Shape{6, 6}, ch21_numbers<double>(r.fields.at("values")))
                  .value();
    if (r.kind == "BATCH") {
      const llmfs::text::WindowConfig windows{3, 2};
      const auto examples = llmfs::text::make_examples(sequences, windows).value();
      const auto order =
          epoch_order(examples.size(), 21, std::stoull(r.fields.at("epoch")));
      const auto batch = make_batch(sequences, examples, order,
                                    std::stoull(r.fields.at("index")), {4}, windows)
                             .value();
      EXPECT_EQ(batch.examples, ch21_numbers<std::size_t>(r.fields.at("examples")));
      EXPECT_EQ(batch.inputs.ids,
                ch21_numbers<llmfs::text::TokenId>(r.fields.at("inputs")));
      EXPECT_EQ(batch.targets.ids,
                ch21_numbers<llmfs::text::TokenId>(r.fields.at("targets")));
      const auto loss = ch21::batch_loss(batch);
      const double value = llmfs::autograd::evaluate_loss(loss, std::span(&table, 1))
                               .value()
                               .values()[0];
      EXPECT_NEAR(value, r.number("loss"), 1e-13 * r.number("loss"));
      const auto gradient =
          llmfs::autograd::tape_gradients(loss, std::span(&table, 1)).value();
      const auto want = ch21_numbers<double>(r.fields.at("gradient"));
      for (std::size_t k = 0; k < want.size(); ++k)
        EXPECT_NEAR(gradient[0].values()[k], want[k], 1e-13);
      losses.push_back(value);
      positions.push_back(batch.inputs.ids.size());
      ++batches;
    }
    if (r.kind == "EPOCH") {
      EXPECT_NEAR(position_weighted_mean(losses, positions), r.number("all_positions"),
                  1e-13);
      losses.clear();
      positions.clear();
    }
  }
  EXPECT_EQ(batches, 6u);
}

TEST(Refusals, EachNamesItsCode) {
  const auto& errors = ch21_evidence().errors;
  ASSERT_EQ(errors.size(), 6u);
  EXPECT_EQ(errors[0][1], "batch plan: batch size is zero (B=0)");
  EXPECT_NE(errors[5][1].find("stride leaves gaps"), std::string::npos);
  for (const auto& [name, text] : errors)
    EXPECT_NE(text, "accepted") << name;
}

TEST(Exercises, AnswersMatchTheirDerivations) {
  const auto& e = ch21_evidence();
  const auto& x = e.exercises;
  EXPECT_EQ(x.dropped[0], (std::vector<std::size_t>{2, 4}));
  EXPECT_EQ(x.batches_b64, (e.corpus.examples + 63) / 64);
  EXPECT_EQ(x.last_rows_b64, e.corpus.examples % 64);
  EXPECT_EQ(x.threshold, std::uint64_t{1} << 62);  // 2⁶⁴ − 3·2⁶² = 2⁶²
  EXPECT_NEAR(x.mean_draws, 4.0 / 3.0, 0.01);      // rejection probability 1/4
  EXPECT_EQ(e.bias.byte_residues, (std::array<int, 3>{86, 85, 85}));
  EXPECT_NEAR(e.bias.modulo_below, 0.5, 0.01);
  EXPECT_NEAR(e.bias.lemire_below, 1.0 / 3, 0.01);
  EXPECT_TRUE(e.corpus.same_seed_same_order);
}

}  // namespace
