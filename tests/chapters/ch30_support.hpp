#pragma once
// Shared by chapter 30's tests: the gathered evidence (computed once), six-decimal
// comparison with the seed's printed numbers, and a plain-loop reference of the fixture
// layer written from the chapter's formulas, independent of llmfs.

#include <algorithm>
#include <array>
#include <cmath>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/report/format.hpp>

#include "evidence.hpp"

namespace ch30_test {

/// The program's evidence, gathered once per test binary.
inline const ch30::Evidence& evidence() {
  static const ch30::Evidence gathered = [] {
    auto result = ch30::gather_evidence();
    if (!result) throw std::runtime_error(fmt::format("{}", result.error()));
    return *result;
  }();
  return gathered;
}

/// Every value, printed with six decimals, equals the seed's printed number.
inline void expect_printed(std::span<const double> actual,
                           const std::vector<std::string>& seed,
                           const std::string& what) {
  ASSERT_EQ(actual.size(), seed.size()) << what;
  for (std::size_t i = 0; i < seed.size(); ++i)
    EXPECT_EQ(llmfs::report::format_number(actual[i]), seed[i])
        << what << " index " << i;
}

/// Every value within `tolerance` of the expected one.
inline void expect_close(std::span<const double> actual,
                         std::span<const double> expected, double tolerance,
                         const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (std::isinf(expected[i])) {
      EXPECT_EQ(actual[i], expected[i]) << what << " index " << i;
    } else {
      EXPECT_NEAR(actual[i], expected[i], tolerance) << what << " index " << i;
    }
  }
}

using Matrix4 = std::array<double, 16>;  // [in, out], row-major

/// A fixture matrix as plain values.
inline Matrix4 plain(const llmfs::tensor::Tensor& matrix) {
  Matrix4 m{};
  std::ranges::copy(matrix.values(), m.begin());
  return m;
}

/// What the plain-loop layer computes for a [T,4] input: weights [2][T][T], head
/// outputs [2][T][2], output [T][4].
struct NaiveResult {
  std::vector<double> weights;
  std::vector<double> head_outputs;
  std::vector<double> output;
};

/// The chapter's formulas with loops: Q=XW_Q, K=XW_K, V=XW_V; two heads of width 2;
/// RoPE with one frequency θ_0 = base^0 = 1, so position p turns a pair by p radians;
/// scores QKᵀ/√2; causal softmax; H = A·V; y = Concat(H)·W_O.
inline NaiveResult naive_layer(const std::vector<double>& x, std::size_t offset,
                               const Matrix4& wq = plain(ch30::identity()),
                               const Matrix4& wk = plain(ch30::identity()),
                               const Matrix4& wv = plain(ch30::identity()),
                               const Matrix4& wo = plain(ch30::block_swap())) {
  const std::size_t tokens = x.size() / 4;
  auto project = [&](const Matrix4& w) {
    std::vector<double> out(tokens * 4, 0.0);
    for (std::size_t t = 0; t < tokens; ++t)
      for (std::size_t o = 0; o < 4; ++o)
        for (std::size_t i = 0; i < 4; ++i)
          out[t * 4 + o] += x[t * 4 + i] * w[i * 4 + o];
    return out;
  };
  auto rotate = [&](std::vector<double> rows) {
    for (std::size_t t = 0; t < tokens; ++t) {
      const double angle = static_cast<double>(offset + t);
      for (std::size_t pair = 0; pair < 2; ++pair) {
        const double a = rows[t * 4 + 2 * pair], b = rows[t * 4 + 2 * pair + 1];
        rows[t * 4 + 2 * pair] = a * std::cos(angle) - b * std::sin(angle);
        rows[t * 4 + 2 * pair + 1] = a * std::sin(angle) + b * std::cos(angle);
      }
    }
    return rows;
  };
  const auto q = rotate(project(wq)), k = rotate(project(wk)), v = project(wv);
  NaiveResult r{std::vector<double>(2 * tokens * tokens, 0.0),
                std::vector<double>(2 * tokens * 2, 0.0),
                std::vector<double>(tokens * 4, 0.0)};
  std::vector<double> merged(tokens * 4, 0.0);
  for (std::size_t h = 0; h < 2; ++h) {
    for (std::size_t i = 0; i < tokens; ++i) {
      std::vector<double> scores(i + 1);
      double top = -INFINITY;
      for (std::size_t j = 0; j <= i; ++j) {
        scores[j] = (q[i * 4 + 2 * h] * k[j * 4 + 2 * h] +
                     q[i * 4 + 2 * h + 1] * k[j * 4 + 2 * h + 1]) /
                    std::sqrt(2.0);
        top = std::max(top, scores[j]);
      }
      double total = 0.0;
      for (double& s : scores)
        total += (s = std::exp(s - top));
      for (std::size_t j = 0; j <= i; ++j) {
        const double a = scores[j] / total;
        r.weights[(h * tokens + i) * tokens + j] = a;
        for (std::size_t f = 0; f < 2; ++f)
          r.head_outputs[(h * tokens + i) * 2 + f] += a * v[j * 4 + 2 * h + f];
      }
      for (std::size_t f = 0; f < 2; ++f)
        merged[i * 4 + 2 * h + f] = r.head_outputs[(h * tokens + i) * 2 + f];
    }
  }
  for (std::size_t t = 0; t < tokens; ++t)
    for (std::size_t o = 0; o < 4; ++o)
      for (std::size_t i = 0; i < 4; ++i)
        r.output[t * 4 + o] += merged[t * 4 + i] * wo[i * 4 + o];
  return r;
}

/// A fixture tensor as plain values.
inline std::vector<double> values_of(const llmfs::tensor::Tensor& t) {
  return {t.values().begin(), t.values().end()};
}

/// The fixture input as plain values.
inline std::vector<double> fixture_values() {
  return values_of(ch30::fixture_input());
}

}  // namespace ch30_test
