// Chapter 8: the chapter's claims. Expected values are derived by hand beside each
// assertion, or read from the NumPy reference
// tests/reference/data/tensor/ch08_tensor_storage.txt
// (make_tensor_storage_reference.py), or computed by naive loops written here, never
// taken from the code under test.
#include <cstdint>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/tensor/shape.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "evidence.hpp"
#include "fixture.hpp"
#include "support/records.hpp"

namespace {

using llmfs::tensor::row_major_offset;
using llmfs::tensor::row_major_strides;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::tensor::TensorErrorCode;
using Sizes = std::vector<std::size_t>;

const ch08::Evidence& ch08_evidence() {
  static const ch08::Evidence e = [] {
    auto gathered = ch08::gather();
    EXPECT_TRUE(gathered.has_value()) << fmt::format("{}", gathered.error());
    return gathered.value_or(ch08::Evidence{});
  }();
  return e;
}

// ---- The prediction, by hand ------------------------------------------------------

TEST(Prediction, ShapeRankCountAndStrides) {
  const auto& e = ch08_evidence();
  EXPECT_EQ(e.fixture.shape, (Shape{2, 3, 4}));
  EXPECT_EQ(e.fixture.count, 24u);  // 2·3·4
  // stride[2] = 1, stride[1] = 4 (a row), stride[0] = 3·4 = 12 (a block).
  EXPECT_EQ(e.fixture.strides, (Sizes{12, 4, 1}));
}

TEST(Prediction, OffsetsOfThePickedIndices) {
  const auto& e = ch08_evidence();
  ASSERT_EQ(e.picks.size(), 3u);
  const Sizes expected{6, 13, 23};  // 0·12+1·4+2·1, 1·12+0·4+1·1, 1·12+2·4+3·1
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(e.picks[k].offset, expected[k]);
    EXPECT_EQ(e.picks[k].dot, expected[k]);
    EXPECT_EQ(e.picks[k].value, static_cast<double>(expected[k]));  // value = offset
  }
}

TEST(Prediction, NestedLoopsVisitStorageInOrder) {
  const auto& e = ch08_evidence();
  ASSERT_EQ(e.cells.size(), 24u);
  for (std::size_t k = 0; k < 24; ++k) {
    // The k-th index of three nested loops is (k / 12, k / 4 mod 3, k mod 4).
    EXPECT_EQ(e.cells[k].index, (Sizes{k / 12, (k / 4) % 3, k % 4}));
    EXPECT_EQ(e.cells[k].offset, k);
    EXPECT_EQ(e.cells[k].dot, k);
    EXPECT_EQ(e.cells[k].value, static_cast<double>(k));
  }
}

TEST(Prediction, ScalarAndEmptyShapes) {
  const auto& e = ch08_evidence();
  EXPECT_EQ(e.scalar.count, 1u);  // the empty product
  EXPECT_TRUE(e.scalar.strides.empty());
  EXPECT_EQ(e.empty.count, 0u);
  EXPECT_EQ(e.empty.strides, (Sizes{12, 4, 1}));  // strides ignore the outer length
  EXPECT_EQ(row_major_offset(Shape{}, Sizes{}), 0u);
  EXPECT_EQ(Tensor::scalar(2.5).at(Sizes{}).value(), 2.5);
}

// ---- Typed errors -----------------------------------------------------------------

TEST(Errors, ElementCountOverflowIsRefused) {
  // 2³²·2³² = 2⁶⁴ > 2⁶⁴ − 1; one less on one axis fits: (2³² − 1)·2³² < 2⁶⁴.
  const std::size_t half = std::size_t{1} << 32;
  EXPECT_FALSE(Shape({half, half}).element_count().has_value());
  EXPECT_EQ(Shape({half - 1, half}).element_count(), (half - 1) * half);
  const auto refused = Tensor::from(Shape{half, half}, {});
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, TensorErrorCode::element_count_overflow);
  EXPECT_EQ(fmt::format("{}", refused.error()),
            "tensor: element count overflow: [4294967296,4294967296]");
  EXPECT_EQ(ch08_evidence().errors.at(0),
            "overflow=tensor: element count overflow: [4294967296,4294967296]");
}

