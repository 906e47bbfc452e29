"""cudnn.api_base: the frontend's operation-API base class. Its test
harness imports it at collection and walks its subclasses to wrap their
execute(), so it must import without torch and behave as the frontend's."""

import os
import subprocess
import sys

import pytest

from cudnn.api_base import APIBase, ceil_div


class _Doubler(APIBase):
    def __init__(self, supported=True):
        super().__init__()
        self.supported, self.calls = supported, []

    def check_support(self):
        self._is_supported = self.supported
        return self.supported

    def compile(self, current_stream=None):
        self._ensure_support_checked()
        self._compiled_kernel = lambda xs: [2 * x for x in xs]

    def execute(self, xs, current_stream=None, skip_compile=False):
        self.calls.append((self._get_default_stream(current_stream), skip_compile))
        kernel = self._compiled_kernel if not skip_compile else (lambda v: [2 * x for x in v])
        return kernel(xs)


def test_abstract_methods_must_be_defined():
    with pytest.raises(TypeError, match="abstract"):
        APIBase()

    class Partial(APIBase):
        def check_support(self):
            return True

    with pytest.raises(TypeError, match="compile|execute"):
        Partial()


def test_compile_checks_support_and_call_skips_compile():
    api = _Doubler()
    assert not api._is_supported and api._compiled_kernel is None
    api.compile()
    assert api._is_supported
    assert api.execute([1, 2], current_stream=7) == [2, 4]
    assert api([3]) == [6]
    assert api.calls == [(7, False), (0, True)]


def test_unsupported_configuration_does_not_compile():
    api = _Doubler(supported=False)
    with pytest.raises(AssertionError, match="_Doubler: configuration not supported"):
        api.compile()
    assert api._compiled_kernel is None


def test_subclass_walk_sees_user_classes():
    # what the frontend's conftest does: find every subclass and wrap execute
    seen, todo = set(), [APIBase]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
    assert _Doubler in seen


def test_ceil_div():
    assert [ceil_div(a, 4) for a in (0, 1, 4, 5, 8, 9)] == [0, 1, 1, 2, 2, 3]


def test_imports_without_torch():
    code = "import sys; sys.modules['torch'] = None\nimport cudnn.api_base as m; print(m.APIBase.__name__)"
    env = dict(os.environ, PYTHONPATH=":".join(sys.path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "APIBase"
