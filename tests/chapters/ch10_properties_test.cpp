// Chapter 10: property tests over many seeded random shapes (ranks 0–4, lengths 0–3
// with many 1s) against naive loops written from the rule, not from the library: an
// output multi-index reads index 0 on an operand's axis of length 1 and skips its
// missing leading axes. Sums add in increasing index order in both, so every comparison
// but the adjoint's is exact.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/tensor/broadcast.hpp>

#include "support/random_tensor.hpp"

namespace {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::tensor::TensorErrorCode;
using Index = std::vector<std::size_t>;

constexpr int kCh10Cases = 300;

// A random shape of rank 0–4, lengths 1–3, sometimes 0.
Shape ch10_random_shape(std::mt19937_64& rng) {
  Index dims(rng() % 5);
  for (auto& d : dims)
    d = rng() % 10 == 0 ? 0 : 1 + rng() % 3;
  return Shape(dims);
}

// A shape that broadcasts to `out`: a suffix of its axes, some lengths replaced by 1.
Shape ch10_operand_for(const Shape& out, std::mt19937_64& rng) {
  const std::size_t drop = out.rank() == 0 ? 0 : rng() % (out.rank() + 1);
  Index dims(out.begin() + static_cast<std::ptrdiff_t>(drop), out.end());
  for (auto& d : dims)
    if (rng() % 3 == 0) d = 1;
  return Shape(dims);
}

// The element of `t` an output index of rank `rank` reads under broadcasting.
double ch10_read(const Tensor& t, const Index& out_index) {
  const std::size_t lead = out_index.size() - t.rank();
  std::size_t offset = 0;
  for (std::size_t axis = 0; axis < t.rank(); ++axis)
    offset =
        offset * t.shape()[axis] + (t.shape()[axis] == 1 ? 0 : out_index[lead + axis]);
  return t.values()[offset];
}

TEST(Ch10Property, ElementwiseEqualsNaiveLoops) {
  std::mt19937_64 rng(1010);
  for (int c = 0; c < kCh10Cases; ++c) {
    const Shape out = ch10_random_shape(rng);
    const Shape sa = ch10_operand_for(out, rng), sb = ch10_operand_for(out, rng);
    const Tensor a = llmfs::test::random_tensor(sa, 2 * c),
                 b = llmfs::test::random_tensor(sb, 2 * c + 1);
    const auto sum = llmfs::tensor::add(a, b);
    const auto product = llmfs::tensor::multiply(a, b);
    ASSERT_TRUE(sum && product) << fmt::format("{} and {}", sa, sb);
    // The result's shape: per axis from the right, the length that is not 1.
    const std::size_t rank = std::max(sa.rank(), sb.rank());
    Index dims(rank);
    for (std::size_t i = 0; i < rank; ++i) {
      const std::size_t la = i < sa.rank() ? sa[sa.rank() - 1 - i] : 1;
      const std::size_t lb = i < sb.rank() ? sb[sb.rank() - 1 - i] : 1;
      dims[rank - 1 - i] = la == 1 ? lb : la;
    }
    ASSERT_EQ(sum->shape(), Shape(dims));
    for (const Index& at : llmfs::test::all_indices(sum->shape().dims())) {
      const std::size_t k = llmfs::test::naive_offset(sum->shape(), at);
      EXPECT_EQ(sum->values()[k], ch10_read(a, at) + ch10_read(b, at));
      EXPECT_EQ(product->values()[k], ch10_read(a, at) * ch10_read(b, at));
    }
  }
}

TEST(Ch10Property, MismatchedAxesAreRefusedNamingTheFirstFromTheRight) {
  std::mt19937_64 rng(1011);
  for (int c = 0; c < kCh10Cases; ++c) {
    Index da(1 + rng() % 4), db;
    for (auto& d : da)
      d = 2 + rng() % 3;
    db = da;
    const std::size_t bad = rng() % da.size();  // from the left
    db[bad] = da[bad] + 1;
    const auto r = llmfs::tensor::add(llmfs::tensor::Tensor::zeros(Shape(da)),
                                      llmfs::tensor::Tensor::zeros(Shape(db)));
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, TensorErrorCode::broadcast_mismatch);
    EXPECT_EQ(r.error().detail,
              fmt::format("axis -{}: {} vs {}", da.size() - bad, da[bad], db[bad]));
  }
}

