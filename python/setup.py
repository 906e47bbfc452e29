"""Build hook of the Python package (metadata: pyproject.toml).

The wheel carries libGraphCAPI.so inside graph_compiler/, where
graph_compiler._capi looks before the repository's build/lib. build_py copies
it from $GRAPH_CAPI_LIBRARY when that is set, else from build/lib of this
repository (build it first: `ninja -C build GraphCAPI`). Without either the
package is built pure Python and says so; it then needs GRAPH_CAPI_LIBRARY
at run time for validate/build/execute. GRAPH_PACKAGE_REQUIRE_LIBRARY=1
turns that into an error.
"""

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARY_NAME = "libGraphCAPI.so"


def library_source():
    env = os.environ.get("GRAPH_CAPI_LIBRARY")
    if env:
        if not os.path.isfile(env):
            raise SystemExit(f"GRAPH_CAPI_LIBRARY={env} is not a file (it names the {LIBRARY_NAME} to package)")
        return env
    path = os.path.join(os.path.dirname(HERE), "build", "lib", LIBRARY_NAME)
    return path if os.path.isfile(path) else None


class BuildPyWithLibrary(build_py):
    def run(self):
        super().run()
        source = library_source()
        if source is None:
            message = (f"{LIBRARY_NAME} not found (GRAPH_CAPI_LIBRARY unset, no build/lib/{LIBRARY_NAME}): "
                       "packaging graph_compiler without it")
            if os.environ.get("GRAPH_PACKAGE_REQUIRE_LIBRARY") == "1":
                raise SystemExit(message)
            self.announce(message, level=3)
            return
        target = os.path.join(self.build_lib, "graph_compiler", LIBRARY_NAME)
        self.mkpath(os.path.dirname(target))
        # copy, not copy_file: a symlinked build/lib entry must land as a file.
        shutil.copyfile(source, target)
        shutil.copymode(source, target)
        self.announce(f"packaged {source} as graph_compiler/{LIBRARY_NAME}", level=3)


class BinaryDistribution(Distribution):
    """A wheel holding a shared library is platform specific, not py3-none-any."""

    def has_ext_modules(self):
        return library_source() is not None


setup(cmdclass={"build_py": BuildPyWithLibrary}, distclass=BinaryDistribution)
