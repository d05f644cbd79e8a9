// Chapter 35
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <algorithm>

#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch35 {

namespace {

std::string list(const std::vector<double>& v) {
  return fmt::format("[{:.6f}]", fmt::join(v, ","));
}

// The index of the largest logit of the prompt's last position.
std::size_t argmax_last(const Evidence& e) {
  const auto last = e.prompt_logits.end() - static_cast<long>(kConfig.vocab_size);
  return static_cast<std::size_t>(std::max_element(last, e.prompt_logits.end()) - last);
}

}  // namespace

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("tiny_file=header_bytes:{} file_bytes:{} bytes_of_1.0:{}",
                              e.tiny.header_bytes, e.tiny.file_bytes, e.tiny.one_hex));
  lines.push_back(fmt::format("special_doubles_bit_for_bit={}/8", e.special_equal));
  lines.push_back(fmt::format("model=parameters:{} tensors:{}", e.parameter_count,
                              e.parameter_tensors));
  lines.push_back(
      fmt::format("checkpoint=file_bytes:{} header_bytes:{} data_bytes:{} tensors:{} "
                  "metadata_entries:{}",
                  e.file_bytes, e.header_bytes, e.data_bytes, e.regions.size() - 2,
                  e.metadata_entries));
  lines.push_back(fmt::format("losses_straight={}", list(e.straight)));
  lines.push_back(
      fmt::format("losses_resumed_after_step_{}={}", kSaveAfter, list(e.resumed)));
  lines.push_back(
      fmt::format("resumed_values_bit_for_bit={}/{}", e.equal_values, e.total_values));
  lines.push_back(fmt::format("resumed_state_equal={}", e.state_equal));
  for (const Omission& o : e.omissions)
    lines.push_back(
        fmt::format("resume_without_{}=first_different_step:{} max_difference:{:.1e}",
                    o.left_out, o.first_different, o.max_difference));
  for (const auto& [name, text] : e.errors)
    lines.push_back(fmt::format("error_{}={}", name, text));
  lines.push_back(fmt::format("failed_load_kept_model={}", e.failed_load_kept_model));
  const auto last = e.prompt_logits.end() - static_cast<long>(kConfig.vocab_size);
  lines.push_back(fmt::format("prompt=ids:[{}] last_logits_0_to_3:[{:.6f}] argmax:{}",
                              fmt::join(e.prompt_ids, ","),
                              fmt::join(last, last + 4, ","), argmax_last(e)));
  lines.push_back(
      fmt::format("python_reader_torch_logits=values:{} max_abs_difference:{:.1e}",
                  e.python_values, e.python_max_difference));
  const Exercises& x = e.exercises;
  lines.push_back(fmt::format("exercise_1=two_layer_checkpoint data_bytes:{}",
                              x.two_layer_data_bytes));
  std::vector<std::string> codes;
  for (const auto& [code, count] : x.flip_codes)
    codes.push_back(fmt::format("{}:{}", code, count));
  lines.push_back(fmt::format("exercise_2=tiny_file_bit_flips:{} {}", x.flips,
                              fmt::join(codes, ", ")));
  lines.push_back(
      fmt::format("exercise_3=same_state_same_bytes:{} resumed_equals_straight:{}",
                  x.same_state_same_bytes, x.resumed_bytes_equal_straight));
  return snippets::join_lines(lines);
}

// region: trace-records
// One REGION record per span of the step-4 file (length, header, each tensor) with its
// byte offsets; LOSS per run and step. The diagram reads these and recomputes nothing.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  records.push_back(fmt::format("FILE|bytes={}|header={}|data={}", e.file_bytes,
                                e.header_bytes, e.data_bytes));
  for (const Region& r : e.regions)
    records.push_back(fmt::format("REGION|name={}|begin={}|end={}|shape={}", r.name,
                                  r.begin, r.end, r.shape.empty() ? "-" : r.shape));
  for (std::size_t s = 0; s < e.straight.size(); ++s)
    records.push_back(
        fmt::format("LOSS|run=straight|step={}|loss={:.6f}", s + 1, e.straight[s]));
  for (std::size_t s = 0; s < e.resumed.size(); ++s)
    records.push_back(fmt::format(
        "LOSS|run=resumed|step={}|loss={:.6f}|bitwise_equal={}", kSaveAfter + s + 1,
        e.resumed[s], e.resumed[s] == e.straight[kSaveAfter + s]));
  for (const Omission& o : e.omissions)
    records.push_back(fmt::format(
        "OMISSION|left_out={}|first_different_step={}|max_difference={:.1e}",
        o.left_out, o.first_different, o.max_difference));
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch35
