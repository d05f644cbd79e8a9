// Chapter 11
#include <array>

#include <llmfs/tensor/broadcast.hpp>
#include <llmfs/tensor/matmul.hpp>
#include <llmfs/tensor/strided.hpp>

namespace llmfs::tensor {

namespace {

// The leading (batch) axes of a rank >= 2 shape.
Shape batch_shape(const Shape& shape) {
  return Shape(std::vector<std::size_t>(shape.begin(), shape.end() - 2));
}

// Strides of the batch axes counted in whole matrices, broadcast to `batch`.
std::vector<std::size_t> matrix_strides(const Shape& own_batch, const Shape& batch,
                                        std::size_t matrix_size) {
  std::vector<std::size_t> strides = broadcast_strides(own_batch, batch);
  for (std::size_t& s : strides)
    s *= matrix_size;
  return strides;
}

// c[n,m] = a[n,k] · b[k,m] for one matrix pair; c must hold zeros. The i-p-j loop order
// reads both operands along rows; each c[i,j] still receives its terms in increasing p.
void matmul_kernel(const double* a, const double* b, double* c, std::size_t n,
                   std::size_t k, std::size_t m) {
  for (std::size_t i = 0; i < n; ++i) {
    double* c_row = c + i * m;
    for (std::size_t p = 0; p < k; ++p) {
      const double a_ip = a[i * k + p];
      const double* b_row = b + p * m;
      for (std::size_t j = 0; j < m; ++j)
        c_row[j] += a_ip * b_row[j];
    }
  }
}

}  // namespace

std::expected<Tensor, TensorError> matmul(const Tensor& a, const Tensor& b) {
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  if (sa.rank() < 2 || sb.rank() < 2) {
    return std::unexpected(TensorError{TensorErrorCode::rank_too_small,
                                       "matmul",
                                       {sa, sb},
                                       "both operands need rank >= 2"});
  }
  const std::size_t n = sa[sa.rank() - 2];
  const std::size_t k = sa[sa.rank() - 1];
  const std::size_t m = sb[sb.rank() - 1];
  if (sb[sb.rank() - 2] != k) {
    return std::unexpected(TensorError{TensorErrorCode::inner_dimension_mismatch,
                                       "matmul",
                                       {sa, sb},
                                       fmt::format("{} != {}", k, sb[sb.rank() - 2])});
  }
  const Shape a_batch = batch_shape(sa);
  const Shape b_batch = batch_shape(sb);
  auto batch = broadcast_shapes(a_batch, b_batch, "matmul");
  if (!batch) {
    TensorError error = batch.error();
    error.shapes = {sa, sb};
    error.detail = fmt::format("batch axes {} and {}", a_batch, b_batch);
    return std::unexpected(std::move(error));
  }

  std::vector<std::size_t> out_dims = batch->as_vector();
  out_dims.push_back(n);
  out_dims.push_back(m);
  Tensor out = Tensor::zeros(Shape(std::move(out_dims)));
  const auto a_strides = matrix_strides(a_batch, *batch, n * k);
  const auto b_strides = matrix_strides(b_batch, *batch, k * m);
  const auto c_strides = matrix_strides(*batch, *batch, n * m);
  const double* av = a.values().data();
  const double* bv = b.values().data();
  double* cv = out.mutable_values().data();
  if (out.size() == 0) return out;
  for_each_strided<3>(
      *batch,
      {std::span<const std::size_t>(a_strides), std::span<const std::size_t>(b_strides),
       std::span<const std::size_t>(c_strides)},
      [&](const std::array<std::size_t, 3>& at) {
        matmul_kernel(av + at[0], bv + at[1], cv + at[2], n, k, m);
      });
  return out;
}

}  // namespace llmfs::tensor
