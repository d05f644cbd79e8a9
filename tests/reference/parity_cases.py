"""Reference cases for the appendix (chapter 40): the library against nn.MultiheadAttention.

The worked example is seed 002's: torch.manual_seed(123), B=2 T=5 h=4 d_head=8 d=32, and
X, W_in [d, 3d], W_O [d, d] drawn with torch.randn in that order (raw randn, as in the
lesson). It runs twice, in float64 and in float32; the two dtypes draw different numbers
under one seed, so each file stores its own drawn tensors. Each run computes the lesson's
manual code (combined in-projection, chunk, view + transpose, boolean causal mask, softmax,
merge, W_O) and nn.MultiheadAttention(bias=False, batch_first=True) with
in_proj_weight = W_in^T, out_proj.weight = W_O^T and the additive causal mask, plus the
autograd gradients of loss = sum(output * upstream) through both. The float64 file also
holds what torch does with each failure mode of the lesson's table.

Further random cases (weights randn / sqrt(d), so softmax rows are not one-hot) vary B, T
and h; two of them apply RoPE the library's way (per head, adjacent pairs), which
nn.MultiheadAttention cannot do, so only the manual code runs there.
"""

import math

import torch
import torch.nn as nn

import reference_common as rc

F64, F32 = torch.float64, torch.float32
DTYPE_NAME = {F64: "float64", F32: "float32"}


# region: lesson-manual
def lesson_manual(x, w_in, w_o, heads):
    """The lesson's multi-head attention, written out step by step."""
    batch, tokens, width = x.shape
    head_width = width // heads
    qkv = x @ w_in                                               # [B, T, 3d]
    q, k, v = qkv.chunk(3, dim=-1)                               # [B, T, d] each
    q = q.view(batch, tokens, heads, head_width).transpose(1, 2)  # [B, h, T, d_h]
    k = k.view(batch, tokens, heads, head_width).transpose(1, 2)
    v = v.view(batch, tokens, heads, head_width).transpose(1, 2)
    causal = torch.tril(torch.ones(tokens, tokens, dtype=torch.bool))[None, None]  # [1, 1, T, T]
    scores = q @ k.transpose(-2, -1) / math.sqrt(head_width)     # [B, h, T, T]
    masked = scores.masked_fill(~causal, float("-inf"))
    weights = torch.softmax(masked, dim=-1)
    heads_out = weights @ v                                      # [B, h, T, d_h]
    merged = heads_out.transpose(1, 2).contiguous().view(batch, tokens, width)  # [B, T, d]
    output = merged @ w_o
    return {"QKV": qkv, "Q": qkv[..., :width], "K": qkv[..., width:2 * width], "V": qkv[..., 2 * width:],
            "Q_heads": q, "K_heads": k, "V_heads": v, "scores": scores, "masked_scores": masked,
            "weights": weights, "head_outputs": heads_out, "merged": merged, "output": output}
# endregion: lesson-manual


# region: torch-module
def torch_module(x, w_in, w_o, heads):
    """nn.MultiheadAttention with the same weights: PyTorch stores them as [out, in]."""
    batch, tokens, width = x.shape
    module = nn.MultiheadAttention(embed_dim=width, num_heads=heads, bias=False,
                                   batch_first=True, dtype=x.dtype)
    with torch.no_grad():
        module.in_proj_weight.copy_(w_in.T)   # [3d, d] <- W_in [d, 3d]
        module.out_proj.weight.copy_(w_o.T)   # [d, d]  <- W_O  [d, d]
    additive_mask = rc.causal_mask(tokens, x.dtype)  # 0 on/below the diagonal, -inf above
    output, weights = module(x, x, x, attn_mask=additive_mask, need_weights=True,
                             average_attn_weights=False)
    return module, additive_mask, output, weights
# endregion: torch-module


def _mha_tensors(x, w_in, w_o, upstream, heads):
    """nn.MultiheadAttention's output, per-head weights and gradients, named mha.*."""
    x_leaf = x.detach().clone().requires_grad_()
    module, mask, output, weights = torch_module(x_leaf, w_in.detach(), w_o.detach(), heads)
    loss = (output * upstream).sum()
    grads = torch.autograd.grad(loss, [x_leaf, module.in_proj_weight, module.out_proj.weight])
    return [("mha.in_proj_weight", module.in_proj_weight), ("mha.out_proj_weight", module.out_proj.weight),
            ("mha.attn_mask", mask), ("mha.output", output), ("mha.weights", weights), ("mha.loss", loss),
            ("mha.grad_X", grads[0]), ("mha.grad_in_proj_weight", grads[1]),
            ("mha.grad_out_proj_weight", grads[2])]


