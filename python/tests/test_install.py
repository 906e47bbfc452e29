"""Where an installed copy of the package finds libGraphCAPI.so
(graph_compiler._capi): GRAPH_CAPI_LIBRARY wins, then the copy next to the
package, then build/lib of a checkout; an installed copy never reaches for a
build/ beside it. The pip and `cmake --install` routes themselves are run by
scripts/test.sh's pyinstall suite."""

import os
import shutil
import subprocess
import sys

from conftest import needs_lib

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)

PROBE = (
    "import graph_compiler, cudnn\n"
    "from graph_compiler import _capi\n"
    "print(graph_compiler.library_path())\n"
    "print('|'.join(_capi.default_library_paths()))\n"
    "print(cudnn.loaded_library_path())\n"
)


def install_copy(site):
    """The two packages copied into `site`, as an installer would lay them out."""
    for name in ("graph_compiler", "cudnn"):
        shutil.copytree(os.path.join(PYTHON_DIR, name), os.path.join(site, name),
                        ignore=shutil.ignore_patterns("__pycache__", "*.so"))


def probe(site, cwd, env_library=None):
    env = {k: v for k, v in os.environ.items() if k not in ("GRAPH_CAPI_LIBRARY", "PYTHONPATH")}
    env["PYTHONPATH"] = str(site)
    if env_library is not None:
        env["GRAPH_CAPI_LIBRARY"] = str(env_library)
    proc = subprocess.run([sys.executable, "-c", PROBE], cwd=cwd, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    path, looked, loaded = proc.stdout.splitlines()
    return path, looked.split("|"), loaded


def test_installed_copy_looks_next_to_itself_only(tmp_path):
    site = tmp_path / "site"
    install_copy(site)
    # A build/lib beside the install folder is not this package's (not a checkout).
    (tmp_path / "build" / "lib").mkdir(parents=True)
    (tmp_path / "build" / "lib" / "libGraphCAPI.so").write_bytes(b"")
    path, looked, loaded = probe(site, tmp_path)
    assert looked == [str(site / "graph_compiler" / "libGraphCAPI.so")]
    assert path == "None" and loaded == "None"  # nothing loaded at import

    (site / "graph_compiler" / "libGraphCAPI.so").write_bytes(b"")
    path, _, _ = probe(site, tmp_path)
    assert path == str(site / "graph_compiler" / "libGraphCAPI.so")


def test_environment_override_wins_over_packaged_copy(tmp_path):
    site = tmp_path / "site"
    install_copy(site)
    (site / "graph_compiler" / "libGraphCAPI.so").write_bytes(b"")
    other = tmp_path / "elsewhere.so"
    other.write_bytes(b"")
    path, _, _ = probe(site, tmp_path, env_library=other)
    assert path == str(other)
    # An override naming nothing is not silently replaced by the packaged copy.
    path, _, _ = probe(site, tmp_path, env_library=tmp_path / "missing.so")
    assert path == "None"


def test_checkout_falls_back_to_build_lib(tmp_path):
    repo = tmp_path / "repo"
    install_copy(repo / "python")
    (repo / "CMakeLists.txt").write_text("")
    path, looked, _ = probe(repo / "python", tmp_path)
    assert looked == [
        str(repo / "python" / "graph_compiler" / "libGraphCAPI.so"),
        str(repo / "build" / "lib" / "libGraphCAPI.so"),
    ]
    assert path == "None"
    (repo / "build" / "lib").mkdir(parents=True)
    (repo / "build" / "lib" / "libGraphCAPI.so").write_bytes(b"")
    path, _, _ = probe(repo / "python", tmp_path)
    assert path == str(repo / "build" / "lib" / "libGraphCAPI.so")
    # A copy inside the package comes first.
    (repo / "python" / "graph_compiler" / "libGraphCAPI.so").write_bytes(b"")
    path, _, _ = probe(repo / "python", tmp_path)
    assert path == str(repo / "python" / "graph_compiler" / "libGraphCAPI.so")


def test_missing_library_message_lists_every_place(tmp_path):
    site = tmp_path / "site"
    install_copy(site)
    env = {k: v for k, v in os.environ.items() if k != "GRAPH_CAPI_LIBRARY"}
    env["PYTHONPATH"] = str(site)
    code = "from graph_compiler import _capi, GraphLibraryNotFound\ntry:\n    _capi.lib()\nexcept GraphLibraryNotFound as e:\n    print(e)\n"
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert f"looked at: {site / 'graph_compiler' / 'libGraphCAPI.so'})" in proc.stdout
    assert "GRAPH_CAPI_LIBRARY" in proc.stdout


def test_in_repo_package_lists_its_own_folder_first():
    from graph_compiler import _capi

    looked = _capi.default_library_paths()
    assert looked[0] == os.path.join(PYTHON_DIR, "graph_compiler", "libGraphCAPI.so")
    assert looked[1] == os.path.join(os.path.dirname(PYTHON_DIR), "build", "lib", "libGraphCAPI.so")


@needs_lib
def test_loaded_library_path_names_the_loaded_file():
    import graph_compiler
    from graph_compiler import _capi

    _capi.lib()
    assert graph_compiler.loaded_library_path() == os.path.abspath(graph_compiler.library_path())
