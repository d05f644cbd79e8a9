// Chapter 17
#pragma once
/// \file
/// \brief The nn module's one typed error: parameters, initialization, token
/// embeddings, Linear and Q/K/V projections (Chapters 17, 18, 19 and 26).

#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include <llmfs/autograd/error.hpp>
#include <llmfs/core/error.hpp>

namespace llmfs::nn {

/// What went wrong while building or applying a layer.
enum class NnErrorCode {
  empty_name,       ///< a parameter or layer name is empty
  duplicate_name,   ///< two parameters of one collection share a name
  duplicate_node,   ///< two parameters of one collection are the same tape node
  released_tape,    ///< the tape to create parameters on was released
  different_tapes,  ///< the parameters of one layer live on different tapes
  zero_width,       ///< an input or output width (fan-in, fan-out) is zero
  size_overflow,    ///< a parameter's element count overflows (or exceeds what a tensor
                    ///< holds)
  weight_rank,      ///< a weight is not a matrix `[in, out]`
  bias_shape,       ///< a bias is not a vector `[out]`
  width_mismatch,   ///< matrices that must agree (query, key, value) have different
                    ///< shapes
  input_rank,       ///< the input has fewer than two axes `[..., T, in]`
  input_width,      ///< the input's last axis differs from the layer's input width
  bad_scale,        ///< an initialization scale is negative, infinite or NaN
  token_count,      ///< a token grid does not hold B·T ids
  token_out_of_range,  ///< a token id is outside `[0, V)`
  autograd,            ///< a tape operation failed; `cause` holds its AutogradError
};

/// The fixed description of a code, e.g. `"duplicate parameter name"`.
[[nodiscard]] std::string_view describe(NnErrorCode code) noexcept;

/// One typed nn error: the kind, the stage that failed (e.g. `linear attention.query`),
/// a detail sentence, and for NnErrorCode::autograd the tape error it wraps. Formats as
/// `stage: description (detail)` followed by `: <cause>` when there is one.
using NnError = StageError<NnErrorCode, NnErrorCode::autograd, autograd::AutogradError>;

}  // namespace llmfs::nn
