"""Runs the pre-lowered AOT artifact test/gpu/artifact_matmul_bias_gelu.exec.mlir
through the C API (pygraph.from_mlir) with torch tensors and checks it
against torch: the embedding API loads and runs a compiled program without
the graph pipeline. Prints PASS/FAIL and "N passed, M failed"."""

import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, ".."))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import cudnn  # noqa: E402


def main():
    path = os.path.join(here, "..", "..", "test", "gpu", "artifact_matmul_bias_gelu.exec.mlir")
    with open(path) as f:
        text = "\n".join(line for line in f.read().splitlines() if not line.startswith("//"))
    try:
        g = cudnn.pygraph.from_mlir(text)
        torch.manual_seed(0)
        a = torch.randn(256, 512, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(512, 384, device="cuda", dtype=torch.bfloat16)
        bias = torch.randn(1, 384, device="cuda", dtype=torch.bfloat16)
        y = torch.empty(256, 384, device="cuda", dtype=torch.bfloat16)
        g.execute({"A": a, "B": b, "bias": bias, "Y": y})
        torch.cuda.synchronize()
        ref = F.gelu(a.float() @ b.float() + bias.float())
        err = ((y.double() - ref.double()).norm() / ref.double().norm()).item()
        ok = err < 1e-2
        detail = f"relative error {err:.3g}"
    except Exception as exc:  # noqa: BLE001
        ok, detail = False, f"{type(exc).__name__}: {str(exc)[:300]}"
    print(f"{'PASS' if ok else 'FAIL'} artifact through the C API: {detail}")
    print(f"{int(ok)} passed, {int(not ok)} failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