TEST(Errors, SizeMismatchAndOutOfRangeIndices) {
  const auto& e = ch08_evidence();
  ASSERT_EQ(e.errors.size(), 4u);
  EXPECT_EQ(e.errors[1],
            "size=tensor: size mismatch: [2,3,4] (shape holds 24 elements, got 23 "
            "values)");
  EXPECT_EQ(e.errors[2],
            "past_axis=at: index out of range: [2,3,4] (index [1,3,0]: entry 3 on axis "
            "1 of length 3)");
  EXPECT_EQ(
      e.errors[3],
      "short_index=at: index out of range: [2,3,4] (index [1,2] has rank 2, tensor "
      "has rank 3)");
  // (1,3,0) would land on 1·12 + 3·4 + 0 = 24, one past the last cell: refused, not
  // read.
  const Tensor t = Tensor::zeros(Shape{2, 3, 4});
  EXPECT_EQ(t.at({1, 3, 0}).error().code, TensorErrorCode::index_out_of_range);
  // (0,0,4) would alias (0,1,0): refused too.
  EXPECT_EQ(t.at({0, 0, 4}).error().code, TensorErrorCode::index_out_of_range);
  EXPECT_EQ(t.at({0, 0, 0, 0}).error().code, TensorErrorCode::index_out_of_range);
}

// ---- Exercises and misconception, by hand -------------------------------------------

TEST(Exercises, AnswersMatchHandDerivations) {
  const auto& x = ch08_evidence().exercises;
  EXPECT_EQ(x.strides, (Sizes{7, 7, 1}));  // [5,1,7]: 1·7, 7, 1
  EXPECT_EQ(x.offset, 34u);                // 4·7 + 0·7 + 6·1
  EXPECT_EQ(x.index, (Sizes{1, 1, 1}));    // 17 = 1·12 + 1·4 + 1·1
  // ⌊(2⁶⁴ − 1)^(1/3)⌋ = 2642245: 2642245³ = 18446724184312856125 < 2⁶⁴ ≤ 2642246³.
  EXPECT_EQ(x.cube_side, 2642245u);
  EXPECT_EQ(x.cube_count, 18446724184312856125u);
  EXPECT_TRUE(x.next_cube_overflows);
}

TEST(Misconception, OwnLengthFormulaCollides) {
  // 2i + 3j + 4k over i<2, j<3, k<4 reaches 0..20 except 1 and 19: 19 values, max 20.
  EXPECT_EQ(ch08_evidence().wrong_distinct, 19u);
  EXPECT_EQ(ch08_evidence().wrong_largest, 20u);
}

// ---- The NumPy reference ------------------------------------------------------------

using Ch08Record = llmfs::testing::KeyedRecord;

Sizes ch08_sizes(const std::string& text) {
  Sizes out;
  std::istringstream parts(text);
  for (std::string item; std::getline(parts, item, ',');)
    out.push_back(std::stoull(item));
  return out;
}

const std::vector<Ch08Record>& ch08_reference() {
  static const std::vector<Ch08Record> records = llmfs::testing::read_keyed_records(
      "tests/reference/data/tensor/ch08_tensor_storage.txt");
  return records;
}

TEST(Reference, StridesOffsetsAndElementsAgreeWithNumpy) {
  std::map<std::string, Tensor> tensors;  // case -> tensor holding 0..count-1
  std::size_t shapes = 0, indices = 0, unravels = 0;
  for (const auto& r : ch08_reference()) {
    const std::string& id = r.fields.count("case") ? r.fields.at("case") : "";
    if (r.kind == "SHAPE") {
      const Shape shape(ch08_sizes(r.fields.at("shape")));
      ASSERT_EQ(shape.element_count(), std::stoull(r.fields.at("count")));
      EXPECT_EQ(row_major_strides(shape), ch08_sizes(r.fields.at("strides"))) << id;
      std::vector<double> values(*shape.element_count());
      for (std::size_t k = 0; k < values.size(); ++k)
        values[k] = static_cast<double>(k);
      tensors.emplace(id, Tensor::from(shape, std::move(values)).value());
      ++shapes;
    } else if (r.kind == "INDEX") {
      const Tensor& t = tensors.at(id);
      const Sizes index = ch08_sizes(r.fields.at("index"));
      EXPECT_EQ(row_major_offset(t.shape(), index), std::stoull(r.fields.at("offset")));
      EXPECT_EQ(t.at(index).value(), std::stod(r.fields.at("value"))) << id;
      ++indices;
    } else if (r.kind == "UNRAVEL") {
      EXPECT_EQ(
          ch08::unravel(tensors.at(id).shape(), std::stoull(r.fields.at("offset"))),
          ch08_sizes(r.fields.at("index")))
          << id;
      ++unravels;
    }
  }
  EXPECT_EQ(shapes, 60u);
  EXPECT_EQ(indices, 180u);
  EXPECT_EQ(unravels, 60u);
}

