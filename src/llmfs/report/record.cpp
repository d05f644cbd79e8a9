// Chapter 8
#include <llmfs/report/format.hpp>
#include <llmfs/report/record.hpp>

namespace llmfs::report {

Record& Record::field(std::string_view key, std::string_view value) {
  line_ += '|';
  line_ += key;
  line_ += '=';
  line_ += value;
  return *this;
}

Record& Record::field(std::string_view key, double value) {
  return field(key, std::string_view(format_number(value)));
}

Record& Record::field(std::string_view key, const tensor::Shape& value) {
  return field(key, std::string_view(fmt::format("{}", value)));
}

Record& Record::field(std::string_view key, std::span<const double> value) {
  return field(key, std::string_view(format_values(value)));
}

}  // namespace llmfs::report
