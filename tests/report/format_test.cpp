#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/report/format.hpp>
#include <llmfs/report/record.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace {

using llmfs::report::format_number;
using llmfs::report::format_values;
using llmfs::report::Record;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

TEST(FormatNumber, SixDecimalsRounded) {
  EXPECT_EQ(format_number(1.0), "1.000000");
  EXPECT_EQ(format_number(0.5403023058681398), "0.540302");  // cos(1)
  EXPECT_EQ(format_number(-0.8414709848078965),
            "-0.841471");  // -sin(1), rounds up in magnitude
  EXPECT_EQ(format_number(0.78619079), "0.786191");
  EXPECT_EQ(format_number(1234.5), "1234.500000");
}

TEST(FormatNumber, NegativeZeroAndTinyNegativesPrintUnsigned) {
  EXPECT_EQ(format_number(-0.0), "0.000000");
  EXPECT_EQ(format_number(-1e-9), "0.000000");
  EXPECT_EQ(format_number(-4e-7), "0.000000");
  EXPECT_EQ(format_number(-6e-7), "-0.000001");
}

TEST(FormatNumber, InfinitiesAndNan) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(format_number(-inf), "-inf");
  EXPECT_EQ(format_number(inf), "inf");
  EXPECT_EQ(format_number(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(format_number(-std::numeric_limits<double>::quiet_NaN()), "nan");
}

TEST(FormatValues, BracketedCommaList) {
  EXPECT_EQ(format_values(std::vector<double>{0.770151, -0.420735}),
            "[0.770151,-0.420735]");
  EXPECT_EQ(format_values(std::vector<double>{}), "[]");
}

TEST(FormatTensor, ShapeThenValues) {
  auto t = Tensor::from(Shape{1, 2, 2}, {1, 0, -0.0, 0.25}).value();
  EXPECT_EQ(llmfs::report::format_tensor(t),
            "shape:[1,2,2] values:[1.000000,0.000000,0.000000,0.250000]");
  EXPECT_EQ(llmfs::report::format_tensor(Tensor::zeros(Shape{0, 3})),
            "shape:[0,3] values:[]");
}

TEST(Record, BuildsKindAndFieldsInOrder) {
  const std::vector<double> row{1.0, -0.5};
  Record r("WEIGHT");
  r.field("head", 1)
      .field("query", std::size_t{2})
      .field("value", 0.213809)
      .field("row", row)
      .field("shape", Shape{1, 2, 3, 3})
      .field("causal", true)
      .field("stage", "split");
  EXPECT_EQ(r.str(),
            "WEIGHT|head=1|query=2|value=0.213809|row=[1.000000,-0.500000]|shape=[1,2,"
            "3,3]|causal=true|stage=split");
}

TEST(Record, KindAloneHasNoFields) {
  EXPECT_EQ(Record("END").str(), "END");
  EXPECT_EQ(llmfs::report::record("END"), "END");
}

TEST(Record, FieldsAndRecordTakeKeyValuePairsInOrder) {
  const std::vector<double> row{1.0, -0.5};
  const std::string expected =
      "MIX|query=0|weights=[1.000000,-0.500000]|row_sum=1.000000|visible=false|"
      "scale=none";
  EXPECT_EQ(Record("MIX")
                .fields("query", 0, "weights", row, "row_sum", 1.0, "visible", false,
                        "scale", "none")
                .str(),
            expected);
  EXPECT_EQ(llmfs::report::record("MIX", "query", 0, "weights", row, "row_sum", 1.0,
                                  "visible", false, "scale", "none"),
            expected);
}

TEST(Row, OneRowOfConsecutiveRows) {
  const auto t = Tensor::from(Shape{1, 3, 2}, {1, 2, 3, 4, 5, 6}).value();
  const auto middle = llmfs::report::row(t, 1, 2);
  EXPECT_EQ(std::vector<double>(middle.begin(), middle.end()),
            (std::vector<double>{3, 4}));
  EXPECT_EQ(llmfs::report::row(t, 0, 3).size(), 3u);
  EXPECT_TRUE(llmfs::report::row(t, 3, 2).empty());  // past the last row
  EXPECT_TRUE(llmfs::report::row(t, 0, 0).empty());
}

}  // namespace
