// Chapter 9: the chapter's claims. Expected values are derived by hand beside each
// assertion, or read from the NumPy reference
// tests/reference/data/tensor/ch09_tensor_views.txt (make_tensor_views_reference.py),
// or computed by naive loops written here, never taken from the code under test.
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/strided.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "evidence.hpp"
#include "fixture.hpp"
#include "support/records.hpp"

namespace {

using llmfs::tensor::is_row_major;
using llmfs::tensor::reshape;
using llmfs::tensor::Shape;
using llmfs::tensor::StridedView;
using llmfs::tensor::Tensor;
using llmfs::tensor::TensorErrorCode;
using llmfs::tensor::transpose;
using llmfs::tensor::transposed_view;
using Sizes = std::vector<std::size_t>;

const ch09::Evidence& ch09_evidence() {
  static const ch09::Evidence e = [] {
    auto gathered = ch09::gather();
    EXPECT_TRUE(gathered.has_value()) << fmt::format("{}", gathered.error());
    return gathered.value_or(ch09::Evidence{});
  }();
  return e;
}

std::vector<double> ch09_doubles(std::initializer_list<int> values) {
  return std::vector<double>(values.begin(), values.end());
}

// ---- The prediction, by hand ------------------------------------------------------

TEST(Prediction, ReshapeKeepsStorageAndOrder) {
  const auto& e = ch09_evidence();
  ASSERT_EQ(e.reshapes.size(), 4u);
  const std::vector<Sizes> strides{{4, 1}, {6, 1}, {1}, {12, 1}};
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(e.reshapes[k].strides, strides[k]);
    EXPECT_TRUE(e.reshapes[k].same_values);
    EXPECT_TRUE(e.reshapes[k].moved);  // the rvalue reshape kept the same address
  }
}

TEST(Prediction, TransposePermutesStrides) {
  const auto& e = ch09_evidence();
  ASSERT_EQ(e.transposes.size(), 2u);
  // (0,2): lengths [4,3,2], strides [12,4,1] with 0 and 2 swapped: [1,4,12].
  EXPECT_EQ(e.transposes[0].view.shape, (Shape{4, 3, 2}));
  EXPECT_EQ(e.transposes[0].view.strides, (Sizes{1, 4, 12}));
  EXPECT_FALSE(e.transposes[0].row_major);
  // out[i,j,k] = in[k,j,i] = 12k + 4j + i, in row-major order of [4,3,2].
  std::vector<double> expected;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k)
        expected.push_back(12 * k + 4 * j + i);
  EXPECT_EQ(e.transposes[0].values, expected);
  EXPECT_EQ(e.transposes[0].values.at(1), 12.0);  // (0,0,1) reads in[1,0,0]
  // (1,2): [2,4,3], strides [12,1,4]; out[i,j,k] = in[i,k,j] = 12i + 4k + j.
  EXPECT_EQ(e.transposes[1].view.shape, (Shape{2, 4, 3}));
  EXPECT_EQ(e.transposes[1].view.strides, (Sizes{12, 1, 4}));
  EXPECT_EQ(std::vector<double>(e.transposes[1].values.begin(),
                                e.transposes[1].values.begin() + 6),
            ch09_doubles({0, 4, 8, 1, 5, 9}));
}

TEST(Prediction, OneViewElement) {
  // (3,1,0) through strides [1,4,12]: 3 + 4 + 0 = 7, and in[0,1,3] = 4 + 3 = 7.
  EXPECT_EQ(ch09_evidence().view_offset, 7u);
  EXPECT_EQ(ch09_evidence().view_value, 7.0);
}

TEST(Contiguity, UnitAxisTransposeNeedsNoReordering) {
  const auto& e = ch09_evidence();
  // [2,1,4] strides [4,4,1]; swapping 0 and 1 gives [1,2,4] with strides [4,4,1], and
  // the length-1 axis's stride is never used: row-major, same order.
  EXPECT_EQ(e.unit.view.shape, (Shape{1, 2, 4}));
  EXPECT_EQ(e.unit.view.strides, (Sizes{4, 4, 1}));
  EXPECT_TRUE(e.unit.row_major);
  EXPECT_TRUE(e.unit_same_order);
}

