// Chapter 18 against PyTorch float64 (tests/reference/data/nn/ch18_embedding.txt,
// written by make_embedding_reference.py): the table nn::Embedding::create draws, the
// lookup and the table's gradient of sum(embedding(ids, E) ⊙ weights).

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/nn/embedding.hpp>

#include "support/records.hpp"

namespace {

using llmfs::SplitMix64;
using llmfs::autograd::Tape;
using llmfs::autograd::TokenGrid;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

std::vector<double> ch18_numbers(const std::string& text) {
  std::vector<double> out;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    out.push_back(std::stod(item));
  return out;
}

void ch18_expect_near(std::span<const double> got, const std::vector<double>& want,
                      const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-13 * (1 + std::abs(want[i]))) << what << " " << i;
}

TEST(Reference, CreateForwardAndBackwardMatchTorch) {
  const auto records =
      llmfs::testing::read_keyed_records("tests/reference/data/nn/ch18_embedding.txt");
  ASSERT_EQ(records.size(), 2u);
  for (const auto& r : records) {
    const auto vocab = static_cast<std::size_t>(r.number("vocab"));
    const auto width = static_cast<std::size_t>(r.number("width"));
    const std::vector<double> ids_shape = ch18_numbers(r.fields.at("ids_shape"));
    const auto b = static_cast<std::size_t>(ids_shape[0]);
    const auto t = static_cast<std::size_t>(ids_shape[1]);
    Tape tape;
    SplitMix64 rng(std::stoull(r.fields.at("seed")));
    const auto layer = llmfs::nn::Embedding::create(tape, "tok", vocab, width, rng);
    ASSERT_TRUE(layer.has_value());
    ch18_expect_near(layer->table().value.value()->values(),
                     ch18_numbers(r.fields.at("table")), "table");
    TokenGrid grid{b, t, {}};
    for (const double id : ch18_numbers(r.fields.at("ids")))
      grid.ids.push_back(static_cast<int>(id));
    const auto out = layer->forward(grid);
    ASSERT_TRUE(out.has_value());
    ch18_expect_near(out->value()->values(), ch18_numbers(r.fields.at("value")),
                     "value");
    const Tensor weights =
        *Tensor::from(Shape{b, t, width}, ch18_numbers(r.fields.at("weights")));
    ASSERT_TRUE(backward(*out, weights).has_value());
    ch18_expect_near(layer->table().value.gradient()->values(),
                     ch18_numbers(r.fields.at("gradient")), "gradient");
  }
}

}  // namespace
