"""Independent numpy references for graph-run's CPU executor.

  check.py CASE GRAPH.mlir GRAPH_RUN WORKDIR [SEED]

Generates fresh random inputs for CASE as .npy files, runs
`GRAPH_RUN --device=cpu --output-dir` on GRAPH.mlir, and compares every
output with a numpy implementation (float64) under dtype-aware bounds:
f32 outputs |got - want| <= 1e-5 + 1e-5 |want| (scaled by sqrt(K) for long
contractions), bf16 outputs 2e-2 + 2e-2 |want|. On failure prints the worst
element with both values and exits 1.
"""
import os
import subprocess
import sys

import numpy as np


def to_bf16_bits(a):
    """Rounds float32 to bfloat16 (nearest even); returns the uint16 bits."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def from_bf16_bits(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


class Case:
    def __init__(self, rng):
        self.rng = rng
        self.inputs = {}  # name -> (values as float64, 'f32' | 'bf16')

    def input(self, name, shape, dtype="f32", low=-1.0, high=1.0):
        values = self.rng.uniform(low, high, size=shape)
        if dtype == "f32":
            values = values.astype(np.float32).astype(np.float64)
        else:
            values = from_bf16_bits(to_bf16_bits(values.astype(np.float32)))
        self.inputs[name] = (values, dtype)
        return values


def case_matmul(c):
    a = c.input("a", (2, 3, 4, 5))
    b = c.input("b", (1, 3, 5, 6))
    bias = c.input("bias", (1, 1, 1, 6))
    mm = np.matmul(a, b)
    return {"c": (mm, "f32", 5), "c_bias": (mm + bias, "f32", 5)}


def conv2d(x, w, pad, stride, dilation):
    n, c, h, wd = x.shape
    k, _, r, s = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    oh = (h + 2 * pad[0] - ((r - 1) * dilation[0] + 1)) // stride[0] + 1
    ow = (wd + 2 * pad[1] - ((s - 1) * dilation[1] + 1)) // stride[1] + 1
    y = np.zeros((n, k, oh, ow))
    for i in range(r):
        for j in range(s):
            hi = i * dilation[0]
            wj = j * dilation[1]
            patch = xp[:, :, hi:hi + stride[0] * oh:stride[0],
                       wj:wj + stride[1] * ow:stride[1]]
            y += np.einsum("nchw,kc->nkhw", patch, w[:, :, i, j])
    return y


def case_conv(c):
    x = c.input("x", (2, 3, 9, 9))
    w = c.input("w", (4, 3, 3, 3))
    x2 = c.input("x2", (1, 2, 7, 8))
    w2 = c.input("w2", (3, 2, 2, 3))
    return {
        "y": (conv2d(x, w, (1, 1), (2, 2), (2, 2)), "f32", 27),
        "y_plain": (conv2d(x2, w2, (0, 0), (1, 1), (1, 1)), "f32", 12),
    }


def case_norms(c):
    eps = 1e-5
    x = c.input("x", (4, 16))
    g = c.input("gamma", (1, 16))
    b = c.input("beta", (1, 16))
    mean = x.mean(axis=1, keepdims=True)
    var = x.var(axis=1, keepdims=True)
    ln = (x - mean) / np.sqrt(var + eps) * g + b
    rms = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + eps) * g
    xb = c.input("xb", (2, 3, 4, 4))
    bm = c.input("bn_mean", (1, 3, 1, 1))
    biv = c.input("bn_inv_var", (1, 3, 1, 1), low=0.5, high=2.0)
    bg = c.input("bn_gamma", (1, 3, 1, 1))
    bb = c.input("bn_beta", (1, 3, 1, 1))
    bn = (xb - bm) * biv * bg + bb
    # Training batchnorm: statistics over N, H, W.
    tm = xb.mean(axis=(0, 2, 3), keepdims=True)
    tv = xb.var(axis=(0, 2, 3), keepdims=True)
    bnt = (xb - tm) / np.sqrt(tv + eps) * bg + bb
    return {"ln": (ln, "f32", 16), "rms": (rms, "f32", 16),
            "bn": (bn, "f32", 1), "bn_train": (bnt, "f32", 32),
            "bn_mean": (tm, "f32", 32), "bn_inv_var": (1 / np.sqrt(tv + eps), "f32", 32)}


def case_sdpa(c):
    b, h, s, d = 2, 2, 16, 8
    q = c.input("q", (b, h, s, d), "bf16")
    k = c.input("k", (b, h, s, d), "bf16")
    v = c.input("v", (b, h, s, d), "bf16")
    scale = 1.0 / np.sqrt(d)
    scores = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    causal = np.tril(np.ones((s, s), dtype=bool))
    masked = np.where(causal, scores, -np.inf)
    p = np.exp(masked - masked.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    o = np.einsum("bhqk,bhkd->bhqd", p, v)
    # Full (non-causal) softmax attention too.
    pf = np.exp(scores - scores.max(axis=-1, keepdims=True))
    pf /= pf.sum(axis=-1, keepdims=True)
    of = np.einsum("bhqk,bhkd->bhqd", pf, v)
    return {"o_causal": (o, "bf16", 1), "o_full": (of, "bf16", 1)}


def case_reductions(c):
    x = c.input("x", (3, 4, 5))
    return {
        "sum_last": (x.sum(axis=2, keepdims=True), "f32", 5),
        "max_mid": (x.max(axis=1, keepdims=True), "f32", 1),
        "avg_all": (x.mean().reshape(1, 1, 1), "f32", 60),
        "norm2_first": (np.sqrt((x * x).sum(axis=0, keepdims=True)), "f32", 3),
        "amax": (np.abs(x).max(axis=(0, 2), keepdims=True), "f32", 1),
        "softmax": (np.exp(x) / np.exp(x).sum(axis=2, keepdims=True), "f32", 5),
    }


CASES = {"matmul": case_matmul, "conv": case_conv, "norms": case_norms,
         "sdpa": case_sdpa, "reductions": case_reductions}


def main(argv):
    name, graph, graph_run, work = argv[1:5]
    seed = int(argv[5]) if len(argv) > 5 else 1234
    rng = np.random.default_rng(seed)
    case = Case(rng)
    expected = CASES[name](case)
    os.makedirs(work, exist_ok=True)
    cmd = [graph_run, "--device=cpu", graph, "--output-dir=" + os.path.join(work, "out"),
           "--print-max-elements=0"]
    for key, (values, dtype) in case.inputs.items():
        path = os.path.join(work, key + ".npy")
        if dtype == "f32":
            np.save(path, values.astype(np.float32))
        else:
            np.save(path, to_bf16_bits(values.astype(np.float32)))
        cmd.append(f"--input={key}=@{path}")
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        print("graph-run failed:", " ".join(cmd))
        print(run.stdout + run.stderr)
        return 1
    failures = 0
    for key, (want, dtype, k) in expected.items():
        got = np.load(os.path.join(work, "out", key + ".npy"))
        got = got.astype(np.float64) if dtype == "f32" else from_bf16_bits(got)
        if got.shape != want.shape:
            print(f"[FAILED] {name}/{key}: shape {got.shape}, numpy {want.shape}")
            failures += 1
            continue
        tol = 1e-5 * max(1.0, np.sqrt(k)) if dtype == "f32" else 2e-2
        bound = tol + tol * np.abs(want)
        err = np.abs(got - want)
        if not np.all(err <= bound):
            worst = np.unravel_index(np.argmax(err - bound), err.shape)
            print(f"[FAILED] {name}/{key}: {np.count_nonzero(err > bound)} of "
                  f"{err.size} elements out of bounds; worst at {list(worst)}: "
                  f"graph-run {got[worst]!r}, numpy {want[worst]!r}, "
                  f"|diff| {err[worst]:.3g} > {bound[worst]:.3g}")
            failures += 1
        else:
            print(f"[OK] {name}/{key}: max |diff| {err.max():.3g}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
