// RUN: not env GRAPH_LIBCUDA=/nonexistent/libcuda.so.1 graph-run --device=gpu --random-inputs=7 %S/../gpu/artifact_codegen_norm_backward.exec.mlir 2>&1 | FileCheck %s --check-prefix=NORM
// RUN: not env GRAPH_LIBCUDA=/nonexistent/libcuda.so.1 graph-run --device=gpu --random-inputs=7 %S/../gpu/artifact_codegen_mixed.exec.mlir 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: not env GRAPH_LIBCUDA=/nonexistent/libcuda.so.1 graph-run --device=gpu --random-inputs=1 %s 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not graph-run --device=cpu %s 2>&1 | FileCheck %s --check-prefix=CPU

// Artifacts with generated kernels (exec.kernel_group) parse, verify and
// load into the runtime's program (ExecToRuntime) before the device is
// needed: without a driver the only error left is the missing GPU. The GPU
// suite's two artifacts are checked here too, so a stale or malformed one
// fails on any machine. No GPU is used (the driver path is forced away).
// NORM: graph-run: error: exec.program @norm_backward runs only on the GPU{{(: the GPU device is not available|, and this build has no GPU runtime)}}
// MIXED: graph-run: error: exec.program @mixed runs only on the GPU{{(: the GPU device is not available|, and this build has no GPU runtime)}}
// SMALL: graph-run: error: exec.program @small runs only on the GPU{{(: the GPU device is not available|, and this build has no GPU runtime)}}
// CPU: graph-run: error: '{{.*}}exec-artifact-kernels.mlir' holds exec.program @small, a compiled artifact that runs only on the GPU: use --device=gpu
exec.program @small
    inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [256], strides = [1], name = "x">]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [256], strides = [1], name = "y">]
    buffers = [] {
  exec.kernel_group "small/group0" engine = "codegen_v2_t256_i1" {
    exec.kernel_module @kernels format = ptx
        binary = ".version 8.0\0A.target sm_90\0A.address_size 64\0A.visible .entry copy(\0A.param .u64 a,\0A.param .u64 b\0A)\0A{\0Aret;\0A}\0A"
    exec.kernel_launch @kernels entry = "copy" grid = [1, 1, 1] block = [256, 1, 1]
        args = [#exec.arg<uid = 1, access = read, align = 16>,
                #exec.arg<uid = 2, access = write, align = 16>]
  }
}
