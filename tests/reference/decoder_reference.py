"""The book's decoder model (Chapters 31-32) written again in PyTorch float64, importable.

    import sys; sys.path.insert(0, "tests/reference")
    from decoder_reference import DecoderConfig, parameter_specs, forward, loss

Written from the chapters' formulas with plain torch operations, independent of the C++
tape, so that torch.autograd supplies every gradient:

    x_0   = E[ids]                                   E: embedding.weight [V, d]
    a     = RMSNorm(x_i; g1)                          RMSNorm(x) = x / sqrt(mean(x^2) + eps) * g
    h     = x_i + MHA(a)                              causal, RoPE on adjacent pairs per head
    x_i+1 = h + SwiGLU(RMSNorm(h; g2))                SwiGLU(f) = (silu(f W1) * (f W3)) W2
    z     = RMSNorm(x_N; g_final) @ E^T               tied output (Press and Wolf 2017)
    loss  = mean over B*T positions of cross_entropy(z, targets)

Weights are stored [in, out] and applied as X @ W; multi-head attention projects at full
width, splits [B,T,d] -> [B,T,h,d_h] -> [B,h,T,d_h], rotates queries and keys by
(offset + t) * base^(-2i/d_h) on pairs (x[2i], x[2i+1]), scales by 1/sqrt(d_h), masks
strictly above the diagonal with -inf, and merges back before W_O.

Parameter names and order are those of models::decoder_parameter_specs() (decoder.hpp):
embedding.weight; per block blocks.i.attention_norm.weight,
blocks.i.attention.{query,key,value,output}.weight, blocks.i.ffn_norm.weight,
blocks.i.ffn.{gate,up,down}.weight; final_norm.weight.

Chapter 33's trajectory check and Chapter 35's checkpoint loader import this module.
"""

from dataclasses import dataclass
import math

import torch
import torch.nn.functional as F


@dataclass(frozen=True)
class DecoderConfig:
    """models::DecoderConfig's fields, same names and meaning."""
    vocab_size: int
    model_width: int
    heads: int
    layers: int
    hidden_width: int
    context_length: int
    rope_base: float = 10000.0
    epsilon: float = 1e-6
    seed: int = 0


def parameter_specs(config):
    """[(name, shape)] in the model's fixed order."""
    d, f = config.model_width, config.hidden_width
    specs = [("embedding.weight", (config.vocab_size, d))]
    for i in range(config.layers):
        p = "blocks.%d" % i
        specs.append((p + ".attention_norm.weight", (d,)))
        for role in ("query", "key", "value", "output"):
            specs.append(("%s.attention.%s.weight" % (p, role), (d, d)))
        specs.append((p + ".ffn_norm.weight", (d,)))
        specs.append((p + ".ffn.gate.weight", (d, f)))
        specs.append((p + ".ffn.up.weight", (d, f)))
        specs.append((p + ".ffn.down.weight", (f, d)))
    specs.append(("final_norm.weight", (d,)))
    return specs


def parameter_count(config):
    """V*d + N*(2d + 4d^2 + 3*d*d_ff) + d: the formula of Chapter 32."""
    d, f = config.model_width, config.hidden_width
    return config.vocab_size * d + config.layers * (2 * d + 4 * d * d + 3 * d * f) + d


def rms_norm(x, gain, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * gain


def rope(x, base, offset=0):
    """Rotate adjacent pairs of the last axis by (offset + t) * base^(-2i/width)."""
    tokens, width = x.shape[-2], x.shape[-1]
    i = torch.arange(width // 2, dtype=x.dtype)
    theta = torch.pow(torch.tensor(float(base), dtype=x.dtype), -(2.0 * i) / width)
    angles = (torch.arange(tokens, dtype=x.dtype) + offset)[:, None] * theta[None, :]
    cos, sin = torch.cos(angles), torch.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).reshape(x.shape)


def attention(config, x, w_q, w_k, w_v, w_o, offset=0):
    """Causal multi-head self-attention with RoPE; returns (output, weights [B,h,T,T])."""
    b, t, d = x.shape
    h = config.heads
    dh = d // h

    def split(m):
        return m.reshape(b, t, h, dh).transpose(1, 2)

    q = rope(split(x @ w_q), config.rope_base, offset)
    k = rope(split(x @ w_k), config.rope_base, offset)
    v = split(x @ w_v)
    scores = q @ k.transpose(-1, -2) / math.sqrt(dh)
    mask = torch.triu(torch.full((t, t), float("-inf"), dtype=x.dtype), diagonal=1)
    weights = torch.softmax(scores + mask, dim=-1)
    merged = (weights @ v).transpose(1, 2).reshape(b, t, d)
    return merged @ w_o, weights


def swiglu(x, w_gate, w_up, w_down):
    return (F.silu(x @ w_gate) * (x @ w_up)) @ w_down


def block(config, params, index, x, offset=0):
    """One pre-norm block; returns a dict of its intermediates (Chapter 31's names)."""
    p = lambda role: params["blocks.%d.%s.weight" % (index, role)]  # noqa: E731
    a = rms_norm(x, p("attention_norm"), config.epsilon)
    attended, weights = attention(config, a, p("attention.query"), p("attention.key"),
                                  p("attention.value"), p("attention.output"), offset)
    hidden = x + attended
    f = rms_norm(hidden, p("ffn_norm"), config.epsilon)
    fed = swiglu(f, p("ffn.gate"), p("ffn.up"), p("ffn.down"))
    return {"attention_input": a, "attention_weights": weights,
            "attention_output": attended, "hidden": hidden, "ffn_input": f,
            "ffn_output": fed, "output": hidden + fed}


def forward_stages(config, params, ids):
    """Every intermediate for ids (LongTensor [B, T]): embeddings, blocks, normalized, logits."""
    table = params["embedding.weight"]
    x = table[ids]
    stages = {"embeddings": x, "blocks": []}
    for i in range(config.layers):
        record = block(config, params, i, x)
        stages["blocks"].append(record)
        x = record["output"]
    n = rms_norm(x, params["final_norm.weight"], config.epsilon)
    stages["normalized"] = n
    stages["logits"] = n @ table.T
    return stages


def forward(config, params, ids):
    """Logits [B, T, V] for ids [B, T]; params maps every name of parameter_specs()."""
    return forward_stages(config, params, ids)["logits"]


def loss(config, params, inputs, targets):
    """(logits, mean next-token cross-entropy in nats) for inputs and targets [B, T]."""
    logits = forward(config, params, inputs)
    value = F.cross_entropy(logits.reshape(-1, config.vocab_size), targets.reshape(-1))
    return logits, value
