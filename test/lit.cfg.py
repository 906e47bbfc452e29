# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "GRAPH"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.graph_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%python", "/usr/bin/python3"))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.graph_tools_dir, config.llvm_tools_dir]
tools = ["graph-opt", "graph-run", "FileCheck", "not", "count"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# ptxas (for the cubin option of the generated kernels).
for root in (os.environ.get("CUDA_ROOT"), "/usr/local/cuda"):
    if root and os.path.exists(os.path.join(root, "bin", "ptxas")):
        config.available_features.add("ptxas")
        break
