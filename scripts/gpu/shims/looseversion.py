# Stand-in for the looseversion package, which the cuDNN frontend's tests
# import for version gates and the GPU machine's venv lacks (added to
# PYTHONPATH by frontend-tests.sh only when the package is missing):
# versions compare as lists of numbers and words.
import re


class LooseVersion:
    def __init__(self, text=None):
        self.vstring = str(text) if text is not None else ""
        self.version = [int(p) if p.isdigit() else p for p in re.findall(r"\d+|[a-zA-Z]+", self.vstring)]

    def _other(self, other):
        return other if isinstance(other, LooseVersion) else LooseVersion(other)

    def _key(self, v):
        return [(0, p) if isinstance(p, int) else (1, p) for p in v.version]

    def __eq__(self, other):
        return self._key(self) == self._key(self._other(other))

    def __lt__(self, other):
        return self._key(self) < self._key(self._other(other))

    def __le__(self, other):
        return self._key(self) <= self._key(self._other(other))

    def __gt__(self, other):
        return self._key(self) > self._key(self._other(other))

    def __ge__(self, other):
        return self._key(self) >= self._key(self._other(other))

    def __str__(self):
        return self.vstring

    def __repr__(self):
        return f"LooseVersion('{self.vstring}')"