TEST(Contiguity, UnitAxisSwappedAcrossALongerAxisNeedsACopy) {
  // [2,3,1] has strides [3,1,1]. Swapping 0 and 2 gives [1,3,2] with strides [1,1,3]:
  // one swapped axis has length 1, yet the axes of lengths 2 and 3 change places. A
  // contiguous [1,3,2] needs strides 2 and 1 on its long axes, not 1 and 3, and
  // out[0,j,k] = in[k,j,0] = 3k + j reads 0,3,1,4,2,5.
  const auto view = transposed_view(Shape{2, 3, 1}, 0, 2);
  EXPECT_EQ(view.shape, (Shape{1, 3, 2}));
  EXPECT_EQ(view.strides, (Sizes{1, 1, 3}));
  EXPECT_FALSE(is_row_major(view));
  const Tensor in =
      Tensor::from(Shape{2, 3, 1}, ch09_doubles({0, 1, 2, 3, 4, 5})).value();
  const Tensor out = transpose(in, 0, 2).value();
  EXPECT_EQ(std::vector<double>(out.values().begin(), out.values().end()),
            ch09_doubles({0, 3, 1, 4, 2, 5}));
  // Its neighbour swap (1,2) moves the unit axis past one long axis only: contiguous.
  EXPECT_TRUE(is_row_major(transposed_view(Shape{2, 3, 1}, 1, 2)));
}

TEST(Contiguity, FlattenedTransposeHasNoSingleStride) {
  // 0,12,4,16,8,20,1,13,…: steps +12 and −8 (within a column of blocks) and −19 (to the
  // next i): three distinct steps, so no 1-D stride reaches these offsets in this
  // order.
  std::set<double> steps(ch09_evidence().flat_steps.begin(),
                         ch09_evidence().flat_steps.end());
  EXPECT_EQ(steps, (std::set<double>{-19.0, -8.0, 12.0}));
}

TEST(Errors, RefusalsAreTypedWithTheirMessages) {
  const auto& e = ch09_evidence();
  ASSERT_EQ(e.errors.size(), 3u);
  EXPECT_EQ(
      e.errors[0],
      "reshape_count=reshape: size mismatch: [2,3,4] and [5,5] (24 elements cannot "
      "take a shape of 25)");
  EXPECT_EQ(e.errors[1],
            "reshape_overflow=reshape: element count overflow: [2,3,4] and "
            "[4294967296,4294967296]");
  EXPECT_EQ(
      e.errors[2],
      "transpose_axis=transpose: axis out of range: [2,3,4] (axes 0 and 3 for rank "
      "3)");
}

TEST(Errors, FailedRvalueReshapeLeavesTheInput) {
  Tensor t = Tensor::full(Shape{2, 3}, 1.5);
  const auto refused = reshape(std::move(t), Shape{4});
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, TensorErrorCode::size_mismatch);
  EXPECT_EQ(t.shape(), (Shape{2, 3}));  // NOLINT(bugprone-use-after-move): the claim
  EXPECT_EQ(t.size(), 6u);
}

TEST(Exercises, AnswersMatchHandDerivations) {
  const auto& x = ch09_evidence().exercises;
  EXPECT_EQ(x.offset, 22u);  // 2·1 + 2·4 + 1·12
  // [2,3,1], strides [3,1,1]: (0,1) -> [3,2,1] strides [1,3,1]: not row-major (both
  // swapped axes are long); (1,2) -> [2,1,3] strides [3,1,1]: row-major (the long axes
  // keep their order); (0,2) -> [1,3,2] strides [1,1,3]: not, though one swapped axis
  // has length 1, and it reads out[0,j,k] = in[k,j,0] = 3k + j.
  EXPECT_FALSE(x.row_major[0]);
  EXPECT_TRUE(x.row_major[1]);
  EXPECT_FALSE(x.row_major[2]);
  EXPECT_EQ(x.values_0_2, ch09_doubles({0, 3, 1, 4, 2, 5}));
  EXPECT_TRUE(x.round_trip);
}

TEST(Misconception, ReshapeIsNotTranspose) {
  // reshape to [4,3,2] keeps 0..23; the transpose holds 12k+4j+i: equal only where
  // 12k + 4j + i = 6i + 2j + k, i.e. at (0,0,0) and (3,2,1) (offsets 0 and 23).
  EXPECT_EQ(ch09_evidence().misconception_agree, 2u);
}

// ---- The NumPy reference ------------------------------------------------------------

Sizes ch09_sizes(const std::string& text) {
  Sizes out;
  std::istringstream parts(text);
  for (std::string item; std::getline(parts, item, ',');)
    out.push_back(std::stoull(item));
  return out;
}

std::vector<std::map<std::string, std::string>> ch09_reference(
    const std::string& kind) {
  std::vector<std::map<std::string, std::string>> out;
  for (auto& record : llmfs::testing::read_keyed_records(
           "tests/reference/data/tensor/ch09_tensor_views.txt"))
    if (record.kind == kind) out.push_back(std::move(record.fields));
  return out;
}

