#!/usr/bin/python3
"""Write (or check) Chapters 37-38's reference: tests/reference/data/generation/ch38_*.txt.

    /usr/bin/python3 tests/reference/make_kv_cache_reference.py          # rewrite
    /usr/bin/python3 tests/reference/make_kv_cache_reference.py --check  # exit 1 if stale

Incremental decoding of Chapter 32's PyTorch float64 decoder (decoder_reference.py) with
a key/value cache written here, independently of the C++ one: per layer, a list of rotated
keys and of values [B,h,t,d_h], concatenated along t as tokens arrive; each new token's
query is rotated at its absolute position and attends over every cached slot. The prompt
[B, L] is prefilled in one call, then greedy decoding (arg max, lowest id on a tie) adds
one token per row per step until the context is full. Stored: the drawn parameters and
prompt, the generated ids, every step's logits [B, V], and each layer's cache at the end.
The script also checks its own cache against decoder_reference.forward() on the final
sequence (every step within 1e-12) before writing anything.

The C++ test (tests/chapters/ch38_cached_generation_test.cpp) loads the parameters into
models::DecoderModel::from_values, runs generation::generate() with greedy_chooser() and
compares tokens exactly and logits and caches within 1e-12.

Format: tests/reference/README.md (`NAME|shape=[..]|values=..`, `# inputs:` lists the
drawn tensors, compared exactly by --check; computed tensors within 1e-10 relative).
"""

import math
import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference_common as rc  # noqa: E402
from decoder_reference import (DecoderConfig, forward, parameter_specs, rms_norm,  # noqa: E402
                               rope, swiglu)
from make_decoder_reference import cases_main, draw_parameters  # noqa: E402
from text_common import SplitMix64  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "generation"
SCRIPT = "make_kv_cache_reference.py"

# name: (config, batch B, prompt length L, seed)
CASES = {
    "ch38_cached_decode": (DecoderConfig(vocab_size=11, model_width=8, heads=2, layers=2,
                                         hidden_width=12, context_length=12, rope_base=100.0,
                                         epsilon=1e-6), 2, 3, 3801),
    "ch38_cached_single_head": (DecoderConfig(vocab_size=7, model_width=4, heads=1,
                                              layers=3, hidden_width=6, context_length=9,
                                              rope_base=10000.0, epsilon=1e-5), 1, 1, 3802),
}


class LayerCache:
    """One layer's cache: rotated keys and values [B, h, t, d_h], growing along t."""

    def __init__(self):
        self.keys = None
        self.values = None

    def length(self):
        return 0 if self.keys is None else self.keys.shape[2]

    def append(self, k, v):
        self.keys = k if self.keys is None else torch.cat((self.keys, k), dim=2)
        self.values = v if self.values is None else torch.cat((self.values, v), dim=2)


def cached_attention(config, x, w_q, w_k, w_v, w_o, cache):
    """New rows x [B, n, d] at positions cache.length()..; appends, then attends."""
    b, n, d = x.shape
    h = config.heads
    dh = d // h
    offset = cache.length()

    def split(m):
        return m.reshape(b, n, h, dh).transpose(1, 2)

    q = rope(split(x @ w_q), config.rope_base, offset)
    cache.append(rope(split(x @ w_k), config.rope_base, offset), split(x @ w_v))
    total = cache.length()
    scores = q @ cache.keys.transpose(-1, -2) / math.sqrt(dh)
    # Query i sits at position offset + i: slots after it are masked
    slots = torch.arange(total)[None, :]
    positions = (torch.arange(n) + offset)[:, None]
    mask = torch.where(slots > positions, float("-inf"), 0.0).to(x.dtype)
    weights = torch.softmax(scores + mask, dim=-1)
    return (weights @ cache.values).transpose(1, 2).reshape(b, n, d) @ w_o


def cached_forward(config, params, ids, caches):
    """Logits [B, n, V] for new ids [B, n] continuing the sequences in `caches`."""
    table = params["embedding.weight"]
    x = table[ids]
    for i in range(config.layers):
        p = lambda role: params["blocks.%d.%s.weight" % (i, role)]  # noqa: E731,B023
        a = rms_norm(x, p("attention_norm"), config.epsilon)
        hidden = x + cached_attention(config, a, p("attention.query"), p("attention.key"),
                                      p("attention.value"), p("attention.output"),
                                      caches[i])
        x = hidden + swiglu(rms_norm(hidden, p("ffn_norm"), config.epsilon),
                            p("ffn.gate"), p("ffn.up"), p("ffn.down"))
    return rms_norm(x, params["final_norm.weight"], config.epsilon) @ table.T


def build(name):
    config, batch, prompt_length, seed = CASES[name]
    rng = SplitMix64(seed)
    params = draw_parameters(config, rng)
    prompt = rc.drawn_ids(rng, (batch, prompt_length), config.vocab_size)
    caches = [LayerCache() for _ in range(config.layers)]
    sequence, fresh, steps = prompt, prompt, []
    with torch.no_grad():
        while sequence.shape[1] < config.context_length:
            last = cached_forward(config, params, fresh, caches)[:, -1, :]
            steps.append(last)
            fresh = torch.argmax(last, dim=-1, keepdim=True)  # first maximum: lowest id
            sequence = torch.cat((sequence, fresh), dim=1)
        full = forward(config, params, sequence[:, :-1])
    worst = max(float((full[:, prompt_length - 1 + s, :] - z).abs().max())
                for s, z in enumerate(steps))
    if worst > 1e-12:
        raise SystemExit("%s: the reference cache differs from the full forward by %g"
                         % (name, worst))
    sizes = [("vocab_size", config.vocab_size), ("model_width", config.model_width),
             ("heads", config.heads), ("layers", config.layers),
             ("hidden_width", config.hidden_width),
             ("context_length", config.context_length), ("rope_base", config.rope_base),
             ("epsilon", config.epsilon)]
    tensors = [(k, rc.scalar(v)) for k, v in sizes]
    tensors.append(("prompt", prompt.to(torch.float64)))
    tensors += [(n, params[n]) for n, _ in parameter_specs(config)]
    tensors.append(("tokens", sequence.to(torch.float64)))
    tensors.append(("step_logits", torch.stack(steps)))
    for i, cache in enumerate(caches):
        tensors += [("cache.%d.keys" % i, cache.keys), ("cache.%d.values" % i, cache.values)]
    inputs = [k for k, _ in sizes] + ["prompt"] + [n for n, _ in parameter_specs(config)]
    description = ("%s: V=%d d=%d h=%d N=%d d_ff=%d T_max=%d base=%g eps=%g, B=%d L=%d, "
                   "greedy to T_max" % (name, config.vocab_size, config.model_width,
                                        config.heads, config.layers, config.hidden_width,
                                        config.context_length, config.rope_base,
                                        config.epsilon, batch, prompt_length))
    header = rc.header_lines(SCRIPT, seed, description, "float64", inputs)
    return rc.render_case(header, tensors)


def main(argv):
    return cases_main(argv, CASES, DATA, SCRIPT, build)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