def _manual_tensors(x, w_in, w_o, upstream, heads):
    stages = lesson_manual(x, w_in, w_o, heads)
    loss = (stages["output"] * upstream).sum()
    tensors = [(name, stages[name]) for name in ("QKV", "Q", "K", "V", "Q_heads", "K_heads", "V_heads",
                                                 "scores", "masked_scores", "weights", "head_outputs",
                                                 "merged", "output")]
    tensors.append(("loss", loss))
    tensors += rc.gradients(loss, [("X", x), ("W_in", w_in), ("W_O", w_o)])
    return tensors, stages


def _failure_modes(x, w_in, w_o, heads):
    """What torch does with each mistake of the lesson's failure-modes table (forward only)."""
    batch, tokens, width = x.shape
    head_width = width // heads
    x, w_in, w_o = x.detach(), w_in.detach(), w_o.detach()
    q, k, v = (x @ w_in).chunk(3, dim=-1)
    causal = torch.tril(torch.ones(tokens, tokens, dtype=torch.bool))[None, None]

    def attend(qh, kh, vh, mask):
        scores = (qh @ kh.transpose(-2, -1) / math.sqrt(head_width)).masked_fill(~mask, float("-inf"))
        return torch.softmax(scores, dim=-1) @ vh

    def merge(heads_out):
        return heads_out.transpose(1, 2).contiguous().view(batch, tokens, width)

    def split(t):
        return t.view(batch, tokens, heads, head_width).transpose(1, 2)

    tensors, errors = [], {}
    # Wrong split order: view(B, h, T, d_h), no transpose. The shapes look right.
    wrong = [t.reshape(batch, heads, tokens, head_width) for t in (q, k, v)]
    tensors.append(("wrong.split_order.output", merge(attend(*wrong, causal)) @ w_o))
    # Wrong merge order: view(B, T, d) straight from [B, h, T, d_h]. The shape looks right.
    heads_out = attend(split(q), split(k), split(v), causal)
    tensors.append(("wrong.merge_order.output", heads_out.reshape(batch, tokens, width) @ w_o))
    # Missing transpose: attention over the head axis; the [T, T] mask only fits when h == T.
    unsplit = [t.view(batch, tokens, heads, head_width) for t in (q, k, v)]
    try:
        out = attend(*unsplit, causal)
        tensors.append(("wrong.missing_transpose.output", out.transpose(1, 2).reshape(batch, tokens, width) @ w_o))
    except RuntimeError as error:
        errors["missing_transpose"] = str(error).splitlines()[0]
    # Missing contiguous(): view() of the transposed head outputs.
    try:
        heads_out.transpose(1, 2).view(batch, tokens, width)
    except RuntimeError as error:
        errors["missing_contiguous"] = str(error).splitlines()[0]
    # A mask that does not broadcast: one [T, T] table per batch row, [B, T, T], no head axis.
    per_batch = torch.tril(torch.ones(tokens, tokens, dtype=torch.bool)).expand(batch, tokens, tokens)
    try:
        out = attend(split(q), split(k), split(v), per_batch)
        tensors.append(("wrong.mask_batch_only.output", merge(out) @ w_o))
    except RuntimeError as error:
        errors["mask_batch_only"] = str(error).splitlines()[0]
    # Output projection bias: parameter counts with and without biases.
    count = lambda module: rc.scalar(sum(p.numel() for p in module.parameters()))  # noqa: E731
    tensors += [
        ("torch.mha_parameters_bias_false", count(nn.MultiheadAttention(width, heads, bias=False))),
        ("torch.mha_parameters_bias_true", count(nn.MultiheadAttention(width, heads, bias=True))),
        ("torch.out_proj_parameters_default", count(nn.Linear(width, width))),
    ]
    return tensors, errors


