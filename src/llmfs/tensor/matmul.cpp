// Chapter 11
#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

#include <llmfs/core/try.hpp>
#include <llmfs/tensor/broadcast.hpp>
#include <llmfs/tensor/matmul.hpp>
#include <llmfs/tensor/strided.hpp>

namespace llmfs::tensor {

namespace {

// region: matmul-kernel
// c[n,m] = a[n,k] · b[k,m] for one matrix pair; c must hold zeros. The i-p-j loop order
// reads b and c along rows (stride 1) in the inner loop; each c[i,j] still receives its
// terms a[i,p]·b[p,j] in increasing p, added to 0.0, exactly as the i-j-p dot product
// would: the two orders give the same bits, and only the speed differs.
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
// endregion: matmul-kernel

// region: matmul-batch-axes
// The leading (batch) axes of a rank >= 2 shape.
Shape batch_shape(const Shape& shape) {
  return Shape(std::vector<std::size_t>(shape.begin(), shape.end() - 2));
}

// Strides of the batch axes counted in whole matrices, broadcast to `batch`: stride 0
// on a batch axis of length 1 reuses the same matrix for every batch entry.
std::vector<std::size_t> matrix_strides(const Shape& own_batch, const Shape& batch,
                                        std::size_t matrix_size) {
  std::vector<std::size_t> strides = broadcast_strides(own_batch, batch);
  for (std::size_t& s : strides)
    s *= matrix_size;
  return strides;
}
// endregion: matmul-batch-axes

// region: matmul-checks
// Both operands are matrices or stacks of them, the inner lengths agree, and the batch
// axes broadcast (the error then names the whole shapes and both batch parts).
[[nodiscard]] std::expected<Shape, TensorError> check_matmul(const Shape& sa,
                                                             const Shape& sb) {
  if (sa.rank() < 2 || sb.rank() < 2) {
    return std::unexpected(TensorError{TensorErrorCode::rank_too_small,
                                       "matmul",
                                       {sa, sb},
                                       "both operands need rank >= 2"});
  }
  const std::size_t k = sa[sa.rank() - 1], rows_b = sb[sb.rank() - 2];
  if (rows_b != k) {
    return std::unexpected(TensorError{TensorErrorCode::inner_dimension_mismatch,
                                       "matmul",
                                       {sa, sb},
                                       fmt::format("{} != {}", k, rows_b)});
  }
  auto batch = broadcast_shapes(batch_shape(sa), batch_shape(sb), "matmul");
  if (!batch) {
    TensorError error = batch.error();
    error.shapes = {sa, sb};
    error.detail =
        fmt::format("batch axes {} and {}", batch_shape(sa), batch_shape(sb));
    return std::unexpected(std::move(error));
  }
  // [m,0]·[0,n] holds no element, yet its [m,n] product may hold too many.
  std::vector<std::size_t> out = batch->as_vector();
  out.insert(out.end(), {sa[sa.rank() - 2], sb[sb.rank() - 1]});
  LLMFS_TRY(checked_element_count(Shape(std::move(out)), "matmul"));
  return batch;
}
// endregion: matmul-checks

// region: fast-micro-kernel
// GCC generic vectors of W doubles: `+` and `*` act lane by lane, a scalar operand is
// broadcast to every lane, and each lane rounds exactly as a scalar double does.
template <std::size_t W>
struct Lanes {
  typedef double type __attribute__((vector_size(W * sizeof(double))));
};

// An MR × NV·W tile of c in registers while p runs over one block of the inner axis,
// reading packed a and b (MR values of column p of a, NV·W of row p of b, contiguous).
// Each c[i,j] is one lane receiving a[i,p]·b[p,j] in increasing p, from +0.0 on the
// `first` p-block (c unread), else from the sum c holds: the teaching loop's additions.
template <std::size_t W, std::size_t NV, std::size_t MR>
[[gnu::always_inline]] inline void micro_tile(std::size_t kc, const double* pa,
                                              const double* pb, double* c,
                                              std::size_t ldc, bool first) {
  using V = typename Lanes<W>::type;
  V acc[MR][NV] = {};  // +0.0 in every lane
  if (!first) {
#pragma GCC unroll 16
    for (std::size_t r = 0; r < MR; ++r)
#pragma GCC unroll 8
      for (std::size_t v = 0; v < NV; ++v)
        std::memcpy(&acc[r][v], c + r * ldc + v * W, sizeof(V));
  }
  for (std::size_t p = 0; p < kc; ++p, pa += MR, pb += NV * W) {
    V b_row[NV];
#pragma GCC unroll 8
    for (std::size_t v = 0; v < NV; ++v)
      std::memcpy(&b_row[v], pb + v * W, sizeof(V));
#pragma GCC unroll 16
    for (std::size_t r = 0; r < MR; ++r)
#pragma GCC unroll 8
      for (std::size_t v = 0; v < NV; ++v)
        acc[r][v] += pa[r] * b_row[v];  // one rounded product, one rounded sum
  }
#pragma GCC unroll 16
  for (std::size_t r = 0; r < MR; ++r)
#pragma GCC unroll 8
    for (std::size_t v = 0; v < NV; ++v)
      std::memcpy(c + r * ldc + v * W, &acc[r][v], sizeof(V));
}
// endregion: fast-micro-kernel

// region: fast-edge-tile
// A tile that reaches past the last row or column of c runs on a copy: on a later
// p-block the rows and columns that exist are copied in (on the first, nothing is
// read), and only the lanes that exist are copied back. The packed panels hold zeros
// past the edge, so the lanes that do not exist never matter.
template <class Isa>
[[gnu::always_inline]] inline void tile(std::size_t kc, const double* pa,
                                        const double* pb, double* c, std::size_t ldc,
                                        std::size_t rows, std::size_t cols,
                                        bool first) {
  constexpr std::size_t mr = Isa::MR, nr = Isa::W * Isa::NV;
  if (rows == mr && cols == nr) {
    micro_tile<Isa::W, Isa::NV, mr>(kc, pa, pb, c, ldc, first);
    return;
  }
  alignas(64) double copy[mr * nr] = {};
  if (!first) {
    for (std::size_t r = 0; r < rows; ++r)
      std::copy_n(c + r * ldc, cols, copy + r * nr);
  }
  micro_tile<Isa::W, Isa::NV, mr>(kc, pa, pb, copy, nr, first);
  for (std::size_t r = 0; r < rows; ++r)
    std::copy_n(copy + r * nr, cols, c + r * ldc);
}
// endregion: fast-edge-tile

// One matrix pair of the batch: c [n,m] = a [n,k] · b [k,m]. The fast paths never read
// c before the first p-block has written it; the teaching loop needs c to hold zeros.
// Element (i,p) of a sits at a[i·a_row + p·a_col], element (p,j) of b at b[p·b_row +
// j·b_col]: a transposed operand is read in place.
struct MatrixPair {
  const double* a;
  const double* b;
  double* c;
  std::size_t n, k, m;
  std::size_t a_row, a_col, b_row, b_col;
  std::size_t ldc;  // c's row stride: m for a whole product, more for a part of one
};

// region: fast-packing
// A block of one operand, kc values along the inner axis p by `count` along the other
// axis t, copied into micro-panels of W: panel q holds the block's element (q·W + t, p)
// at (q·kc + p)·W + t, so the tile reads p's W values from consecutive addresses (zeros
// past `count`). Element (t, p) of the block sits at from[t·t_stride + p·p_stride]: for
// a, t is the row (W = MR); for b, t is the column (W = NR). Packing only moves
// numbers; reading an operand through its two strides is what lets Aᵀ·B and A·Bᵀ use it
// without a transposed copy.
template <std::size_t W>
[[gnu::always_inline]] inline void pack_panel(const double* from, std::size_t t_stride,
                                              std::size_t p_stride, std::size_t count,
                                              std::size_t kc, double* packed) {
  for (std::size_t q = 0; q * W < count; ++q, packed += kc * W, from += W * t_stride) {
    const std::size_t width = std::min(W, count - q * W);
    // A whole panel is copied without a test per element (a product with few columns,
    // such as attention's [T,T]·[T,32], spends a tenth of its time packing a); where
    // p's W values already adjoin (b stored row by row, a read transposed): one block
    // copy each.
    if (width == W && t_stride == 1) {
      for (std::size_t p = 0; p < kc; ++p)
        std::memcpy(packed + p * W, from + p * p_stride, W * sizeof(double));
      continue;
    }
    if (width == W) {  // through both strides (a stored row by row, or q·kᵀ's kᵀ)
      for (std::size_t p = 0; p < kc; ++p)
#pragma GCC unroll 32
        for (std::size_t t = 0; t < W; ++t)
          packed[p * W + t] = from[t * t_stride + p * p_stride];
      continue;
    }
    for (std::size_t p = 0; p < kc; ++p)
      for (std::size_t t = 0; t < W; ++t)
        packed[p * W + t] = t < width ? from[t * t_stride + p * p_stride] : 0.0;
  }
}
// endregion: fast-packing

// region: fast-block-sizes
// The cache blocks (Goto & van de Geijn 2008), per instruction set: a kc × nr
// micro-panel of packed b is read by every tile of one column of tiles, an mc × kc
// block of packed a stays in L2 while every micro-panel of b passes it, and a kc × nc
// block of packed b (4 MiB at most) is reused by every row block. Chapter 42's
// benchmark chose them on the machine each path was measured on.
struct CacheBlocks {
  std::size_t kc;  // the inner-axis block
  std::size_t mc;  // rows of a per packed block
  std::size_t nc;  // columns of b per packed block
};
// Skylake-X (48 KiB L1, 2 MiB L2): a's block 96·256·8 = 192 KiB; kc = 256 was faster
// than 128 and 512 there.
constexpr CacheBlocks kAvx512Blocks{256, 96, 2048};
// Zen 3 (32 KiB L1, 512 KiB L2): b's micro-panel 256·8·8 = 16 KiB and a's micro-panel
// 256·6·8 = 12 KiB share L1, a's block (192 KiB) fits L2, and b's block 256·1024·8 =
// 2 MiB of the L3. nc = 1024 beat 2048 at n = 2048 there (about 3 % of the ceiling);
// kc = 128, mc = 144 and mc = 192 were slower; mc = 48 or 72 and kc = 384 no better.
constexpr CacheBlocks kAvx2Blocks{256, 96, 1024};
constexpr CacheBlocks kPortableBlocks{256, 96, 2048};
constexpr std::size_t kMaxBlockK =
    std::max({kAvx512Blocks.kc, kAvx2Blocks.kc, kPortableBlocks.kc});
constexpr std::size_t kMaxBlockRows =
    std::max({kAvx512Blocks.mc, kAvx2Blocks.mc, kPortableBlocks.mc});
constexpr std::size_t kMaxBlockM =
    std::max({kAvx512Blocks.nc, kAvx2Blocks.nc, kPortableBlocks.nc});
constexpr std::size_t kMaxPanelWidth = 32;  // the widest nr (AVX-512: 4 vectors of 8)
constexpr std::size_t kMaxPanelRows = 8;    // the tallest MR
// endregion: fast-block-sizes

// The rows of c the next tile will load, asked for now: the next tile down (or the top
// of the next column), so that its sums arrive from L2 or L3 while this tile computes.
// `block` is c's element (i0, j0); only a hint, it reads nothing and changes no value.
template <class Isa>
[[gnu::always_inline]] inline void prefetch_next_tile(const double* block,
                                                      std::size_t ldc, std::size_t mc,
                                                      std::size_t nc, std::size_t i,
                                                      std::size_t j) {
  constexpr std::size_t mr = Isa::MR, nr = Isa::W * Isa::NV;
  const bool down = i + mr < mc;
  const std::size_t ni = down ? i + mr : 0, nj = down ? j : j + nr;
  if (nj >= nc) return;
  const std::size_t rows = std::min(mr, mc - ni), last = std::min(nr, nc - nj) - 1;
  for (std::size_t r = 0; r < rows; ++r) {
    const double* row = block + (ni + r) * ldc + nj;
    __builtin_prefetch(row, 1);
    __builtin_prefetch(row + last, 1);
  }
}

// region: fast-blocking
// Rows row0 … row1−1 of c, in BLIS's five loops around the micro-kernel. The p-blocks
// run in increasing order, and within one the tile adds p in increasing order, so every
// c[i,j] still receives a[i,0]·b[0,j], a[i,1]·b[1,j], … one after the other: blocking i
// and j only chooses which outputs are worked on together; blocking p pauses each sum
// in c and resumes it.
template <class Isa>
[[gnu::always_inline]] inline void blocked_rows(const MatrixPair& x, std::size_t row0,
                                                std::size_t row1, double* packed_a,
                                                double* packed_b) {
  constexpr std::size_t mr = Isa::MR, nr = Isa::W * Isa::NV;
  constexpr CacheBlocks blocks = Isa::blocks;
  for (std::size_t j0 = 0; j0 < x.m; j0 += blocks.nc) {
    const std::size_t nc = std::min(blocks.nc, x.m - j0);
    for (std::size_t p0 = 0; p0 < x.k; p0 += blocks.kc) {
      const std::size_t kc = std::min(blocks.kc, x.k - p0);
      pack_panel<nr>(x.b + p0 * x.b_row + j0 * x.b_col, x.b_col, x.b_row, nc, kc,
                     packed_b);
      for (std::size_t i0 = row0; i0 < row1; i0 += blocks.mc) {
        const std::size_t mc = std::min(blocks.mc, row1 - i0);
        pack_panel<mr>(x.a + i0 * x.a_row + p0 * x.a_col, x.a_row, x.a_col, mc, kc,
                       packed_a);
        for (std::size_t j = 0; j < nc; j += nr)
          for (std::size_t i = 0; i < mc; i += mr) {
            double* block = x.c + i0 * x.ldc + j0;
            prefetch_next_tile<Isa>(block, x.ldc, mc, nc, i, j);
            tile<Isa>(kc, packed_a + i * kc, packed_b + j * kc, block + i * x.ldc + j,
                      x.ldc, std::min(mr, mc - i), std::min(nr, nc - j), p0 == 0);
          }
      }
    }
  }
}
// endregion: fast-blocking

// One instance of the blocked kernel: rows row0 … row1−1 of a pair, two packing
// buffers.
using RowsKernel = void (*)(const MatrixPair&, std::size_t, std::size_t, double*,
                            double*);

// region: fast-dispatch
// One instance of the blocked kernel per instruction set: W doubles per vector, NV
// vectors and MR rows per tile (accumulators, b's row and a's broadcast: 29 of 32 zmm,
// 15 of 16 ymm). GCC compiles each body for its target only; the caller checks the
// processor first (__builtin_cpu_supports). No FMA: -ffp-contract=off holds here too.
struct Portable {
  static constexpr std::size_t W = 2, NV = 2, MR = 4;
  static constexpr CacheBlocks blocks = kPortableBlocks;
};
struct Avx2 {
  static constexpr std::size_t W = 4, NV = 2, MR = 6;
  static constexpr CacheBlocks blocks = kAvx2Blocks;
};
struct Avx512 {
  static constexpr std::size_t W = 8, NV = 4, MR = 6;
  static constexpr CacheBlocks blocks = kAvx512Blocks;
};
void rows_portable(const MatrixPair& x, std::size_t r0, std::size_t r1, double* pa,
                   double* pb) {
  blocked_rows<Portable>(x, r0, r1, pa, pb);
}
#if defined(__x86_64__)
[[gnu::target("avx2")]] void rows_avx2(const MatrixPair& x, std::size_t r0,
                                       std::size_t r1, double* pa, double* pb) {
  blocked_rows<Avx2>(x, r0, r1, pa, pb);
  __builtin_ia32_vzeroupper();  // upper halves clean for the scalar code after
}
[[gnu::target("avx512f")]] void rows_avx512f(const MatrixPair& x, std::size_t r0,
                                             std::size_t r1, double* pa, double* pb) {
  blocked_rows<Avx512>(x, r0, r1, pa, pb);
  __builtin_ia32_vzeroupper();
}
#endif

RowsKernel rows_kernel(MatmulPath path) {
#if defined(__x86_64__)
  if (path == MatmulPath::avx512f && matmul_path_supported(path)) return rows_avx512f;
  if (path == MatmulPath::avx2 && matmul_path_supported(path)) return rows_avx2;
#endif
  (void)path;
  return rows_portable;
}
// endregion: fast-dispatch

// Packing buffers, 64-byte aligned (a zmm load never splits a cache line), one pair per
// thread, sized for the blocks this product needs.
struct PackBuffers {
  struct Free {
    void operator()(double* p) const noexcept {
      ::operator delete[](p, std::align_val_t{64});
    }
  };
  std::unique_ptr<double[], Free> a, b;
  PackBuffers(std::size_t a_size, std::size_t b_size)
      : a(alloc(a_size)), b(alloc(b_size)) {}
  static double* alloc(std::size_t n) {
    return static_cast<double*>(::operator new[](
        std::max<std::size_t>(n, 1) * sizeof(double), std::align_val_t{64}));
  }
};

// region: fast-threads
// The output rows of every matrix of the batch as one list (row i of pair e is row
// e·n + i), cut into `threads` contiguous slabs fixed by the shapes alone. Each c[i,j]
// is computed whole by one thread, in the same order whatever the cut, so the bits do
// not depend on the thread count. Thread 0 is the caller; the others join at return.
void run_partitioned(RowsKernel kernel, const std::vector<MatrixPair>& pairs,
                     std::size_t threads) {
  const MatrixPair& first = pairs.front();
  const std::size_t n = first.n, total = pairs.size() * n;
  const std::size_t kc = std::min(kMaxBlockK, first.k);
  const std::size_t a_size = (std::min(kMaxBlockRows, n) + kMaxPanelRows) * kc;
  const std::size_t b_size = (std::min(kMaxBlockM, first.m) + kMaxPanelWidth) * kc;
  auto slab = [&](std::size_t t) {
    const std::size_t lo = total * t / threads, hi = total * (t + 1) / threads;
    PackBuffers buffers(a_size, b_size);
    for (std::size_t e = lo / n; e < pairs.size() && e * n < hi; ++e)
      kernel(pairs[e], std::max(lo, e * n) - e * n, std::min(hi, (e + 1) * n) - e * n,
             buffers.a.get(), buffers.b.get());
  };
  std::vector<std::jthread> workers;
  for (std::size_t t = 1; t < threads; ++t) {
    try {
      workers.emplace_back(slab, t);
    } catch (const std::system_error&) {
      slab(t);  // no thread to be had: the caller computes that slab itself
    }
  }
  slab(0);
}
// endregion: fast-threads

// A stack of matrices times one shared b ([B,T,d]·[d,d], a projection) as the single
// product [B·T,d]·[d,d] it is when a's matrices are stored one after the other, row by
// row: b is then packed once per block instead of once per batch entry. Each c[i,j]
// still receives the same terms in the same order, so no bit moves.
void merge_shared_b(std::vector<MatrixPair>& pairs) {
  const MatrixPair& f = pairs.front();
  if (pairs.size() < 2 || f.a_col != 1 || f.a_row != f.k) return;
  for (std::size_t e = 1; e < pairs.size(); ++e) {
    const MatrixPair& x = pairs[e];
    if (x.b != f.b || x.a != f.a + e * f.n * f.k || x.c != f.c + e * f.n * f.m) return;
  }
  MatrixPair whole = f;
  whole.n = f.n * pairs.size();
  pairs.assign(1, whole);
}

// Threads worth starting: at most one per `min_flops` of work, never more than rows.
std::size_t useful_threads(const MatmulOptions& options, std::size_t rows,
                           double flops) {
  std::size_t wanted = std::min(options.threads, rows);
  if (options.min_flops_per_thread > 0.0)
    wanted = std::min(wanted,
                      static_cast<std::size_t>(flops / options.min_flops_per_thread));
  return std::max<std::size_t>(1, wanted);
}

}  // namespace

bool matmul_path_supported(MatmulPath path) noexcept {
#if defined(__x86_64__)
  if (path == MatmulPath::avx2) return __builtin_cpu_supports("avx2");
  if (path == MatmulPath::avx512f) return __builtin_cpu_supports("avx512f");
#else
  if (path == MatmulPath::avx2 || path == MatmulPath::avx512f) return false;
#endif
  return true;
}

std::string_view matmul_path_name(MatmulPath path) noexcept {
  switch (path) {
    case MatmulPath::teaching: return "teaching";
    case MatmulPath::portable: return "portable";
    case MatmulPath::avx2: return "avx2";
    case MatmulPath::avx512f: return "avx512f";
  }
  return "unknown";
}

MatmulBlocking matmul_blocking(MatmulPath path) noexcept {
  auto of = []<class Isa>(Isa) {
    return MatmulBlocking{Isa::W,           Isa::NV,        Isa::MR,
                          Isa::W * Isa::NV, Isa::blocks.kc, Isa::blocks.mc,
                          Isa::blocks.nc};
  };
  if (path == MatmulPath::teaching) return {1, 1, 1, 1, 0, 0, 0};
  if (path == MatmulPath::avx512f) return of(Avx512{});
  if (path == MatmulPath::avx2) return of(Avx2{});
  return of(Portable{});
}

MatmulOptions matmul_defaults() noexcept {
  static const MatmulOptions defaults = [] {
    MatmulOptions o;
    for (MatmulPath p : {MatmulPath::avx2, MatmulPath::avx512f})
      if (matmul_path_supported(p)) o.path = p;
    if (const char* env = std::getenv("LLMFS_MATMUL_PATH")) {
      for (MatmulPath p : {MatmulPath::teaching, MatmulPath::portable, MatmulPath::avx2,
                           MatmulPath::avx512f})
        if (matmul_path_name(p) == env && matmul_path_supported(p)) o.path = p;
    }
    o.threads = std::max(1u, std::thread::hardware_concurrency());
    if (const char* env = std::getenv("LLMFS_MATMUL_THREADS")) {
      char* end = nullptr;
      const unsigned long wanted = std::strtoul(env, &end, 10);
      if (end != env && *end == '\0' && wanted >= 1 && wanted <= 64) o.threads = wanted;
    }
    return o;
  }();
  return defaults;
}

std::expected<Tensor, TensorError> matmul(const Tensor& a, const Tensor& b) {
  return matmul(a, b, matmul_defaults());
}

namespace {

// The product's [..., n, m] output: zeros where the teaching loop sums into it or there
// are no terms (k = 0), uninitialised where the blocked kernel writes every c[i,j] on
// its first block of terms without reading it.
Tensor output_for(const Shape& batch, std::size_t n, std::size_t k, std::size_t m,
                  MatmulPath path) {
  std::vector<std::size_t> dims = batch.as_vector();
  dims.insert(dims.end(), {n, m});
  if (path == MatmulPath::teaching || k == 0)
    return Tensor::zeros(Shape(std::move(dims)));
  return Tensor::uninitialized(Shape(std::move(dims)));
}

}  // namespace

// region: matmul
// One matrix pair per entry of the broadcast batch: the odometer walks the batch axes
// with three sets of matrix strides and lists each entry's a, b and output. The
// teaching path hands each pair to the i-p-j loop; the fast path splits all their rows
// between the threads.
std::expected<Tensor, TensorError> matmul(const Tensor& a, const Tensor& b,
                                          const MatmulOptions& options) {
  const Shape batch = LLMFS_TRY(check_matmul(a.shape(), b.shape()));
  const Shape& sa = a.shape();
  const Shape& sb = b.shape();
  const std::size_t n = sa[sa.rank() - 2], k = sa[sa.rank() - 1], m = sb[sb.rank() - 1];
  Tensor out = output_for(batch, n, k, m, options.path);
  if (out.size() == 0 || k == 0) return out;
  const auto a_strides = matrix_strides(batch_shape(sa), batch, n * k);
  const auto b_strides = matrix_strides(batch_shape(sb), batch, k * m);
  const auto c_strides = matrix_strides(batch, batch, n * m);
  const double* av = a.values().data();
  const double* bv = b.values().data();
  double* cv = out.mutable_values().data();
  std::vector<MatrixPair> pairs;
  for_each_strided<3>(batch, {a_strides, b_strides, c_strides}, [&](const auto& at) {
    pairs.push_back({av + at[0], bv + at[1], cv + at[2], n, k, m, k, 1, m, 1, m});
  });
  if (options.path == MatmulPath::teaching) {
    for (const MatrixPair& x : pairs)
      matmul_kernel(x.a, x.b, x.c, n, k, m);
    return out;
  }
  const double flops = 2.0 * double(pairs.size() * n) * double(k) * double(m);
  const std::size_t rows = pairs.size() * n;
  merge_shared_b(pairs);
  run_partitioned(rows_kernel(options.path), pairs,
                  useful_threads(options, rows, flops));
  return out;
}
// endregion: matmul

namespace {

// The shape an operand is read as: its last two axes swapped when it is transposed.
Shape as_read(const Shape& shape, Transpose transpose) {
  std::vector<std::size_t> dims = shape.as_vector();
  if (transpose == Transpose::yes && dims.size() >= 2)
    std::swap(dims[dims.size() - 2], dims[dims.size() - 1]);
  return Shape(std::move(dims));
}

// The teaching path on a strided pair: its operands copied into row-major order first
// (the reference may copy; only the fast paths must not).
void teaching_strided(const MatrixPair& x) {
  std::vector<double> a(x.n * x.k), b(x.k * x.m);
  for (std::size_t i = 0; i < x.n; ++i)
    for (std::size_t p = 0; p < x.k; ++p)
      a[i * x.k + p] = x.a[i * x.a_row + p * x.a_col];
  for (std::size_t p = 0; p < x.k; ++p)
    for (std::size_t j = 0; j < x.m; ++j)
      b[p * x.m + j] = x.b[p * x.b_row + j * x.b_col];
  matmul_kernel(a.data(), b.data(), x.c, x.n, x.k, x.m);
}

}  // namespace

// region: matmul-transposed
// The same pairs as matmul's, with each operand's row and column strides swapped when
// it is read transposed: a stored [k,n] and read as [n,k] has element (i,p) at p·n + i.
std::expected<Tensor, TensorError> matmul_transposed(const Tensor& a,
                                                     Transpose transpose_a,
                                                     const Tensor& b,
                                                     Transpose transpose_b,
                                                     const MatmulOptions& options) {
  const Shape sa = as_read(a.shape(), transpose_a),
              sb = as_read(b.shape(), transpose_b);
  const Shape batch = LLMFS_TRY(check_matmul(sa, sb));
  const std::size_t n = sa[sa.rank() - 2], k = sa[sa.rank() - 1], m = sb[sb.rank() - 1];
  Tensor out = output_for(batch, n, k, m, options.path);
  if (out.size() == 0 || k == 0) return out;
  const auto a_strides = matrix_strides(batch_shape(sa), batch, n * k);
  const auto b_strides = matrix_strides(batch_shape(sb), batch, k * m);
  const auto c_strides = matrix_strides(batch, batch, n * m);
  const bool ta = transpose_a == Transpose::yes, tb = transpose_b == Transpose::yes;
  std::vector<MatrixPair> pairs;
  for_each_strided<3>(batch, {a_strides, b_strides, c_strides}, [&](const auto& at) {
    pairs.push_back({a.values().data() + at[0], b.values().data() + at[1],
                     out.mutable_values().data() + at[2], n, k, m, ta ? 1 : k,
                     ta ? n : 1, tb ? 1 : m, tb ? k : 1, m});
  });
  if (options.path == MatmulPath::teaching) {
    for (const MatrixPair& x : pairs)
      teaching_strided(x);
    return out;
  }
  const double flops = 2.0 * double(pairs.size() * n) * double(k) * double(m);
  const std::size_t rows = pairs.size() * n;
  merge_shared_b(pairs);
  run_partitioned(rows_kernel(options.path), pairs,
                  useful_threads(options, rows, flops));
  return out;
}
// endregion: matmul-transposed

// One product on the calling thread straight into the caller's rows: the pair's c row
// stride is the caller's, the blocked kernel writes each c[i,j] on its first p-block
// and never reads what was there, and the packing buffers are the thread's own, grown
// once and reused. The teaching path sums into zeroed rows of a copy.
void multiply_into(const MatrixView& a, const MatrixView& b, double* c, std::size_t ldc,
                   MatmulPath path) {
  const MatrixPair x{a.data,
                     b.data,
                     c,
                     a.rows,
                     a.columns,
                     b.columns,
                     a.row_stride,
                     a.column_stride,
                     b.row_stride,
                     b.column_stride,
                     ldc};
  if (x.n == 0 || x.m == 0) return;
  if (x.k == 0 || path == MatmulPath::teaching) {
    std::vector<double> rows(x.n * x.m, 0.0);
    MatrixPair packed = x;
    packed.c = rows.data();
    if (x.k != 0) teaching_strided(packed);
    for (std::size_t i = 0; i < x.n; ++i)
      std::copy_n(rows.data() + i * x.m, x.m, c + i * ldc);
    return;
  }
  thread_local std::size_t a_capacity = 0, b_capacity = 0;
  thread_local std::unique_ptr<double[], PackBuffers::Free> packed_a, packed_b;
  const std::size_t kc = std::min(kMaxBlockK, x.k);
  const std::size_t a_size = (std::min(kMaxBlockRows, x.n) + kMaxPanelRows) * kc;
  const std::size_t b_size = (std::min(kMaxBlockM, x.m) + kMaxPanelWidth) * kc;
  if (a_size > a_capacity) {
    packed_a.reset(PackBuffers::alloc(a_size));
    a_capacity = a_size;
  }
  if (b_size > b_capacity) {
    packed_b.reset(PackBuffers::alloc(b_size));
    b_capacity = b_size;
  }
  rows_kernel(path)(x, 0, x.n, packed_a.get(), packed_b.get());
}

}  // namespace llmfs::tensor
