// Tests of the reference-data loader (tests/support/reference_data.hpp) and of the
// committed chapter-30 fixture file, whose values the seed states to six decimals.
#include "support/reference_data.hpp"

#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>

namespace {

using llmfs::testing::discrepancy;
using llmfs::testing::load_reference;
using llmfs::testing::load_reference_case;
using llmfs::testing::parse_reference;
using llmfs::testing::ReferenceError;

TEST(ReferenceData, ParsesShapesValuesScalarsAndComments) {
  const auto data = parse_reference(
      "# torch: 1.13.0a0\n"
      "# inputs: X W\n"
      "X|shape=[2,3]|values=1,2,3,4,5,-6.5\n"
      "\n"
      "loss|shape=[]|values=0.25\n"
      "masked|shape=[2]|values=0,-inf\n",
      "inline");
  EXPECT_EQ(data.at("X").shape, (std::vector<std::size_t>{2, 3}));
  EXPECT_EQ(data.at("X").values, (std::vector<double>{1, 2, 3, 4, 5, -6.5}));
  EXPECT_TRUE(data.at("loss").shape.empty());
  EXPECT_EQ(data.scalar("loss"), 0.25);
  EXPECT_EQ(data.at("masked").values[1], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(data.comment("inputs"), "X W");
  EXPECT_EQ(data.comment("absent"), "");
}

TEST(ReferenceData, SeventeenDigitsRoundTripExactly) {
  const auto data =
      parse_reference("v|shape=[1]|values=0.54030230586813977\n", "inline");
  EXPECT_EQ(data.at("v").values[0], std::cos(1.0));
}

TEST(ReferenceData, MissingNameErrorListsTheKnownNames) {
  const auto data =
      parse_reference("X|shape=[1]|values=1\nW|shape=[1]|values=2\n", "case.txt");
  try {
    (void)data.at("Y");
    FAIL() << "expected ReferenceError";
  } catch (const ReferenceError& error) {
    EXPECT_EQ(std::string(error.what()),
              "reference tensor 'Y' is not in case.txt (it has: W, X)");
  }
}

TEST(ReferenceData, MissingFileIsAClearError) {
  try {
    (void)load_reference("/nonexistent/case.txt");
    FAIL() << "expected ReferenceError";
  } catch (const ReferenceError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("cannot open reference data file /nonexistent/case.txt"),
              std::string::npos);
  }
}

TEST(ReferenceData, MalformedLinesAreRejectedWithTheirLineNumber) {
  EXPECT_THROW((void)parse_reference("X|shape=[2]|values=1\n", "a.txt"),
               ReferenceError);
  EXPECT_THROW((void)parse_reference("X|shape=[2]|values=1,x\n", "a.txt"),
               ReferenceError);
  EXPECT_THROW((void)parse_reference("X shape=[1] values=1\n", "a.txt"),
               ReferenceError);
  EXPECT_THROW(
      (void)parse_reference("X|shape=[1]|values=1\nX|shape=[1]|values=1\n", "a.txt"),
      ReferenceError);
  try {
    (void)parse_reference("# ok\nX|shape=[2]|values=1\n", "a.txt");
    FAIL() << "expected ReferenceError";
  } catch (const ReferenceError& error) {
    EXPECT_EQ(std::string(error.what()),
              "a.txt:2: X has 1 values but its shape holds 2");
  }
}

TEST(ReferenceData, DiscrepancyIsMeasuredAgainstTheLargestReferenceMagnitude) {
  const std::vector<double> expected{100.0, 1e-9,
                                     -std::numeric_limits<double>::infinity()};
  const std::vector<double> actual{100.0 + 1e-10, 2e-9,
                                   -std::numeric_limits<double>::infinity()};
  const auto d = discrepancy(actual, expected);
  EXPECT_TRUE(d.same_size);
  EXPECT_TRUE(d.same_nonfinite);
  EXPECT_DOUBLE_EQ(d.reference_max, 100.0);
  EXPECT_NEAR(d.max_abs, 1e-9,
              1e-15);  // the near-zero entry differs by 100%, but only by 1e-9
  EXPECT_EQ(d.worst_index, 1u);
  EXPECT_NEAR(d.relative, 1e-11, 1e-16);
  const std::vector<double> unmasked{100.0, 1e-9, 0.0};
  EXPECT_FALSE(discrepancy(unmasked, expected).same_nonfinite);
}

// The seed states the chapter-30 fixture's probabilities and outputs to six decimals;
// the committed PyTorch file must agree with them (and so must be the file the chapter
// uses).
TEST(ReferenceData, ChapterThirtyFixtureFileHoldsTheSeedsNumbers) {
  const auto data = load_reference_case("ch30_fixture");
  EXPECT_EQ(data.comment("dtype"), "float64");
  EXPECT_EQ(data.scalar("heads"), 2.0);
  EXPECT_EQ(data.scalar("rope_base"), 100.0);
  const auto& weights = data.at("weights");
  ASSERT_EQ(weights.shape, (std::vector<std::size_t>{1, 2, 3, 3}));
  // Head 1, query 1: [0.213809, 0.786191, 0]; head 1, query 2: [0.054696, 0.370956,
  // 0.574348].
  EXPECT_NEAR(weights.values[12], 0.213809, 5e-7);
  EXPECT_NEAR(weights.values[13], 0.786191, 5e-7);
  EXPECT_EQ(weights.values[14], 0.0);
  EXPECT_NEAR(weights.values[15], 0.054696, 5e-7);
  EXPECT_NEAR(weights.values[16], 0.370956, 5e-7);
  EXPECT_NEAR(weights.values[17], 0.574348, 5e-7);
  // Output row 1 is the block-swapped concatenation [0.213809, 0.786191, 0.770151,
  // -0.420735].
  const auto& output = data.at("output");
  const double row1[] = {0.213809, 0.786191, 0.770151, -0.420735};
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(output.values[4 + i], row1[i], 5e-7) << i;
  EXPECT_EQ(data.at("grad_W_O").shape, (std::vector<std::size_t>{4, 4}));
}

}  // namespace
