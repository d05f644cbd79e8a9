#!/usr/bin/python3
"""PyTorch's side of chapter 42's training benchmark (tools/run-train-bench.sh).

    train_torch.py --steps K --dtype float64|float32 [--threads 2]

Times K training steps of the run's model (snippets/ch42-making-it-fast/train_fast.hpp:
V = 4096, d = 128, h = 4, N = 4, d_ff = 344, B = 16, T = 128) written with plain torch
operations by tests/reference/decoder_reference.py: the mean next-token cross-entropy of a
seeded random batch, its backward pass, torch.nn.utils.clip_grad_norm_ to 1 and one
torch.optim.AdamW step (β = (0.9, 0.95), decay 0.1 on matrices), as the C++ step does.
Each step's wall time is measured around exactly that. Prints one JSON object: the
environment (torch version, threads, BLAS_INFO, the BLAS library really loaded) and the
seconds of every step.
"""
import argparse
import json
import math
import os
import sys
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "reference"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from decoder_reference import DecoderConfig, loss, parameter_specs  # noqa: E402
from torch_reference import environment  # noqa: E402

CONFIG = DecoderConfig(4096, 128, 4, 4, 344, 128, 10000.0, 1e-6, 42)
BATCH = 16


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, required=True)
    parser.add_argument("--dtype", choices=("float64", "float32"), required=True)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    dtype = getattr(torch, args.dtype)
    generator = torch.Generator().manual_seed(CONFIG.seed)
    params = {}
    for name, shape in parameter_specs(CONFIG):
        if len(shape) == 1:
            value = torch.ones(shape, dtype=dtype)
        else:  # uniform on ±1/√fan_in, as the C++ model draws (the table N(0, 1/d))
            bound = 1.0 / math.sqrt(shape[0] if name != "embedding.weight" else shape[1])
            value = (torch.rand(shape, generator=generator, dtype=dtype) * 2 - 1) * bound
        params[name] = value.requires_grad_()
    matrices = [p for p in params.values() if p.dim() >= 2]
    gains = [p for p in params.values() if p.dim() < 2]
    optimizer = torch.optim.AdamW(
        [{"params": matrices, "weight_decay": 0.1}, {"params": gains, "weight_decay": 0.0}],
        lr=3e-3, betas=(0.9, 0.95), eps=1e-8)
    seconds = []
    for _ in range(args.steps):
        ids = torch.randint(0, CONFIG.vocab_size, (2, BATCH, CONFIG.context_length),
                            generator=generator)
        start = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        _, value = loss(CONFIG, params, ids[0], ids[1])
        value.backward()
        torch.nn.utils.clip_grad_norm_(list(params.values()), 1.0)
        optimizer.step()
        seconds.append(time.perf_counter() - start)
    print(json.dumps({"env": environment(), "dtype": args.dtype,
                      "tokens_per_step": BATCH * CONFIG.context_length, "step_s": seconds}))


if __name__ == "__main__":
    main()