TEST(Ch10Property, AxisReductionsEqualNaiveLoops) {
  std::mt19937_64 rng(1012);
  for (int c = 0; c < kCh10Cases; ++c) {
    const Shape shape = ch10_random_shape(rng);
    const Tensor x = llmfs::test::random_tensor(shape, 5000 + c);
    for (std::size_t axis = 0; axis < shape.rank(); ++axis) {
      const auto s = llmfs::tensor::reduce_sum(x, axis);
      ASSERT_TRUE(s.has_value());
      Index kept = shape.as_vector();
      kept[axis] = 1;
      ASSERT_EQ(s->shape(), Shape(kept));
      const auto m = llmfs::tensor::reduce_mean(x, axis);
      const auto mx = llmfs::tensor::reduce_max(x, axis);
      if (shape[axis] == 0) {  // a mean or maximum of nothing is refused
        EXPECT_EQ(m.error().code, TensorErrorCode::empty_reduction);
        EXPECT_EQ(mx.error().code, TensorErrorCode::empty_reduction);
        continue;
      }
      ASSERT_TRUE(m && mx);
      for (Index at : llmfs::test::all_indices(kept)) {
        double total = 0.0, best = -INFINITY;
        for (at[axis] = 0; at[axis] < shape[axis]; ++at[axis]) {
          total += x.values()[llmfs::test::naive_offset(shape, at)];
          best = std::max(best, x.values()[llmfs::test::naive_offset(shape, at)]);
        }
        at[axis] = 0;
        const std::size_t k = llmfs::test::naive_offset(Shape(kept), at);
        EXPECT_EQ(s->values()[k], total);
        EXPECT_EQ(m->values()[k], total / static_cast<double>(shape[axis]));
        EXPECT_EQ(mx->values()[k], best);
      }
    }
    EXPECT_EQ(llmfs::tensor::reduce_sum(x, shape.rank()).error().code,
              TensorErrorCode::axis_out_of_range);
  }
}

TEST(Ch10Property, SumToEqualsNaiveLoopsAndIsTheAdjointOfBroadcasting) {
  std::mt19937_64 rng(1013);
  for (int c = 0; c < kCh10Cases; ++c) {
    const Shape big = ch10_random_shape(rng);
    const Shape target = ch10_operand_for(big, rng);
    const Tensor g = llmfs::test::random_tensor(big, 9000 + c);
    const Tensor y = llmfs::test::random_tensor(target, 19000 + c);
    const auto folded = llmfs::tensor::sum_to(g, target);
    ASSERT_TRUE(folded.has_value()) << fmt::format("{} -> {}", big, target);
    // Naive: every element of g added into the element it broadcasts from, in order.
    std::vector<double> want(target.element_count().value(), 0.0);
    const std::size_t lead = big.rank() - target.rank();
    for (const Index& at : llmfs::test::all_indices(big.dims())) {
      Index t(at.begin() + static_cast<std::ptrdiff_t>(lead), at.end());
      for (std::size_t axis = 0; axis < t.size(); ++axis)
        if (target[axis] == 1) t[axis] = 0;
      want[llmfs::test::naive_offset(target, t)] +=
          g.values()[llmfs::test::naive_offset(big, at)];
    }
    EXPECT_TRUE(std::ranges::equal(folded->values(), want));
    // ⟨broadcast(y), g⟩ = ⟨y, sum_to(g)⟩, up to rounding (different addition orders).
    double left = 0.0, right = 0.0, scale = 0.0;
    for (const Index& at : llmfs::test::all_indices(big.dims())) {
      left += ch10_read(y, at) * g.values()[llmfs::test::naive_offset(big, at)];
      scale += std::abs(g.values()[llmfs::test::naive_offset(big, at)]);
    }
    for (std::size_t k = 0; k < y.size(); ++k)
      right += y.values()[k] * folded->values()[k];
    EXPECT_NEAR(left, right, 1e-14 * (1.0 + scale));
  }
}

}  // namespace
