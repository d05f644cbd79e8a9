#!/usr/bin/python3
"""Write (or check) Chapters 31-32's reference: tests/reference/data/models/ch32_*.txt.

    /usr/bin/python3 tests/reference/make_decoder_reference.py          # rewrite
    /usr/bin/python3 tests/reference/make_decoder_reference.py --check  # exit 1 if stale

A random decoder model and batch per case, drawn with SplitMix64 (text_common.py), run
through decoder_reference.py (PyTorch float64, torch.autograd): every block's
intermediates, the final norm, the logits, the mean next-token cross-entropy and the
gradient of that loss with respect to every parameter (`grad_<name>`). The C++ test
(tests/chapters/ch32_reference_test.cpp) loads the parameters into
models::DecoderModel::from_values and compares within 1e-12 relative.

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
from decoder_reference import DecoderConfig, forward_stages, parameter_specs  # noqa: E402
from text_common import SplitMix64  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "models"
SCRIPT = "make_decoder_reference.py"
TOLERANCE = 1e-10

# name: (config, batch B, tokens T, seed)
CASES = {
    "ch32_decoder_small": (DecoderConfig(vocab_size=11, model_width=8, heads=2, layers=2,
                                         hidden_width=12, context_length=8, rope_base=100.0,
                                         epsilon=1e-6), 2, 6, 3201),
    "ch32_decoder_deep": (DecoderConfig(vocab_size=7, model_width=8, heads=4, layers=3,
                                        hidden_width=16, context_length=5,
                                        rope_base=10000.0, epsilon=1e-5), 3, 5, 3202),
}


def draw_parameters(config, rng):
    """Tables uniform on [-1, 1); matrices on [-1, 1)/sqrt(fan_in); gains on [0.5, 1.5)."""
    params = {}
    for name, shape in parameter_specs(config):
        if len(shape) == 1:
            params[name] = rc.drawn(rng, shape, 0.5, 1.5)
        elif name == "embedding.weight":
            params[name] = rc.drawn(rng, shape, -1.0, 1.0)
        else:
            params[name] = rc.drawn(rng, shape, -1.0, 1.0) / math.sqrt(shape[0])
    return params


def build(name):
    config, batch, tokens, seed = CASES[name]
    rng = SplitMix64(seed)
    params = draw_parameters(config, rng)
    ids = rc.drawn_ids(rng, (batch, tokens), config.vocab_size)
    targets = rc.drawn_ids(rng, (batch, tokens), config.vocab_size)
    leaves = {n: t.clone().requires_grad_(True) for n, t in params.items()}
    stages = forward_stages(config, leaves, ids)
    logits = stages["logits"]
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, config.vocab_size),
                                             targets.reshape(-1))
    loss.backward()
    sizes = [("vocab_size", config.vocab_size), ("model_width", config.model_width),
             ("heads", config.heads), ("layers", config.layers),
             ("hidden_width", config.hidden_width),
             ("context_length", config.context_length), ("rope_base", config.rope_base),
             ("epsilon", config.epsilon)]
    tensors = [(k, rc.scalar(v)) for k, v in sizes]
    tensors += [("ids", ids.to(torch.float64)), ("targets", targets.to(torch.float64))]
    tensors += [(n, params[n]) for n, _ in parameter_specs(config)]
    tensors.append(("embeddings", stages["embeddings"]))
    for i, record in enumerate(stages["blocks"]):
        tensors += [("blocks.%d.%s" % (i, k), v) for k, v in record.items()]
    tensors += [("normalized", stages["normalized"]), ("logits", logits), ("loss", loss)]
    tensors += [("grad_" + n, leaves[n].grad) for n, _ in parameter_specs(config)]
    inputs = [k for k, _ in sizes] + ["ids", "targets"] + [n for n, _ in parameter_specs(config)]
    description = ("%s: V=%d d=%d h=%d N=%d d_ff=%d T_max=%d base=%g eps=%g, B=%d T=%d"
                   % (name, config.vocab_size, config.model_width, config.heads,
                      config.layers, config.hidden_width, config.context_length,
                      config.rope_base, config.epsilon, batch, tokens))
    header = rc.header_lines(SCRIPT, seed, description, "float64", inputs)
    return rc.render_case(header, tensors)


def problems(committed, fresh):
    """Differences that make the committed file stale."""
    old_comments, old = rc.parse_case(committed)
    new_comments, new = rc.parse_case(fresh)
    found = []
    for key in ("dtype", "inputs", "seed", "case"):
        if old_comments.get(key) != new_comments.get(key):
            found.append("header %s differs" % key)
    if list(old) != list(new):
        return found + ["tensor names differ"]
    inputs = set(new_comments["inputs"].split())
    for tensor, (shape, values) in new.items():
        old_shape, old_values = old[tensor]
        if old_shape != shape:
            found.append("%s: shape differs" % tensor)
        elif tensor in inputs:
            if old_values != values:
                found.append("%s: drawn input differs" % tensor)
        else:
            scale = max([1.0] + [abs(v) for v in values if math.isfinite(v)])
            worst = max([0.0] + [abs(a - b) / scale for a, b in zip(old_values, values)
                                 if math.isfinite(a) and math.isfinite(b)])
            if worst > TOLERANCE or [math.isfinite(v) for v in old_values] != \
                    [math.isfinite(v) for v in values]:
                found.append("%s: differs by %.3g relative" % (tensor, worst))
    return found


def cases_main(argv, cases, data, script, build_case):
    """Writes data/NAME.txt for every case (atomically), or with --check compares each with
    a fresh build and fails naming the stale one: the main of this script and of
    make_kv_cache_reference.py."""
    torch.set_num_threads(1)
    check = "--check" in argv
    data.mkdir(parents=True, exist_ok=True)
    status = 0
    for name in cases:
        path = data / (name + ".txt")
        text = build_case(name)
        if check:
            if not path.exists():
                print("%s is missing: run /usr/bin/python3 tests/reference/%s" % (path, script),
                      file=sys.stderr)
                status = 1
                continue
            found = problems(path.read_text(encoding="utf-8"), text)
            if found:
                print("%s is stale: %s; run /usr/bin/python3 tests/reference/%s"
                      % (path, "; ".join(found), script), file=sys.stderr)
                status = 1
            else:
                print("%s is current" % path.name)
        else:
            temporary = path.with_suffix(".txt.tmp")
            temporary.write_text(text, encoding="utf-8")
            temporary.replace(path)
            print("wrote %s" % path)
    return status


def main(argv):
    return cases_main(argv, CASES, DATA, SCRIPT, build)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