def _seed123(dtype):
    torch.manual_seed(123)
    batch, tokens, heads, head_width = 2, 5, 4, 8
    width = heads * head_width
    x = torch.randn(batch, tokens, width, dtype=dtype).requires_grad_()
    w_in = torch.randn(width, 3 * width, dtype=dtype).requires_grad_()
    w_o = torch.randn(width, width, dtype=dtype).requires_grad_()
    upstream = torch.randn(batch, tokens, width, dtype=dtype)  # drawn after the lesson's three
    tensors = [("X", x), ("W_in", w_in), ("W_O", w_o), ("upstream", upstream), ("heads", rc.scalar(heads))]
    manual, stages = _manual_tensors(x, w_in, w_o, upstream, heads)
    tensors += manual
    mha = _mha_tensors(x, w_in, w_o, upstream, heads)
    tensors += mha
    extra = []
    if dtype == F32:
        # The same float32 inputs computed in float64: the exact answer float32 is judged by.
        exact = lesson_manual(x.detach().double(), w_in.detach().double(), w_o.detach().double(), heads)
        tensors += [("float64_of_float32_inputs.output", exact["output"]),
                    ("float64_of_float32_inputs.weights", exact["weights"])]
        mha_out = dict(mha)["mha.output"].detach().double()
        manual_out = stages["output"].detach().double()
        extra = ["# measured: max|manual-mha|=%.3g max|manual-exact|=%.3g max|mha-exact|=%.3g max|output|=%.4g "
                 "(float32 unit roundoff 2^-24=%.3g)"
                 % ((manual_out - mha_out).abs().max(), (manual_out - exact["output"]).abs().max(),
                    (mha_out - exact["output"]).abs().max(), exact["output"].abs().max(), 2.0 ** -24)]
    else:
        wrong, errors = _failure_modes(x, w_in, w_o, heads)
        tensors += wrong
        extra = ["# torch_error.%s: %s" % (name, message) for name, message in sorted(errors.items())]
    description = ("seed 002's worked example in %s: manual_seed(123), B=2 T=5 h=4 d_head=8 d=32, "
                   "X W_in W_O from randn in that order (raw, not scaled), upstream drawn next; lesson's "
                   "manual code (unprefixed) and nn.MultiheadAttention(bias=False, batch_first, additive "
                   "causal mask; mha.*); loss=sum(output*upstream)" % DTYPE_NAME[dtype])
    return 123, description, ["X", "W_in", "W_O", "upstream"], tensors, DTYPE_NAME[dtype], extra


def ch40_seed123_float64():
    return _seed123(F64)


def ch40_seed123_float32():
    return _seed123(F32)


def _random_case(seed, batch, tokens, heads, head_width, rope_base=None, rope_offset=0, failure_modes=False):
    torch.manual_seed(seed)
    width = heads * head_width
    x = torch.randn(batch, tokens, width, dtype=F64).requires_grad_()
    w_in = (torch.randn(width, 3 * width, dtype=F64) / math.sqrt(width)).requires_grad_()
    w_o = (torch.randn(width, width, dtype=F64) / math.sqrt(width)).requires_grad_()
    upstream = torch.randn(batch, tokens, width, dtype=F64)
    tensors = [("X", x), ("W_in", w_in), ("W_O", w_o), ("upstream", upstream), ("heads", rc.scalar(heads))]
    extra = []
    if rope_base is None:
        manual, _ = _manual_tensors(x, w_in, w_o, upstream, heads)
        tensors += manual + _mha_tensors(x, w_in, w_o, upstream, heads)
        what = "no RoPE; manual code and mha.*"
        if failure_modes:
            wrong, errors = _failure_modes(x, w_in, w_o, heads)
            tensors += wrong
            what += "; wrong.*: the lesson's failure modes run in torch"
            extra = ["# torch_error.%s: %s" % (name, message) for name, message in sorted(errors.items())]
    else:
        w_q, w_k, w_v = w_in[:, :width], w_in[:, width:2 * width], w_in[:, 2 * width:]
        stages = rc.multi_head(x, w_q, w_k, w_v, w_o, heads, rope_base=rope_base, rope_offset=rope_offset)
        loss = (stages["output"] * upstream).sum()
        tensors += [("rope_base", rc.scalar(rope_base)), ("rope_offset", rc.scalar(rope_offset))]
        tensors += [(n, stages[n]) for n in ("Q", "K", "V", "Q_heads", "K_heads", "V_heads", "Q_rotated",
                                             "K_rotated", "scores", "masked_scores", "weights", "head_outputs",
                                             "merged", "output")]
        tensors.append(("loss", loss))
        tensors += rc.gradients(loss, [("X", x), ("W_in", w_in), ("W_O", w_o)])
        what = ("RoPE per head (base %g, offset %d) on Q and K, the library's way; manual code only"
                % (rope_base, rope_offset))
    description = ("random B=%d T=%d h=%d d_head=%d d=%d, W_in [d,3d] and W_O randn/sqrt(d), causal; %s; "
                   "loss=sum(output*upstream)" % (batch, tokens, heads, head_width, width, what))
    return seed, description, ["X", "W_in", "W_O", "upstream"], tensors, "float64", extra


