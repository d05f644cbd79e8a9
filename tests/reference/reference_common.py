"""Shared pieces of the PyTorch reference scripts.

The functions here follow the project's numeric conventions (BRIEF.md, "Shared numeric
conventions") exactly, written with plain torch operations so that autograd supplies the
gradients: weights are stored [in, out] and applied as X @ W, the causal mask is additive
(0 on and below the diagonal, -inf above), RoPE rotates adjacent pairs (x[2i], x[2i+1]) by
(offset + t) * base^(-2i/d), and multi-head attention projects at full width, splits with
reshape + transpose, rotates Q and K per head, attends causally with scale 1/sqrt(d_h),
merges with the inverse transpose + reshape and projects with W_O.

Data files (tests/reference/data/<case>.txt) hold one tensor per line,
``NAME|shape=[a,b]|values=v0,v1,...`` with 17 significant digits, row-major; lines that
start with ``#`` are comments. Two comment lines carry meaning for the staleness check:
``# dtype: float64|float32`` (the dtype the tensors were computed in) and
``# inputs: A B C`` (tensors drawn from the seeded generator, compared exactly).
"""

import math
import os
import re

import torch

from text_common import joined, uniform

SCRIPT_DIR = os.path.dirname(os.path.abspath(__file__))
DATA_DIR = os.path.join(SCRIPT_DIR, "data")


# ----------------------------------------------------------------------------------------
# Provenance: torch version and the BLAS that actually ran
# ----------------------------------------------------------------------------------------

def blas_description():
    """Describe torch's BLAS: the build's BLAS_INFO and the libblas file really loaded."""
    match = re.search(r"BLAS_INFO=([^,\s]+)", torch.__config__.show())
    build_info = match.group(1) if match else "unknown"
    # A matmul makes sure the BLAS library is loaded before /proc/self/maps is read.
    torch.ones(2, 2, dtype=torch.float64) @ torch.ones(2, 2, dtype=torch.float64)
    loaded = set()
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            for line in maps:
                path = line.split()[-1]
                if re.search(r"/lib(open)?blas[^/]*\.so", path):
                    loaded.add(os.path.realpath(path))
    except OSError:
        pass
    return "BLAS_INFO=%s loaded=%s" % (build_info, ",".join(sorted(loaded)) or "unknown")


def header_lines(script, seed, description, dtype, inputs):
    """The comment block every data file starts with."""
    return [
        "# script: tests/reference/%s" % script,
        "# torch: %s (threads=%d)" % (torch.__version__, torch.get_num_threads()),
        "# blas: %s" % blas_description(),
        "# seed: %s" % seed,
        "# case: %s" % description,
        "# dtype: %s" % dtype,
        "# inputs: %s" % " ".join(inputs),
    ]


# ----------------------------------------------------------------------------------------
# Writing and reading the data format
# ----------------------------------------------------------------------------------------

def format_value(value):
    """17 significant digits: every double (and every float32 widened to double) round-trips."""
    return "%.17g" % value


def tensor_line(name, tensor):
    values = tensor.detach().to(torch.float64).reshape(-1).tolist()
    shape = ",".join(str(n) for n in tensor.shape)
    return "%s|shape=[%s]|values=%s" % (name, shape, ",".join(format_value(v) for v in values))


def render_case(header, tensors):
    """Header comment lines followed by one line per (name, tensor) pair."""
    names = [name for name, _ in tensors]
    if len(set(names)) != len(names):
        raise ValueError("duplicate tensor names: %s" % names)
    return "\n".join(header + [tensor_line(n, t) for n, t in tensors]) + "\n"


