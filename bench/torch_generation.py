#!/usr/bin/python3
"""PyTorch float64 beside Chapter 38's generation benchmark (run with /usr/bin/python3).

The same cases as build/<dir>/bin/llmfs_generation_bench: a model of Chapter 32's family
(V 256, d 32, h 4, N 2, d_ff 88, weights drawn here, not the C++ ones: timings only), a
1-token prompt continued greedily to the context's end T = 32, 64, 128, 256, with a
key/value cache (tests/reference/make_kv_cache_reference.py's cached_forward) and without
one (decoder_reference.forward on the whole sequence every step), under torch.no_grad(),
one thread. Prints one JSON object: the environment and, per case, the median CPU
milliseconds of 3 runs.
"""
import json
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "reference"))
from decoder_reference import DecoderConfig, forward, parameter_specs  # noqa: E402
from make_kv_cache_reference import LayerCache, cached_forward  # noqa: E402

LENGTHS = (32, 64, 128, 256)


def generate(config, params, context, cached):
    sequence = torch.tensor([[65]], dtype=torch.long)
    caches = [LayerCache() for _ in range(config.layers)]
    fresh = sequence
    while sequence.shape[1] < context:
        if cached:
            logits = cached_forward(config, params, fresh, caches)[:, -1, :]
        else:
            logits = forward(config, params, sequence)[:, -1, :]
        fresh = torch.argmax(logits, dim=-1, keepdim=True)
        sequence = torch.cat((sequence, fresh), dim=1)
    return sequence


def main():
    torch.set_num_threads(1)
    torch.manual_seed(38)
    cases = {}
    for context in LENGTHS:
        config = DecoderConfig(vocab_size=256, model_width=32, heads=4, layers=2,
                               hidden_width=88, context_length=context)
        params = {name: torch.randn(shape, dtype=torch.float64) * 0.1
                  for name, shape in parameter_specs(config)}
        for cached in (True, False):
            times = []
            with torch.no_grad():
                for _ in range(3):
                    start = time.process_time()
                    generate(config, params, context, cached)
                    times.append((time.process_time() - start) * 1e3)
            name = "torch/%s/%d" % ("cached" if cached else "uncached", context)
            cases[name] = {"cpu_ms": statistics.median(times)}
    env = {"torch": torch.__version__, "threads": torch.get_num_threads()}
    print(json.dumps({"env": env, "cases": cases}))


if __name__ == "__main__":
    main()
