// Property tests for the copy-free paths of chapter 42: transpose's block copy, the
// element-wise ops' row loop, scale in one pass and the softmax that skips exp(−∞),
// each against a naive reference, bit for bit, on many seeded random shapes.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/tensor/broadcast.hpp>
#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/softmax.hpp>

#include "support/random_tensor.hpp"

namespace {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::test::all_indices;
using llmfs::test::naive_offset;
using llmfs::test::random_tensor;

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();

// Axis lengths 0..4 (0 rarely), rank 1..5.
std::vector<std::size_t> random_dims(std::mt19937_64& engine, std::size_t rank) {
  std::vector<std::size_t> dims(rank);
  for (auto& d : dims)
    d = engine() % 11 == 0 ? 0 : 1 + engine() % 4;
  return dims;
}

bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

TEST(CopyFreeTranspose, EveryAxisPairMatchesANaiveGather) {
  std::mt19937_64 engine(42);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t rank = 1 + engine() % 5;
    const Shape shape(random_dims(engine, rank));
    const Tensor x = random_tensor(shape, 1000 + trial);
    const std::size_t a = engine() % rank, b = engine() % rank;
    const Tensor y = llmfs::tensor::transpose(x, a, b).value();
    std::vector<std::size_t> dims = shape.as_vector();
    std::swap(dims[a], dims[b]);
    ASSERT_EQ(y.shape(), Shape(dims)) << fmt::format("{} axes {},{}", shape, a, b);
    for (const auto& index : all_indices(dims)) {
      std::vector<std::size_t> source = index;
      std::swap(source[a], source[b]);
      ASSERT_TRUE(same_bits(y.values()[naive_offset(y.shape(), index)],
                            x.values()[naive_offset(shape, source)]))
          << fmt::format("{} axes {},{} at [{}]", shape, a, b, fmt::join(index, ","));
    }
  }
}

TEST(CopyFreeElementwise, RandomBroadcastsMatchNestedLoops) {
  std::mt19937_64 engine(7);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t rank = engine() % 5;  // rank 0 too
    std::vector<std::size_t> out_dims = random_dims(engine, rank);
    // Each operand: a suffix of the result's axes, some of them set to 1.
    auto operand = [&](std::uint64_t seed) {
      const std::size_t drop = rank == 0 ? 0 : engine() % (rank + 1);
      std::vector<std::size_t> dims(out_dims.begin() + drop, out_dims.end());
      for (auto& d : dims)
        if (engine() % 3 == 0) d = 1;
      return random_tensor(Shape(dims), seed);
    };
    const Tensor a = operand(2000 + trial), b = operand(3000 + trial);
    const auto sum = llmfs::tensor::add(a, b).value();
    const auto product = llmfs::tensor::multiply(a, b).value();
    const Shape& shape = sum.shape();
    ASSERT_EQ(product.shape(), shape);
    // The reference: each operand's element by its own index, read from the right.
    auto element = [&](const Tensor& t, const std::vector<std::size_t>& index) {
      std::vector<std::size_t> own;
      const std::size_t lead = index.size() - t.rank();
      for (std::size_t axis = 0; axis < t.rank(); ++axis)
        own.push_back(t.shape()[axis] == 1 ? 0 : index[lead + axis]);
      return t.values()[naive_offset(t.shape(), own)];
    };
    const auto dims = shape.as_vector();
    std::size_t visited = 0;
    for (const auto& index : all_indices(dims)) {
      const std::size_t at = naive_offset(shape, index);
      ASSERT_TRUE(same_bits(sum.values()[at], element(a, index) + element(b, index)));
      ASSERT_TRUE(
          same_bits(product.values()[at], element(a, index) * element(b, index)));
      ++visited;
    }
    EXPECT_EQ(visited, sum.size());
  }
}

TEST(CopyFreeScale, OnePassGivesTheProductOfEveryElement) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Shape shape{seed % 3, seed % 5 + 1, 3};
    const Tensor x = random_tensor(shape, seed);
    const double factor = seed % 2 == 0 ? -0.125 : 1.0 / std::sqrt(double(seed));
    const Tensor y = llmfs::tensor::scale(x, factor).value();
    ASSERT_EQ(y.shape(), shape);
    for (std::size_t i = 0; i < x.size(); ++i)
      ASSERT_TRUE(same_bits(y.values()[i], x.values()[i] * factor));
  }
}

// The softmax as chapter 12 first wrote it: fmax for the maximum, exp on every entry.
std::vector<double> naive_softmax_row(const std::vector<double>& row) {
  double m = kMinusInfinity;
  for (double x : row)
    m = std::fmax(m, x);
  std::vector<double> out(row.size());
  double total = 0.0;
  for (std::size_t j = 0; j < row.size(); ++j) {
    out[j] = std::exp(row[j] - m);
    total += out[j];
  }
  for (double& v : out)
    v /= total;
  return out;
}

TEST(CopyFreeSoftmax, MaskedRowsAndSignedZerosMatchTheFmaxAndExpLoop) {
  std::mt19937_64 engine(99);
  for (int trial = 0; trial < 100; ++trial) {
    const std::size_t rows = 1 + engine() % 6, width = 1 + engine() % 9;
    std::vector<double> values(rows * width);
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t j = 0; j < width; ++j) {
        const auto pick = engine() % 6;
        values[r * width + j] = pick == 0   ? kMinusInfinity
                                : pick == 1 ? 0.0
                                : pick == 2 ? -0.0
                                            : double(engine() % 2001) / 500.0 - 2.0;
      }
      values[r * width + engine() % width] = engine() % 2 ? 0.0 : -0.0;  // one allowed
    }
    const Tensor x = Tensor::from(Shape{rows, width}, values).value();
    const Tensor y = llmfs::tensor::softmax_last_axis(x).value();
    const Tensor log_y = llmfs::tensor::log_softmax_last_axis(x).value();
    for (std::size_t r = 0; r < rows; ++r) {
      const std::vector<double> row(values.begin() + r * width,
                                    values.begin() + (r + 1) * width);
      const auto expected = naive_softmax_row(row);
      double m = kMinusInfinity;
      for (double v : row)
        m = std::fmax(m, v);
      double total = 0.0;
      for (double v : row)
        total += std::exp(v - m);
      for (std::size_t j = 0; j < width; ++j) {
        ASSERT_TRUE(same_bits(y.values()[r * width + j], expected[j]))
            << fmt::format("trial {} row {} entry {}", trial, r, j);
        ASSERT_TRUE(
            same_bits(log_y.values()[r * width + j], (row[j] - m) - std::log(total)))
            << fmt::format("trial {} row {} entry {}", trial, r, j);
      }
    }
  }
}

}  // namespace
