// Chapter 17 against an independent reference (tests/reference/data/nn/ch17_init.txt,
// written by make_init_reference.py): SplitMix64 and every draw recomputed in Python's
// math module, and the variance through a stack of random layers in PyTorch float64.

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/core/splitmix64.hpp>
#include <llmfs/nn/init.hpp>
#include <llmfs/tensor/matmul.hpp>

#include "support/records.hpp"

namespace {

using llmfs::SplitMix64;
using llmfs::nn::Distribution;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

std::vector<double> ch17_numbers(const std::string& text) {
  std::vector<double> out;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    out.push_back(std::stod(item));
  return out;
}

std::vector<llmfs::testing::KeyedRecord> ch17_records(const std::string& kind) {
  std::vector<llmfs::testing::KeyedRecord> out;
  for (auto& r :
       llmfs::testing::read_keyed_records("tests/reference/data/nn/ch17_init.txt"))
    if (r.kind == kind) out.push_back(r);
  return out;
}

double ch17_variance(std::span<const double> values) {
  double sum = 0.0, squares = 0.0;
  for (const double v : values)
    sum += v;
  const double mean = sum / static_cast<double>(values.size());
  for (const double v : values)
    squares += (v - mean) * (v - mean);
  return squares / static_cast<double>(values.size());
}

TEST(Reference, SplitMix64OutputsAreThePythonOnes) {
  const auto records = ch17_records("SPLITMIX");
  ASSERT_EQ(records.size(), 1u);
  SplitMix64 rng(std::stoull(records[0].fields.at("seed")));
  std::istringstream in(records[0].fields.at("outputs"));
  std::size_t count = 0;
  for (std::string item; std::getline(in, item, ','); ++count)
    EXPECT_EQ(rng.next_u64(), std::stoull(item));
  EXPECT_EQ(count, 5u);
}

TEST(Reference, EveryDrawMatchesPython) {
  const auto records = ch17_records("DRAW");
  ASSERT_EQ(records.size(), 5u);
  for (const auto& r : records) {
    const auto fan_in = static_cast<std::size_t>(r.number("fan_in"));
    const auto fan_out = static_cast<std::size_t>(r.number("fan_out"));
    const Distribution d = r.fields.at("distribution") == "uniform"
                               ? Distribution::uniform
                               : Distribution::normal;
    const auto scheme = r.fields.at("rule") == "lecun"
                            ? llmfs::nn::lecun(fan_in, d)
                            : llmfs::nn::xavier(fan_in, fan_out, d);
    ASSERT_TRUE(scheme.has_value());
    EXPECT_NEAR(scheme->std_dev, r.number("std"), 1e-16) << r.fields.at("name");
    const std::vector<double> shape = ch17_numbers(r.fields.at("shape"));
    SplitMix64 rng(std::stoull(r.fields.at("seed")));
    const auto drawn = llmfs::nn::draw(
        Shape{static_cast<std::size_t>(shape[0]), static_cast<std::size_t>(shape[1])},
        *scheme, rng);
    ASSERT_TRUE(drawn.has_value());
    const std::vector<double> want = ch17_numbers(r.fields.at("values"));
    ASSERT_EQ(drawn->values().size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(drawn->values()[i], want[i], 1e-15 * (1 + std::abs(want[i])))
          << r.fields.at("name") << " element " << i;
  }
}

TEST(Reference, StackVariancesMatchTorch) {
  const auto records = ch17_records("STACK");
  ASSERT_EQ(records.size(), 3u);
  for (const auto& r : records) {
    const auto rows = static_cast<std::size_t>(r.number("rows"));
    const auto width = static_cast<std::size_t>(r.number("width"));
    const auto depth = static_cast<std::size_t>(r.number("depth"));
    SplitMix64 input(17), weights(1717);
    Tensor x = *llmfs::nn::draw({rows, width}, {Distribution::normal, 1.0}, input);
    const double std_dev =
        r.number("gain") * llmfs::nn::lecun(width, Distribution::normal)->std_dev;
    std::vector<double> got = {ch17_variance(x.values())};
    for (std::size_t k = 0; k < depth; ++k) {
      const Tensor w =
          *llmfs::nn::draw({width, width}, {Distribution::normal, std_dev}, weights);
      x = *llmfs::tensor::matmul(x, w);
      got.push_back(ch17_variance(x.values()));
    }
    const std::vector<double> want = ch17_numbers(r.fields.at("variances"));
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t k = 0; k < want.size(); ++k)
      EXPECT_NEAR(got[k], want[k], 1e-12 * want[k])
          << "gain " << r.number("gain") << " layer " << k;
  }
}

}  // namespace
