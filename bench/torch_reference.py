#!/usr/bin/python3
"""PyTorch float64 reference timings for the llmfs benchmark (run with /usr/bin/python3).

Times the same cases as build/<dir>/bin/llmfs_bench, on one thread:
  matmul/projection  X·W   [B,T,d]·[d,d]
  matmul/scores      Q·Kᵀ  [B,h,T,d_h]·[B,h,d_h,T]
  matmul/mix         A·V   [B,h,T,T]·[B,h,T,d_h]
  mha/forward, mha/forward_backward: the chapter-30 layer written with plain torch ops
  (full-width projections, head split, RoPE on adjacent pairs of Q and K, additive causal
  mask, softmax, A·V, merge, W_O; loss = sum(output) for the backward pass).
  decoder/loss, decoder/loss_backward: Chapter 32's model (tests/reference/decoder_reference.py)
  on a random batch, the mean next-token cross-entropy, and with its backward pass.

With --attention (chapter 42, tools/run-mha-bench.sh) it times only the mha/ cases.

With --square N,N,… (chapter 11's loop-order benchmark, tools/run-loop-order-bench.sh) it
times only torch.matmul of two n×n float64 matrices, on 1 and on 2 threads, instead.

Prints one JSON object: the environment (torch version, thread count, the BLAS library torch
actually loaded, OPENBLAS_CORETYPE) and per case the CPU time per iteration in milliseconds.
"""
import json
import math
import os
import sys
import time

import torch

SHAPES = [(4, 128, 128, 4), (8, 256, 256, 8)]  # (B, T, d_model, h), as in bench/shapes.hpp
# (V, d_model, h, N, d_ff, B, T), as kDecoderShapes in bench/shapes.hpp
DECODER_SHAPES = [(512, 128, 4, 2, 344, 4, 128)]
MIN_SECONDS = float(os.environ.get("LLMFS_BENCH_MIN_SECONDS", "0.5"))


def loaded_blas():
    """The BLAS shared objects mapped into this process (after a matmul has run)."""
    names = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            base = os.path.basename(path)
            if "blas" in base.lower() or "mkl" in base.lower():
                names.add(os.path.realpath(path))
    return sorted(names)


def time_case(fn):
    """CPU milliseconds per call (and wall ms, iterations): warm up for at least two calls and
    0.1 s of CPU time (the first calls pay for lazy initialisation), then repeat until
    MIN_SECONDS of CPU time."""
    warm_start, warm_calls = time.process_time(), 0
    while warm_calls < 2 or time.process_time() - warm_start < 0.1:
        fn()
        warm_calls += 1
    iterations, start = 0, time.process_time()
    wall_start = time.perf_counter()
    while True:
        fn()
        iterations += 1
        elapsed = time.process_time() - start
        if elapsed >= MIN_SECONDS:
            break
    wall = time.perf_counter() - wall_start
    return elapsed / iterations * 1e3, wall / iterations * 1e3, iterations


def rope_tables(tokens, head_width, base):
    # theta_i = base^(-2i/d_h), angle = t * theta_i for t = 0..T-1.
    i = torch.arange(head_width // 2, dtype=torch.float64)
    theta = base ** (-2.0 * i / head_width)
    angles = torch.arange(tokens, dtype=torch.float64)[:, None] * theta[None, :]
    return torch.cos(angles), torch.sin(angles)


def rope(x, cos, sin):
    # Adjacent pairs (x[2i], x[2i+1]) rotated by the position's angle.
    even, odd = x[..., 0::2], x[..., 1::2]
    y_even = even * cos - odd * sin
    y_odd = even * sin + odd * cos
    return torch.stack((y_even, y_odd), dim=-1).flatten(-2)


def multi_head(x, wq, wk, wv, wo, heads, cos, sin, mask):
    B, T, d = x.shape
    dh = d // heads

    def split(t):
        return t.reshape(B, T, heads, dh).transpose(1, 2)

    q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
    q, k = rope(q, cos, sin), rope(k, cos, sin)
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(dh) + mask
    weights = torch.softmax(scores, dim=-1)
    merged = (weights @ v).transpose(1, 2).reshape(B, T, d)
    return merged @ wo


def environment():
    return {
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "blas_loaded": loaded_blas(),
        "blas_info": next((part.split("=", 1)[1] for part in torch.__config__.show().replace(",", "\n").split()
                           if part.startswith("BLAS_INFO=")), "unknown"),
        "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE", "(unset)"),
    }