def ch40_random_b1_t7_h2():
    return _random_case(401, batch=1, tokens=7, heads=2, head_width=6)


def ch40_random_b1_t4_h4():
    """T == h: the missing-transpose mistake runs without a shape error here."""
    return _random_case(402, batch=1, tokens=4, heads=4, head_width=3, failure_modes=True)


def ch40_random_b3_t4_h3_rope():
    return _random_case(403, batch=3, tokens=4, heads=3, head_width=4, rope_base=10000, rope_offset=0)


def ch40_random_b2_t6_h8_rope():
    return _random_case(404, batch=2, tokens=6, heads=8, head_width=2, rope_base=100, rope_offset=5)


def ch40_exercises():
    """Seed 002's exercises, answered by torch itself: B=3 T=10 h=8 d_head=16."""
    batch, tokens, heads, head_width = 3, 10, 8, 16
    width = heads * head_width
    module = nn.MultiheadAttention(width, heads, bias=False, batch_first=True)
    q = torch.zeros(batch, tokens, width)
    viewed = q.view(batch, tokens, heads, head_width)
    split = viewed.transpose(1, 2)
    mask = torch.tril(torch.ones(tokens, tokens, dtype=torch.bool))[None, None]
    scores_shape = (batch, heads, tokens, tokens)
    separate = sum(p.numel() for p in [nn.Linear(width, width, bias=False).weight for _ in range(3)])
    tensors = [
        ("d_model", rc.scalar(width)),
        ("in_proj_weight_shape", torch.tensor(module.in_proj_weight.shape, dtype=F64)),
        ("W_in_shape", torch.tensor(module.in_proj_weight.T.shape, dtype=F64)),
        ("W_O_shape", torch.tensor(module.out_proj.weight.T.shape, dtype=F64)),
        ("view_strides", torch.tensor(viewed.stride(), dtype=F64)),
        ("split_shape", torch.tensor(split.shape, dtype=F64)),
        ("split_strides", torch.tensor(split.stride(), dtype=F64)),
        ("split_is_contiguous", rc.scalar(split.is_contiguous())),
        ("contiguous_split_strides", torch.tensor(split.contiguous().stride(), dtype=F64)),
        ("mask_shape", torch.tensor(mask.shape, dtype=F64)),
        ("mask_broadcast_shape", torch.tensor(torch.broadcast_shapes(mask.shape, scores_shape), dtype=F64)),
        ("in_proj_parameters_combined", rc.scalar(module.in_proj_weight.numel())),
        ("in_proj_parameters_separate", rc.scalar(separate)),
    ]
    return ("none (shapes only)", "seed 002's exercises answered by torch: B=3 T=10 h=8 d_head=16; shapes, "
            "strides of q.view(B,T,h,d_head).transpose(1,2), the causal mask's broadcast, parameter counts",
            [name for name, _ in tensors], tensors)


CASES = {
    "ch40_seed123_float64": ch40_seed123_float64,
    "ch40_seed123_float32": ch40_seed123_float32,
    "ch40_random_b1_t7_h2": ch40_random_b1_t7_h2,
    "ch40_random_b1_t4_h4": ch40_random_b1_t4_h4,
    "ch40_random_b3_t4_h3_rope": ch40_random_b3_t4_h3_rope,
    "ch40_random_b2_t6_h8_rope": ch40_random_b2_t6_h8_rope,
    "ch40_exercises": ch40_exercises,
}