def parse_case(text):
    """Parse a data file into (comments: dict, tensors: dict name -> (shape, [float]))."""
    comments, tensors = {}, {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if line.startswith("#"):
            key, _, value = line[1:].strip().partition(":")
            comments[key.strip()] = value.strip()
            continue
        parts = line.split("|")
        if len(parts) != 3 or not parts[1].startswith("shape=[") or not parts[2].startswith("values="):
            raise ValueError("line %d: not NAME|shape=[..]|values=..: %.60s" % (number, line))
        dims = parts[1][len("shape=["):-1]
        shape = [int(n) for n in dims.split(",")] if dims else []
        raw = parts[2][len("values="):]
        values = [float(v) for v in raw.split(",")] if raw else []
        if len(values) != math.prod(shape):
            raise ValueError("line %d: %s has %d values for shape %s" % (number, parts[0], len(values), shape))
        tensors[parts[0]] = (shape, values)
    return comments, tensors


def scalar(value, dtype=torch.float64):
    return torch.tensor(float(value), dtype=dtype)


# ----------------------------------------------------------------------------------------
# Tensors drawn and printed by the chapter scripts (make_*_reference.py)
# ----------------------------------------------------------------------------------------

def tensor_of(values, shape):
    """A float64 tensor of `shape` holding `values` in row-major order."""
    return torch.tensor(values, dtype=torch.float64).reshape(shape)


def drawn(rng, shape, low=-1.0, high=1.0):
    """A float64 tensor of `shape`, its values uniform in [low, high) from the SplitMix64
    `rng` (text_common.uniform), drawn in row-major order."""
    return tensor_of(uniform(rng, math.prod(shape), low, high), shape)


def drawn_ids(rng, shape, vocab):
    """A torch.long tensor of `shape`, its ids rng.below(vocab), drawn in row-major order."""
    return torch.tensor([rng.below(vocab) for _ in range(math.prod(shape))],
                        dtype=torch.long).reshape(shape)


def shape_text(shape):
    """`a,b,c`: the extents of `shape`, comma-separated."""
    return ",".join(str(d) for d in shape)


def tensor_text(tensor):
    """The values of `tensor` in row-major order as text_common.joined prints them."""
    return joined(tensor.detach().reshape(-1).tolist())


# ----------------------------------------------------------------------------------------
# The project's conventions as torch code
# ----------------------------------------------------------------------------------------

def rope_theta(width, base, dtype=torch.float64):
    """theta_i = base^(-2i/width), i = 0 .. width/2 - 1."""
    i = torch.arange(width // 2, dtype=dtype)
    return torch.pow(torch.tensor(float(base), dtype=dtype), -(2.0 * i) / width)


def rope(x, base, offset):
    """Rotate adjacent pairs of the last axis by (offset + t) * theta_i; t is axis -2."""
    tokens, width = x.shape[-2], x.shape[-1]
    positions = torch.arange(tokens, dtype=x.dtype) + offset
    angles = positions[:, None] * rope_theta(width, base, x.dtype)[None, :]  # [T, d/2]
    cos, sin = torch.cos(angles), torch.sin(angles)
    pairs = x.reshape(*x.shape[:-1], width // 2, 2)
    even, odd = pairs[..., 0], pairs[..., 1]
    rotated = torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1)
    return rotated.reshape(x.shape)


def causal_mask(tokens, dtype=torch.float64):
    """Additive mask [T, T]: 0 on and below the diagonal, -inf above it."""
    allowed = torch.tril(torch.ones(tokens, tokens, dtype=torch.bool))
    return torch.zeros(tokens, tokens, dtype=dtype).masked_fill(~allowed, float("-inf"))


def attention(q, k, v, causal):
    """Scaled dot-product attention on the last two axes; returns every stage."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    masked = scores + causal_mask(q.shape[-2], q.dtype) if causal else scores
    weights = torch.softmax(masked, dim=-1)
    return {"scores": scores, "masked_scores": masked, "weights": weights, "output": weights @ v}


def split_heads(x, heads):
    """[B, T, d] -> [B, T, h, d_h] -> [B, h, T, d_h]."""
    batch, tokens, width = x.shape
    return x.reshape(batch, tokens, heads, width // heads).transpose(1, 2)


def merge_heads(x):
    """[B, h, T, d_h] -> [B, T, h, d_h] -> [B, T, d]."""
    batch, heads, tokens, head_width = x.shape
    return x.transpose(1, 2).reshape(batch, tokens, heads * head_width)


def multi_head(x, w_q, w_k, w_v, w_o, heads, rope_base=None, rope_offset=0):
    """The library's multi-head causal attention (RoPE optional), every stage returned."""
    stages = {"Q": x @ w_q, "K": x @ w_k, "V": x @ w_v}
    stages["Q_heads"] = split_heads(stages["Q"], heads)
    stages["K_heads"] = split_heads(stages["K"], heads)
    stages["V_heads"] = split_heads(stages["V"], heads)
    q, k = stages["Q_heads"], stages["K_heads"]
    if rope_base is not None:
        q, k = rope(q, rope_base, rope_offset), rope(k, rope_base, rope_offset)
        stages["Q_rotated"], stages["K_rotated"] = q, k
    attended = attention(q, k, stages["V_heads"], causal=True)
    stages["scores"] = attended["scores"]
    stages["masked_scores"] = attended["masked_scores"]
    stages["weights"] = attended["weights"]
    stages["head_outputs"] = attended["output"]
    stages["merged"] = merge_heads(attended["output"])
    stages["output"] = stages["merged"] @ w_o
    return stages


def gradients(loss, named_leaves):
    """d loss / d leaf for each (name, leaf); returns [("grad_" + name, gradient)]."""
    grads = torch.autograd.grad(loss, [leaf for _, leaf in named_leaves])
    return [("grad_" + name, g) for (name, _), g in zip(named_leaves, grads)]
