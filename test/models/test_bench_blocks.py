"""The PyTorch side of bench/gpu/bench_models.py, checked without torch: every
model and phase of this corpus has a PyTorch block (so `--models all` times
them all), and each block's maker takes the model's full-size dims, the way
bench_models calls it. Whether a block computes what the graph computes is
the GPU run's check (it fails a block over its error bound)."""

import inspect
import os
import sys

import pytest

import harness

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench", "gpu"))

import bench_models  # noqa: E402  (imports torch only when it runs)

bench_models.load_more_cases()
MODELS = harness.load_models()
PAIRS = sorted((name, phase) for name, mod in MODELS.items() for phase in harness.phases(mod))


def test_every_model_and_phase_has_a_pytorch_block():
    assert sorted(bench_models.CASES) == PAIRS


@pytest.mark.parametrize("name,phase", PAIRS, ids=[f"{n}-{p}" for n, p in PAIRS])
def test_block_maker_takes_the_full_size_dims(name, phase):
    make = bench_models.CASES[(name, phase)]
    mod = MODELS[name]
    # bench_models calls make(torch, mod, buffers, **dims): a dim the maker
    # does not take, or one it needs and the model lacks, fails here.
    inspect.signature(make).bind(None, mod, {}, **harness.dims_of(mod, "full"))


class _AnyTorch:
    """Stands in for torch where only names are looked up."""

    def __getattr__(self, name):
        return self

    def __call__(self, *args, **kwargs):
        return self


def test_random_dag_block_has_a_torch_function_for_every_mode():
    from torch_blocks import random_dag

    mod = MODELS["random_dag"]
    functions = random_dag.torch_functions(_AnyTorch())
    assert sorted(functions["unary"]) == sorted(mod.UNARY)
    assert sorted(functions["binary"]) == sorted(mod.BINARY)
    assert sorted(functions["reduction"]) == sorted(mod.REDUCTIONS)
