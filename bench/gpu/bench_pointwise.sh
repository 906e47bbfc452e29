#!/usr/bin/env bash
# Memory-bound bandwidth on the GPU machine: the 4-op bf16 chain of
# bench/gpu/pointwise_chain_256mib.mlir through cuDNN and through our
# codegen engine (graph-run --benchmark: median per execute), against a
# device-to-device copy and torch eager on the same shape.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
source "$root/scripts/gpu/env.sh"
run="$root/carry/bin/graph-run"
g="$root/bench/gpu/pointwise_chain_256mib.mlir"
bytes=$((8192 * 16384 * 2 * 2))  # read x, write y (s and b are 32 KiB)
for mode in cudnn codegen; do
  extra=""
  [ $mode = codegen ] && extra="--deselect-engines=cudnn"
  out=$("$run" --device=gpu --random-inputs=1 --print-max-elements=0 --benchmark=20 --verbose-plans $extra "$g" 2>&1)
  med=$(echo "$out" | sed -n 's/.*median \([0-9.]*\) s.*/\1/p')
  plan=$(echo "$out" | grep "^plan:" | head -1)
  if [ -n "$med" ]; then
    echo "$mode: median $med s per execute, $(python3 -c "print(f'{$bytes/$med/1e9:.0f}')") GB/s ($plan)"
  else
    echo "$mode: failed: $(echo "$out" | tail -2)"
  fi
done
py=python3; [ -x /opt/torch/.venv/bin/python3 ] && py=/opt/torch/.venv/bin/python3
"$py" - <<'PY'
import torch, torch.nn.functional as F
x = torch.randn(8192, 16384, device="cuda", dtype=torch.bfloat16)
s = torch.randn(1, 16384, device="cuda", dtype=torch.bfloat16)
b = torch.randn(1, 16384, device="cuda", dtype=torch.bfloat16)
y = torch.empty_like(x)
def t(fn, n=20):
    for _ in range(3): fn()
    torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(n): fn()
    e1.record(); torch.cuda.synchronize()
    return e0.elapsed_time(e1) / n / 1e3
nbytes = 8192 * 16384 * 2 * 2
copy = t(lambda: y.copy_(x))
eager = t(lambda: torch.tanh(F.gelu(x.float() * s.float() + b.float())).to(torch.bfloat16))
comp = torch.compile(lambda x, s, b: torch.tanh(F.gelu(x.float() * s.float() + b.float())).to(torch.bfloat16))
try:
    compiled = t(lambda: comp(x, s, b))
except Exception as exc:  # noqa: BLE001
    compiled = float("nan"); print("torch.compile failed:", str(exc)[:200])
for name, sec in (("device copy", copy), ("torch eager", eager), ("torch.compile", compiled)):
    print(f"{name}: {sec*1e3:.3f} ms, {nbytes/sec/1e9:.0f} GB/s")
PY
