// RUN: graph-opt %s -split-input-file -verify-diagnostics

// Issue 13: IR that was silently accepted.

// A data type given as a string was dropped without a word.
// expected-error @below {{'graph.graph' op io_data_type must be an element type such as f16 (written without quotes), got "f32"}}
graph.graph @g(%x: tensor<4xf32>) attributes {io_data_type = "f32"} {
  graph.output
}

// -----

// expected-error @below {{'graph.graph' op compute_data_type must be an element type such as f16 (written without quotes), got 32 : i64}}
graph.graph @g(%x: tensor<4xf32>) attributes {compute_data_type = 32} {
  graph.output
}

// -----

// An #exec.op whose kind is no graph op.
exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.cudnn_group "p/group0"
      tensors = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>,
                 #exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>]
      // expected-error @below {{op kind "frobnicate" is not a graph-dialect op (an #exec.op kind is the mnemonic of a graph op, e.g. "matmul")}}
      ops = [#exec.op<kind = "frobnicate", inputs = {in0 = 1 : i64}, outputs = {output = 2 : i64}, compute = f32>]
      heuristics = ["a"]
}
