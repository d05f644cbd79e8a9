"""Reference cases for chapters 27-30 (one head, causal mask, RoPE, multi-head), float64.

Each function returns (seed, description, inputs, tensors): `inputs` names the tensors
drawn from the seeded generator (or fixed by the fixture); `tensors` is the ordered list
of (name, tensor) written to tests/reference/data/<case>.txt.

Random weights are scaled by 1/sqrt(fan_in): with raw randn weights the scaled scores
have a spread of several units and most softmax rows are nearly one-hot, which would
barely exercise the softmax or its gradient.
"""

import math

import torch

import reference_common as rc

F64 = torch.float64


def _weights(rows, cols):
    return (torch.randn(rows, cols, dtype=F64) / math.sqrt(rows)).requires_grad_()


def _single_head_case(seed, causal):
    torch.manual_seed(seed)
    batch, tokens, d_model, d_k = 2, 4, 6, 4
    x = torch.randn(batch, tokens, d_model, dtype=F64).requires_grad_()
    w_q, w_k, w_v = _weights(d_model, d_k), _weights(d_model, d_k), _weights(d_model, d_k)
    upstream = torch.randn(batch, tokens, d_k, dtype=F64)
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    stages = rc.attention(q, k, v, causal=causal)
    loss = (stages["output"] * upstream).sum()
    tensors = [("X", x), ("W_Q", w_q), ("W_K", w_k), ("W_V", w_v), ("upstream", upstream),
               ("Q", q), ("K", k), ("V", v), ("scores", stages["scores"])]
    if causal:
        tensors.append(("masked_scores", stages["masked_scores"]))
    tensors += [("weights", stages["weights"]), ("output", stages["output"]), ("loss", loss)]
    tensors += rc.gradients(loss, [("X", x), ("W_Q", w_q), ("W_K", w_k), ("W_V", w_v)])
    return tensors


def ch27_self_attention():
    """One scaled dot-product head, no mask."""
    tensors = _single_head_case(27, causal=False)
    return (27, "one head, B=2 T=4 d_model=6 d_k=4, scores=QK^T/sqrt(d_k), no mask; "
            "loss=sum(output*upstream)", ["X", "W_Q", "W_K", "W_V", "upstream"], tensors)


def ch28_causal():
    """One scaled dot-product head with the additive causal mask."""
    tensors = _single_head_case(28, causal=True)
    return (28, "one causal head, B=2 T=4 d_model=6 d_k=4, additive mask (-inf above the "
            "diagonal); scores are before the mask, masked_scores after; loss=sum(output*upstream)",
            ["X", "W_Q", "W_K", "W_V", "upstream"], tensors)


def ch29_rope():
    """RoPE alone at two (base, offset) settings, then one causal head with RoPE on Q and K."""
    torch.manual_seed(29)
    q = torch.randn(2, 5, 8, dtype=F64).requires_grad_()
    k = torch.randn(2, 5, 8, dtype=F64).requires_grad_()
    upstream_q = torch.randn(2, 5, 8, dtype=F64)
    upstream_k = torch.randn(2, 5, 8, dtype=F64)
    tensors = [("Q", q), ("K", k), ("upstream_Q", upstream_q), ("upstream_K", upstream_k)]
    inputs = ["Q", "K", "upstream_Q", "upstream_K"]
    for base, offset in ((10000, 3), (100, 0)):
        prefix = "rope_b%d_o%d." % (base, offset)
        q_rot, k_rot = rc.rope(q, base, offset), rc.rope(k, base, offset)
        loss = (q_rot * upstream_q).sum() + (k_rot * upstream_k).sum()
        tensors += [(prefix + "rope_base", rc.scalar(base)), (prefix + "rope_offset", rc.scalar(offset)),
                    (prefix + "theta", rc.rope_theta(8, base)),
                    (prefix + "Q_rotated", q_rot), (prefix + "K_rotated", k_rot), (prefix + "loss", loss)]
        tensors += [(prefix + n, g) for n, g in rc.gradients(loss, [("Q", q), ("K", k)])]

    # One causal head with RoPE on Q and K: B=2, T=5, d=8 (d_k = 8), base 10000, offset 0.
    base, offset = 10000, 0
    x = torch.randn(2, 5, 8, dtype=F64).requires_grad_()
    w_q, w_k, w_v = _weights(8, 8), _weights(8, 8), _weights(8, 8)
    upstream = torch.randn(2, 5, 8, dtype=F64)
    inputs += ["attn.X", "attn.W_Q", "attn.W_K", "attn.W_V", "attn.upstream"]
    q_proj, k_proj, v_proj = x @ w_q, x @ w_k, x @ w_v
    q_rot, k_rot = rc.rope(q_proj, base, offset), rc.rope(k_proj, base, offset)
    stages = rc.attention(q_rot, k_rot, v_proj, causal=True)
    loss = (stages["output"] * upstream).sum()
    named = [("X", x), ("W_Q", w_q), ("W_K", w_k), ("W_V", w_v), ("upstream", upstream),
             ("rope_base", rc.scalar(base)), ("rope_offset", rc.scalar(offset)),
             ("Q", q_proj), ("K", k_proj), ("V", v_proj), ("Q_rotated", q_rot), ("K_rotated", k_rot),
             ("scores", stages["scores"]), ("masked_scores", stages["masked_scores"]),
             ("weights", stages["weights"]), ("output", stages["output"]), ("loss", loss)]
    named += rc.gradients(loss, [("X", x), ("W_Q", w_q), ("W_K", w_k), ("W_V", w_v)])
    tensors += [("attn." + n, t) for n, t in named]
    return (29, "RoPE on Q,K [2,5,8] at (base 10000, offset 3) and (base 100, offset 0), "
            "loss=sum(Q_rot*upstream_Q)+sum(K_rot*upstream_K); then attn.*: one causal head "
            "B=2 T=5 d=8 with RoPE (base 10000, offset 0) on Q and K", inputs, tensors)