Tensor ch09_numbered(const Shape& shape) {
  std::vector<double> values(shape.element_count().value());
  for (std::size_t k = 0; k < values.size(); ++k)
    values[k] = static_cast<double>(k);
  return Tensor::from(shape, std::move(values)).value();
}

TEST(Reference, TransposesAgreeWithNumpySwapaxes) {
  const auto cases = ch09_reference("TRANSPOSE");
  ASSERT_EQ(cases.size(), 50u);
  for (const auto& c : cases) {
    const Shape shape(ch09_sizes(c.at("shape")));
    const Sizes axes = ch09_sizes(c.at("axes"));
    const StridedView view = transposed_view(shape, axes[0], axes[1]);
    EXPECT_EQ(view.shape, Shape(ch09_sizes(c.at("view_shape")))) << c.at("case");
    EXPECT_EQ(view.strides, ch09_sizes(c.at("view_strides"))) << c.at("case");
    EXPECT_EQ(is_row_major(view), c.at("contiguous") == "1") << c.at("case");
    EXPECT_EQ(c.at("contiguous"), c.at("flat_shares"));  // no copy iff contiguous
    const Tensor t = transpose(ch09_numbered(shape), axes[0], axes[1]).value();
    const Sizes values = ch09_sizes(c.at("values"));
    ASSERT_EQ(t.size(), values.size());
    for (std::size_t k = 0; k < values.size(); ++k)
      EXPECT_EQ(t.values()[k], static_cast<double>(values[k])) << c.at("case");
  }
}

TEST(Reference, ReshapesAgreeWithNumpy) {
  const auto cases = ch09_reference("RESHAPE");
  ASSERT_EQ(cases.size(), 50u);
  for (const auto& c : cases) {
    const Tensor t = ch09_numbered(Shape(ch09_sizes(c.at("shape"))));
    const Tensor r = reshape(t, Shape(ch09_sizes(c.at("to")))).value();
    EXPECT_EQ(llmfs::tensor::row_major_strides(r.shape()), ch09_sizes(c.at("strides")));
    EXPECT_EQ(c.at("shares"), "1");  // NumPy never copies to reshape a contiguous array
    EXPECT_TRUE(llmfs::tensor::bitwise_equal(r.values(), t.values()));
  }
}

// ---- Property tests: many seeded random shapes against naive loops
// -------------------

constexpr std::uint64_t kCh09Seed = 0x0909;

Shape ch09_random_shape(std::mt19937_64& engine) {
  Sizes dims(1 + engine() % 5);
  for (auto& n : dims)
    n = 1 + engine() % 4;
  return Shape(dims);
}

// Every index of `shape` in row-major order, by recursion.
void ch09_indices(const Shape& shape, Sizes& index, std::vector<Sizes>& out) {
  if (index.size() == shape.rank()) {
    out.push_back(index);
    return;
  }
  for (std::size_t i = 0; i < shape[index.size()]; ++i) {
    index.push_back(i);
    ch09_indices(shape, index, out);
    index.pop_back();
  }
}

TEST(Property, TransposeMatchesNaiveSwappedIndexing) {
  std::mt19937_64 engine(kCh09Seed);
  for (int trial = 0; trial < 200; ++trial) {
    const Shape shape = ch09_random_shape(engine);
    const std::size_t a = engine() % shape.rank(), b = engine() % shape.rank();
    const Tensor in = ch09_numbered(shape);
    const Tensor out = transpose(in, a, b).value();
    std::vector<Sizes> order;
    Sizes scratch;
    ch09_indices(out.shape(), scratch, order);
    ASSERT_EQ(order.size(), in.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
      Sizes source = order[k];
      std::swap(source[a], source[b]);
      ASSERT_EQ(out.values()[k], in.at(source).value()) << fmt::format("{}", shape);
    }
  }
}

TEST(Property, RowMajorIffTheOrderIsUnchanged) {
  // A view is row-major exactly when materialising it leaves every element in place.
  std::mt19937_64 engine(kCh09Seed + 1);
  for (int trial = 0; trial < 300; ++trial) {
    const Shape shape = ch09_random_shape(engine);
    const std::size_t a = engine() % shape.rank(), b = engine() % shape.rank();
    const Tensor in = ch09_numbered(shape);
    const Tensor out = transpose(in, a, b).value();
    const bool in_place = llmfs::tensor::bitwise_equal(out.values(), in.values());
    EXPECT_EQ(is_row_major(transposed_view(shape, a, b)), in_place)
        << fmt::format("{} axes {} {}", shape, a, b);
  }
}

// The chapter's rule, written from the axis order alone: a permutation of a contiguous
// tensor is contiguous exactly when its axes longer than 1 keep their relative order.
bool ch09_long_axes_keep_order(const Shape& shape, const Sizes& permutation) {
  std::size_t last = 0;
  bool first = true;
  for (const std::size_t source : permutation) {
    if (shape[source] <= 1) continue;
    if (!first && source < last) return false;
    last = source;
    first = false;
  }
  return true;
}