def square(sizes):
    """torch.matmul of n×n float64 matrices (uniform in [-1, 1)), per n on 1 and 2 threads."""
    torch.manual_seed(0)
    results = {}
    for n in sizes:
        a = torch.rand(n, n, dtype=torch.float64) * 2 - 1
        b = torch.rand(n, n, dtype=torch.float64) * 2 - 1
        for threads in (1, 2):
            torch.set_num_threads(threads)
            with torch.no_grad():
                results[f"torch/{threads}/{n}"] = time_case(lambda: a @ b)
    env = environment()
    env["threads"] = "1 and 2"
    json.dump({"env": env, "cases": {k: {"cpu_ms": c, "wall_ms": w, "iterations": i}
                                      for k, (c, w, i) in results.items()}}, sys.stdout, indent=1)
    print()


def decoder_cases(dtype):
    """Chapter 32's model in torch (the importable reference), loss and loss + backward."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                    "reference"))
    import decoder_reference as ref
    results = {}
    for V, d, h, N, f, B, T in DECODER_SHAPES:
        tag = f"V{V}_d{d}_h{h}_N{N}_ff{f}_B{B}_T{T}"
        config = ref.DecoderConfig(V, d, h, N, f, T)
        params = {}
        for name, shape in ref.parameter_specs(config):
            scale = 1.0 if len(shape) == 1 else 1.0 / math.sqrt(shape[0])
            params[name] = ((torch.rand(shape, dtype=dtype) * 2 - 1) * scale).requires_grad_()
        ids = torch.randint(0, V, (B, T))
        targets = torch.randint(0, V, (B, T))

        def loss_only():
            with torch.no_grad():
                return ref.loss(config, params, ids, targets)[1]

        def loss_backward():
            for p in params.values():
                p.grad = None
            ref.loss(config, params, ids, targets)[1].backward()

        results[f"decoder/loss/{tag}"] = time_case(loss_only)
        results[f"decoder/loss_backward/{tag}"] = time_case(loss_backward)
    return results


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--square":
        square([int(x) for x in sys.argv[2].split(",")])
        return
    attention_only = sys.argv[1:] == ["--attention"]  # chapter 42: only the mha/ cases
    torch.set_num_threads(1)
    torch.manual_seed(0)
    dtype = torch.float64
    results = {}
    for B, T, d, h in SHAPES:
        dh = d // h
        tag = f"B{B}_T{T}_d{d}_h{h}"
        x = torch.rand(B, T, d, dtype=dtype) * 2 - 1
        w = torch.rand(d, d, dtype=dtype) * 2 - 1
        q = torch.rand(B, h, T, dh, dtype=dtype) * 2 - 1
        kt = torch.rand(B, h, dh, T, dtype=dtype) * 2 - 1
        a = torch.rand(B, h, T, T, dtype=dtype) * 2 - 1
        v = torch.rand(B, h, T, dh, dtype=dtype) * 2 - 1
        with torch.no_grad():
            results[f"matmul/projection/{tag}"] = time_case(lambda: x @ w)
            results[f"matmul/scores/{tag}"] = time_case(lambda: q @ kt)
            results[f"matmul/mix/{tag}"] = time_case(lambda: a @ v)

        bound = 1.0 / math.sqrt(d)
        weights = [((torch.rand(d, d, dtype=dtype) * 2 - 1) * bound).requires_grad_() for _ in range(4)]
        cos, sin = rope_tables(T, dh, 10000.0)
        mask = torch.triu(torch.full((T, T), float("-inf"), dtype=dtype), diagonal=1)

        def forward():
            with torch.no_grad():
                return multi_head(x, *weights, h, cos, sin, mask)

        def forward_backward():
            for w_ in weights:
                w_.grad = None
            out = multi_head(x, *weights, h, cos, sin, mask)
            out.backward(torch.ones_like(out))

        results[f"mha/forward/{tag}"] = time_case(forward)
        results[f"mha/forward_backward/{tag}"] = time_case(forward_backward)

    if attention_only:
        results = {k: v for k, v in results.items() if k.startswith("mha/")}
    else:
        results.update(decoder_cases(dtype))
    env = environment()
    json.dump({"env": env, "cases": {k: {"cpu_ms": c, "wall_ms": w, "iterations": n}
                                      for k, (c, w, n) in results.items()}}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
