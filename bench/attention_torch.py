#!/usr/bin/python3
"""Chapter 41's PyTorch side: the same per-head computation as llmfs_attention_bench's
`time` mode, written by hand in float64 (scores, causal mask, softmax, weights times V,
then backward through autograd), on Q, K, V [1, 8, T, 64] and a random upstream gradient.

    attention_torch.py T THREADS REPEATS [LABEL]   prints one JSON line: every wall time,
        the thread count, torch's version, the BLAS library it loaded and OPENBLAS_CORETYPE

Each repeat builds fresh leaves, so no graph or gradient is reused."""

import json
import os
import sys
import time

import torch


def main() -> None:
    tokens, threads, repeats = (int(a) for a in sys.argv[1:4])
    torch.set_num_threads(threads)
    gen = torch.Generator().manual_seed(41)
    shape = (1, 8, tokens, 64)
    q, k, v, upstream = (torch.rand(shape, generator=gen, dtype=torch.float64) * 2 - 1
                         for _ in range(4))
    mask = torch.triu(torch.ones(tokens, tokens, dtype=torch.bool), diagonal=1)
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        ql, kl, vl = (t.clone().requires_grad_(True) for t in (q, k, v))
        scores = (ql @ kl.transpose(-2, -1)) / 8.0
        weights = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        (weights @ vl).backward(upstream)
        seconds.append(time.perf_counter() - start)
        del ql, kl, vl, scores, weights
    print(json.dumps({"mode": "time", "kernel": sys.argv[4] if len(sys.argv) > 4 else "torch",
                      "tokens": tokens, "threads": torch.get_num_threads(),
                      "torch": torch.__version__, "blas": loaded_blas(),
                      "coretype": os.environ.get("OPENBLAS_CORETYPE", "unset"),
                      "seconds": [round(s, 4) for s in seconds]}))


def loaded_blas():
    """The BLAS libraries mapped into this process (after the products ran), by file name."""
    names = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            base = os.path.basename(os.path.realpath(line.split()[-1]))
            if "blas" in base.lower() or "mkl" in base.lower():
                names.add(base)
    return ",".join(sorted(names)) or "none found"


if __name__ == "__main__":
    main()
