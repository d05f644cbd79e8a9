// Chapter 11
#pragma once
/// \file
/// \brief Matrix multiplication, batched over leading axes (Chapter 11): the teaching
/// loop, and a blocked, vectorised, threaded kernel with the same bits.

#include <cstddef>
#include <expected>
#include <string_view>

#include <llmfs/tensor/tensor.hpp>

namespace llmfs::tensor {

/// Which kernel computes a matmul. Every path adds each output's terms
/// `a[i,p]·b[p,j]` from 0.0 in increasing `p`, one rounded multiply and one rounded add
/// per term (the build forbids FMA contraction), so all of them give the same bits.
enum class MatmulPath {
  teaching,  ///< the chapter's i-p-j triple loop, one thread (the reference)
  portable,  ///< the blocked kernel on 2-double GCC generic vectors (any target)
  avx2,      ///< the blocked kernel on 4-double AVX2 vectors
  avx512f,   ///< the blocked kernel on 8-double AVX-512 vectors
};

/// How matmul runs: a path and a thread count.
struct MatmulOptions {
  MatmulPath path = MatmulPath::portable;  ///< kernel; an unsupported one runs portable
  std::size_t threads = 1;  ///< threads over a fixed partition of the output rows (≥ 1)
  /// A product of fewer FLOPs than this per thread uses fewer threads (starting one
  /// costs tens of microseconds); tests set 0 to split even tiny products.
  double min_flops_per_thread = 2097152.0;
};

/// The defaults: the widest path this processor supports (checked at run time with
/// `__builtin_cpu_supports`), unless the environment variable `LLMFS_MATMUL_PATH` names
/// a supported one (e.g. `teaching`, to time a whole program on the reference loop);
/// and the thread count from `LLMFS_MATMUL_THREADS` if it holds a number from 1 to 64,
/// else the number of hardware threads (at least 1). Read once, on the first call.
[[nodiscard]] MatmulOptions matmul_defaults() noexcept;

/// True when this processor can run `path` (teaching and portable always can).
[[nodiscard]] bool matmul_path_supported(MatmulPath path) noexcept;

/// The name of a path: "teaching", "portable", "avx2" or "avx512f".
[[nodiscard]] std::string_view matmul_path_name(MatmulPath path) noexcept;

/// Batched matrix product over the last two axes: `a [..., n, k] · b [..., k, m] ->
/// [..., n, m]`.
///
/// Both operands need rank ≥ 2. Their leading (batch) axes broadcast with numpy rules,
/// so `[B,T,d_in] · [d_in,d_out] -> [B,T,d_out]` (a linear layer) and
/// `[B,h,T,d_h] · [B,h,d_h,T] -> [B,h,T,T]` (attention scores) both work.
/// Each output element is `Σ_p a[i,p]·b[p,j]`, added from 0.0 in increasing `p`: the
/// result is bitwise equal to the naive triple loop whatever the path and the thread
/// count. Runs with matmul_defaults().
/// \return TensorErrorCode::rank_too_small,
///         TensorErrorCode::inner_dimension_mismatch or
///         TensorErrorCode::broadcast_mismatch (of the batch axes), all with op
///         `"matmul"`.
[[nodiscard]] std::expected<Tensor, TensorError> matmul(const Tensor& a,
                                                        const Tensor& b);

/// matmul with an explicit path and thread count (benchmarks, and the tests that prove
/// every path and thread count gives the teaching loop's bits). Same errors.
[[nodiscard]] std::expected<Tensor, TensorError> matmul(const Tensor& a,
                                                        const Tensor& b,
                                                        const MatmulOptions& options);

}  // namespace llmfs::tensor