def _multi_head_tensors(x, w_q, w_k, w_v, w_o, upstream, heads, base, offset):
    stages = rc.multi_head(x, w_q, w_k, w_v, w_o, heads, rope_base=base, rope_offset=offset)
    loss = (stages["output"] * upstream).sum()
    tensors = [("X", x), ("W_Q", w_q), ("W_K", w_k), ("W_V", w_v), ("W_O", w_o), ("upstream", upstream),
               ("heads", rc.scalar(heads)), ("rope_base", rc.scalar(base)), ("rope_offset", rc.scalar(offset))]
    for name in ("Q", "K", "V", "Q_heads", "K_heads", "V_heads", "Q_rotated", "K_rotated", "scores",
                 "masked_scores", "weights", "head_outputs", "merged", "output"):
        tensors.append((name, stages[name]))
    tensors.append(("loss", loss))
    tensors += rc.gradients(loss, [("X", x), ("W_Q", w_q), ("W_K", w_k), ("W_V", w_v), ("W_O", w_o)])
    return tensors


def ch30_fixture():
    """The chapter-30 seed fixture, exactly: identity projections, block-swap W_O."""
    c1, s1, c2, s2 = math.cos(1.0), math.sin(1.0), math.cos(2.0), math.sin(2.0)
    x = torch.tensor([[[1.0, 0.0, 1.0, 0.0], [c1, -s1, 0.0, 1.0], [c2, -s2, 1.0, 1.0]]],
                     dtype=F64).requires_grad_()
    eye = [torch.eye(4, dtype=F64).requires_grad_() for _ in range(3)]
    w_o = torch.tensor([[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0],
                        [1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]], dtype=F64).requires_grad_()
    upstream = torch.tensor([1.0, -0.5, 0.25, 0.75, -0.3, 0.8, 1.2, -0.4, 0.6, 0.1, -0.7, 0.9],
                            dtype=F64).reshape(1, 3, 4)
    tensors = _multi_head_tensors(x, eye[0], eye[1], eye[2], w_o, upstream, heads=2, base=100, offset=0)
    return ("none (fixed fixture)",
            "chapter-30 fixture: B=1 T=3 d_model=4 h=2 d_h=2, W_Q=W_K=W_V=I, W_O swaps the two "
            "2x2 blocks ([in,out]), RoPE base 100 offset 0, causal; loss=sum(output*upstream); "
            "gradients in [in,out] layout", ["X", "W_Q", "W_K", "W_V", "W_O", "upstream"], tensors)


def ch30_random():
    """A random multi-head case with RoPE: B=2, T=5, d=8, h=2, base 10000, offset 1."""
    torch.manual_seed(30)
    x = torch.randn(2, 5, 8, dtype=F64).requires_grad_()
    w_q, w_k, w_v, w_o = (_weights(8, 8) for _ in range(4))
    upstream = torch.randn(2, 5, 8, dtype=F64)
    tensors = _multi_head_tensors(x, w_q, w_k, w_v, w_o, upstream, heads=2, base=10000, offset=1)
    return (30, "random multi-head causal attention with RoPE: B=2 T=5 d_model=8 h=2 d_h=4, "
            "base 10000, offset 1, weights randn/sqrt(8); loss=sum(output*upstream)",
            ["X", "W_Q", "W_K", "W_V", "W_O", "upstream"], tensors)


CASES = {
    "ch27_self_attention": ch27_self_attention,
    "ch28_causal": ch28_causal,
    "ch29_rope": ch29_rope,
    "ch30_fixture": ch30_fixture,
    "ch30_random": ch30_random,
}