TEST(Reference, ElementCountsAgreeWithExactIntegers) {
  std::size_t counts = 0;
  for (const auto& r : ch08_reference()) {
    if (r.kind != "COUNT") continue;
    const auto count = Shape(ch08_sizes(r.fields.at("shape"))).element_count();
    ASSERT_EQ(count.has_value(), r.fields.at("fits") == "1") << r.fields.at("shape");
    if (count) {
      EXPECT_EQ(*count, std::stoull(r.fields.at("count")));
    }
    ++counts;
  }
  EXPECT_EQ(counts, 30u);
}

// ---- Property tests: many seeded random shapes against naive loops
// -------------------

constexpr std::uint64_t kCh08Seed = 0x0808;

Shape ch08_random_shape(std::mt19937_64& engine, std::size_t max_length) {
  Sizes dims(engine() % 6);  // rank 0..5
  for (auto& n : dims)
    n = 1 + engine() % max_length;
  return Shape(dims);
}

// Every index of `shape` by recursion, outermost axis outermost: nested loops of any
// depth, written without strides or offsets.
void ch08_nested_loops(const Shape& shape, Sizes& index, std::vector<Sizes>& out) {
  if (index.size() == shape.rank()) {
    out.push_back(index);
    return;
  }
  for (std::size_t i = 0; i < shape[index.size()]; ++i) {
    index.push_back(i);
    ch08_nested_loops(shape, index, out);
    index.pop_back();
  }
}

TEST(Property, StridesAreProductsOfLaterLengths) {
  std::mt19937_64 engine(kCh08Seed);
  for (int trial = 0; trial < 300; ++trial) {
    const Shape shape = ch08_random_shape(engine, 9);
    const Sizes strides = row_major_strides(shape);
    ASSERT_EQ(strides.size(), shape.rank());
    for (std::size_t a = 0; a < shape.rank(); ++a) {
      std::size_t product = 1;
      for (std::size_t b = a + 1; b < shape.rank(); ++b)
        product *= shape[b];
      EXPECT_EQ(strides[a], product) << fmt::format("{} axis {}", shape, a);
    }
  }
}

TEST(Property, OffsetIsTheNestedLoopCounter) {
  std::mt19937_64 engine(kCh08Seed + 1);
  for (int trial = 0; trial < 200; ++trial) {
    const Shape shape = ch08_random_shape(engine, 4);
    std::vector<Sizes> order;
    Sizes scratch;
    ch08_nested_loops(shape, scratch, order);
    ASSERT_EQ(order.size(), shape.element_count().value());
    std::vector<double> values(order.size());
    for (double& v : values)
      v = static_cast<double>(engine() % 1000) / 8.0;
    const Tensor t = Tensor::from(shape, values).value();
    for (std::size_t k = 0; k < order.size(); ++k) {
      ASSERT_EQ(row_major_offset(shape, order[k]), k) << fmt::format("{}", shape);
      ASSERT_EQ(t.at(order[k]).value(), values[k]);
      ASSERT_EQ(ch08::unravel(shape, k), order[k]);
    }
  }
}

TEST(Property, EveryOutOfRangeEntryIsRefused) {
  std::mt19937_64 engine(kCh08Seed + 2);
  for (int trial = 0; trial < 300; ++trial) {
    const Shape shape = ch08_random_shape(engine, 6);
    if (shape.rank() == 0) continue;
    const Tensor t = Tensor::zeros(shape);
    Sizes index(shape.rank());
    for (std::size_t a = 0; a < shape.rank(); ++a)
      index[a] = engine() % shape[a];
    const std::size_t axis = engine() % shape.rank();
    index[axis] = shape[axis] + engine() % 3;  // at or past the length
    const auto refused = t.at(index);
    ASSERT_FALSE(refused.has_value());
    EXPECT_EQ(refused.error().code, TensorErrorCode::index_out_of_range);
    EXPECT_NE(refused.error().detail.find(fmt::format("on axis {} of", axis)),
              std::string::npos);
  }
}

TEST(Property, OverflowAgreesWithCheckedMultiplication) {
  std::mt19937_64 engine(kCh08Seed + 3);
  for (int trial = 0; trial < 1000; ++trial) {
    Sizes dims(1 + engine() % 4);
    for (auto& n : dims)
      n = 1 + (engine() >> (engine() % 64));  // lengths spread over every magnitude
    std::size_t product = 1;
    bool overflowed = false;
    for (const std::size_t n : dims)
      overflowed = overflowed || __builtin_mul_overflow(product, n, &product);
    const auto count = Shape(dims).element_count();
    ASSERT_EQ(count.has_value(), !overflowed) << fmt::format("{}", Shape(dims));
    if (count) {
      EXPECT_EQ(*count, product);
    }
  }
}

}  // namespace
