// Chapter 17
#include <llmfs/nn/error.hpp>

namespace llmfs::nn {

std::string_view describe(NnErrorCode code) noexcept {
  switch (code) {
    case NnErrorCode::empty_name: return "empty name";
    case NnErrorCode::duplicate_name: return "duplicate parameter name";
    case NnErrorCode::duplicate_node: return "the same tape node listed twice";
    case NnErrorCode::released_tape: return "released tape";
    case NnErrorCode::different_tapes: return "parameters on different tapes";
    case NnErrorCode::zero_width: return "zero width";
    case NnErrorCode::size_overflow: return "parameter size overflows";
    case NnErrorCode::weight_rank: return "weight must be a matrix [in, out]";
    case NnErrorCode::bias_shape: return "bias must be a vector [out]";
    case NnErrorCode::width_mismatch: return "projection widths disagree";
    case NnErrorCode::input_rank:
      return "input must have at least two axes [..., T, in]";
    case NnErrorCode::input_width: return "input width mismatch";
    case NnErrorCode::bad_scale: return "scale must be finite and non-negative";
    case NnErrorCode::token_count: return "token grid is not B·T ids";
    case NnErrorCode::token_out_of_range: return "token id outside the vocabulary";
    case NnErrorCode::autograd: return "tape operation failed";
  }
  return "unknown nn error";
}

}  // namespace llmfs::nn