// Shapes of rank 1 to 5 where about half the axes have length 1.
Shape ch09_shape_with_units(std::mt19937_64& engine) {
  Sizes dims(1 + engine() % 5);
  for (auto& n : dims)
    n = engine() % 2 == 0 ? 1 : 2 + engine() % 3;
  return Shape(dims);
}

TEST(Property, AnyPermutationIsRowMajorIffLongAxesKeepTheirOrder) {
  // The view of a permutation: its lengths and the input's row-major strides, both
  // permuted; is_row_major against the rule, and against reading the storage in order.
  std::mt19937_64 engine(kCh09Seed + 3);
  std::size_t contiguous = 0, not_contiguous = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const Shape shape = ch09_shape_with_units(engine);
    Sizes permutation(shape.rank());
    std::iota(permutation.begin(), permutation.end(), std::size_t{0});
    std::shuffle(permutation.begin(), permutation.end(), engine);
    const Sizes strides = llmfs::tensor::row_major_strides(shape);
    Sizes dims, view_strides;
    for (const std::size_t source : permutation) {
      dims.push_back(shape[source]);
      view_strides.push_back(strides[source]);
    }
    const StridedView view{Shape(dims), view_strides};
    const bool rule = ch09_long_axes_keep_order(shape, permutation);
    EXPECT_EQ(is_row_major(view), rule)
        << fmt::format("{} permuted [{}]", shape, fmt::join(permutation, ","));
    // Naive: the view's offsets, visited in its row-major order, are 0, 1, 2, ...
    std::vector<Sizes> order;
    Sizes scratch;
    ch09_indices(view.shape, scratch, order);
    bool in_order = true;
    for (std::size_t k = 0; k < order.size(); ++k) {
      std::size_t offset = 0;
      for (std::size_t axis = 0; axis < order[k].size(); ++axis)
        offset += order[k][axis] * view_strides[axis];
      in_order = in_order && offset == k;
    }
    EXPECT_EQ(in_order, rule) << fmt::format("{}", shape);
    (rule ? contiguous : not_contiguous) += 1;
  }
  EXPECT_GT(contiguous, 100u);  // both outcomes are exercised, many times
  EXPECT_GT(not_contiguous, 100u);
}

TEST(Property, SwapIsRowMajorIffNoLongAxisChangesPlace) {
  // For a swap of axes p < q the rule reads: either both swapped axes have length 1
  // (no long axis moves), or among axes p, p+1, ..., q at most one is longer than 1
  // (the one long axis that moves jumps over unit axes only). One swapped axis of
  // length 1 is not enough.
  std::mt19937_64 engine(kCh09Seed + 4);
  std::size_t unit_swaps_needing_a_copy = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const Shape shape = ch09_shape_with_units(engine);
    const std::size_t a = engine() % shape.rank(), b = engine() % shape.rank();
    std::size_t long_axes = 0;
    for (std::size_t axis = std::min(a, b); axis <= std::max(a, b); ++axis)
      long_axes += shape[axis] > 1;
    const bool both_unit = shape[a] == 1 && shape[b] == 1;
    const bool view_row_major = is_row_major(transposed_view(shape, a, b));
    EXPECT_EQ(view_row_major, both_unit || long_axes <= 1)
        << fmt::format("{} axes {} {}", shape, a, b);
    if ((shape[a] == 1) != (shape[b] == 1) && !view_row_major)
      ++unit_swaps_needing_a_copy;
  }
  EXPECT_GT(unit_swaps_needing_a_copy, 10u);  // the counterexample's kind occurs
}

TEST(Property, TransposeTwiceAndReshapeBackAreIdentities) {
  std::mt19937_64 engine(kCh09Seed + 2);
  for (int trial = 0; trial < 200; ++trial) {
    const Shape shape = ch09_random_shape(engine);
    const std::size_t a = engine() % shape.rank(), b = engine() % shape.rank();
    const Tensor in = ch09_numbered(shape);
    const Tensor back = transpose(transpose(in, a, b).value(), a, b).value();
    EXPECT_TRUE(llmfs::tensor::bitwise_equal(back, in));
    Tensor moved = in;
    const double* storage = moved.values().data();
    const Tensor flat = reshape(std::move(moved), Shape{in.size()}).value();
    EXPECT_EQ(flat.values().data(), storage);  // moved, not copied
    EXPECT_TRUE(llmfs::tensor::bitwise_equal(reshape(flat, shape).value(), in));
  }
}

}  // namespace
