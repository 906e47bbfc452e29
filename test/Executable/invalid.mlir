// RUN: graph-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the exec dialect.

// expected-error @below {{tensor uid -1 is negative (uids must be >= 0)}}
exec.program @p inputs = [#exec.tensor<uid = -1, dtype = f32, dims = [4], strides = [1]>] outputs = [] buffers = [] {
}

// -----

// expected-error @below {{tensor uid 1 has 2 dims but 1 strides}}
exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4, 4], strides = [1]>] outputs = [] buffers = [] {
}

// -----

// expected-error @below {{tensor uid 1: dims must be positive (static)}}
exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [0], strides = [1]>] outputs = [] buffers = [] {
}

// -----

// expected-error @below {{tensor uid 1 cannot be both virtual and by-value}}
exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [1], strides = [1], is_virtual = true, by_value = 1.0 : f64>] outputs = [] buffers = [] {
}

// -----

// expected-error @below {{'exec.program' op uid 1 is declared twice (input and buffer)}}
exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [] buffers = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] {
}

// -----

// expected-error @below {{'exec.program' op input uid 1 must be a device buffer (not virtual or by-value)}}
exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1], is_virtual = true>]
    outputs = [] buffers = [] {
}

// -----

// expected-error @below {{'exec.program' op output 0 aliases input 3, which does not exist}}
exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] buffers = []
    attributes {output_aliases = array<i64: 3>} {
}

// -----

// expected-error @below {{'exec.program' op output uid 2 is written by no step}}
exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  // expected-error @below {{'exec.cudnn_group' op tensor uid 1 appears twice in the group}}
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>, #exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] heuristics = ["a"] {
  ^bb0(%x: tensor<4xf32>, %x2: tensor<4xf32>):
    %y = graph.pointwise add(%x, %x2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    exec.yield %y : tensor<4xf32>
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  // expected-error @below {{'exec.cudnn_group' op input uid 1 is virtual; a group's virtual tensors are its ops' results}}
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1], is_virtual = true>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] heuristics = ["a"] {
  ^bb0(%x: tensor<4xf32>):
    %y = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    exec.yield %y : tensor<4xf32>
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  // expected-error @below {{'exec.cudnn_group' op output uid 2 must be a device buffer (not virtual or by-value)}}
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1], by_value = 1.0 : f64>] heuristics = ["a"] {
  ^bb0(%x: tensor<4xf32>):
    %y = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    exec.yield %y : tensor<4xf32>
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  // expected-error @below {{'exec.cudnn_group' op has 2 inputs but its body takes 1 arguments}}
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>, #exec.tensor<uid = 3, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] heuristics = ["a"] {
  ^bb0(%x: tensor<4xf32>):
    %y = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    exec.yield %y : tensor<4xf32>
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  // expected-error @below {{'exec.cudnn_group' op input uid 1 has dims [8] but argument 0 is 'tensor<4xf32>'}}
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [8], strides = [1]>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] heuristics = ["a"] {
  ^bb0(%x: tensor<4xf32>):
    %y = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    exec.yield %y : tensor<4xf32>
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>, #exec.tensor<uid = 3, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  // expected-error @below {{'exec.cudnn_group' op input uid 3 is used by no op}}
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>, #exec.tensor<uid = 3, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] heuristics = ["a"] {
  ^bb0(%x: tensor<4xf32>, %unused: tensor<4xf32>):
    %y = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    exec.yield %y : tensor<4xf32>
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] heuristics = ["a"] {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @below {{'graph.scalar' op cannot be in an exec.cudnn_group (its body holds graph-dialect node ops and exec.yield; scalars are by-value inputs)}}
    %s = graph.scalar 2.0 : f32 -> tensor<1xf32>
    %y = graph.pointwise mul(%x, %s) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
    exec.yield %y : tensor<4xf32>
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] heuristics = ["a"] {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @below {{'graph.output' op expects parent op 'graph.graph'}}
    graph.output %x : tensor<4xf32>
  }
}

// -----

exec.program @p inputs = []
    outputs = [] buffers = [] {
  // expected-error @below {{'exec.cudnn_group' op has no ops}}
  exec.cudnn_group "g" inputs = []
      outputs = [] heuristics = ["a"] {
  ^bb0:
    exec.yield
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] heuristics = ["a"] {
  ^bb0(%x: tensor<4xf32>):
    %y = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    // expected-error @below {{'exec.yield' op yields 0 values for the 1 outputs of its group}}
    exec.yield
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] heuristics = ["a"] {
  ^bb0(%x: tensor<4xf32>):
    %y = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    // expected-error @below {{'exec.yield' op value 0 (output uid 2) is an input of the group, not a result of its ops}}
    exec.yield %x : tensor<4xf32>
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>, #exec.tensor<uid = 3, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>, #exec.tensor<uid = 3, dtype = f32, dims = [4], strides = [1]>] heuristics = ["a"] {
  ^bb0(%x: tensor<4xf32>):
    %y = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    // expected-error @below {{'exec.yield' op value 1 (output uid 3) is yielded twice}}
    exec.yield %y, %y : tensor<4xf32>, tensor<4xf32>
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  // expected-error @below {{'exec.cudnn_group' op output uid 2 has dims [2, 2] but yielded value 0 is 'tensor<4xf32>'}}
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [2, 2], strides = [2, 1]>] heuristics = ["a"] {
  ^bb0(%x: tensor<4xf32>):
    %y = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    exec.yield %y : tensor<4xf32>
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  // expected-error @below {{'exec.cudnn_group' op gives both heuristics and an engine: choose one}}
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] heuristics = ["a"] engine = 3 {
  ^bb0(%x: tensor<4xf32>):
    %y = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    exec.yield %y : tensor<4xf32>
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  // expected-error @below {{'exec.cudnn_group' op needs heuristics = [...] or engine = N}}
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>]  {
  ^bb0(%x: tensor<4xf32>):
    %y = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    exec.yield %y : tensor<4xf32>
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  // expected-error @below {{'exec.cudnn_group' op knobs must be (knob, value) pairs: an even count}}
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] engine = 3 knobs = [1] {
  ^bb0(%x: tensor<4xf32>):
    %y = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    exec.yield %y : tensor<4xf32>
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  // expected-error @below {{'exec.cudnn_group' op heuristics mode 'c': expected a, b or fallback}}
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] heuristics = ["c"] {
  ^bb0(%x: tensor<4xf32>):
    %y = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    exec.yield %y : tensor<4xf32>
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  // expected-error @below {{'exec.cudnn_group' op uid 1 is a program buffer; a by-value tensor needs a uid of its own}}
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1], by_value = 1.0 : f64>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] heuristics = ["a"] {
  ^bb0(%x: tensor<4xf32>):
    %y = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    exec.yield %y : tensor<4xf32>
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  // expected-error @below {{'exec.cudnn_group' op input uid 5 is neither a program input, output or buffer nor by-value}}
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 5, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] heuristics = ["a"] {
  ^bb0(%x: tensor<4xf32>):
    %y = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    exec.yield %y : tensor<4xf32>
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  // expected-error @below {{'exec.cudnn_group' op output uid 7 is not a program output or buffer}}
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 7, dtype = f32, dims = [4], strides = [1]>] heuristics = ["a"] {
  ^bb0(%x: tensor<4xf32>):
    %y = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    exec.yield %y : tensor<4xf32>
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [#exec.tensor<uid = 3, dtype = f32, dims = [4], strides = [1]>] {
  // expected-error @below {{'exec.cudnn_group' op reads uid 3 before any step writes it (schedule order)}}
  exec.cudnn_group "second" inputs = [#exec.tensor<uid = 3, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] heuristics = ["a"] {
  ^bb0(%x: tensor<4xf32>):
    %y = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    exec.yield %y : tensor<4xf32>
  }
  exec.cudnn_group "first" inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 3, dtype = f32, dims = [4], strides = [1]>] heuristics = ["a"] {
  ^bb0(%x: tensor<4xf32>):
    %y = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    exec.yield %y : tensor<4xf32>
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>, #exec.tensor<uid = 5, dtype = f32, dims = [4], strides = [1]>]
    outputs = [] buffers = [] {
  // expected-error @below {{'exec.cudnn_group' op writes program input uid 1}}
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 5, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] heuristics = ["a"] {
  ^bb0(%x: tensor<4xf32>):
    %y = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    exec.yield %y : tensor<4xf32>
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
    outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] heuristics = ["a"] {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @below {{pointwise: result dims are 4x2 but must be 4 (the broadcast of the operands)}}
    %y = graph.pointwise relu(%x) : (tensor<4xf32>) -> tensor<4x2xf32>
    exec.yield %y : tensor<4x2xf32>
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.kernel_group "g" engine = "codegen_v1" {
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    // expected-error @below {{'exec.kernel_launch' op grid must have 3 values, not 2}}
    exec.kernel_launch @m entry = "k" grid = [1, 1] block = [1, 1, 1] args = [#exec.arg<uid = 2, access = write>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.kernel_group "g" engine = "codegen_v1" {
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    // expected-error @below {{'exec.kernel_launch' op block sizes must be positive}}
    exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [0, 1, 1] args = [#exec.arg<uid = 2, access = write>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.kernel_group "g" engine = "codegen_v1" {
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    // expected-error @below {{'exec.kernel_launch' op block has 2048 threads; a block holds at most 1024}}
    exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [1024, 2, 1] args = [#exec.arg<uid = 2, access = write>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.kernel_group "g" engine = "codegen_v1" {
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    // expected-error @below {{'exec.kernel_launch' op grid exceeds the launch limits (x < 2^31, y and z at most 65535)}}
    exec.kernel_launch @m entry = "k" grid = [1, 65536, 1] block = [1, 1, 1] args = [#exec.arg<uid = 2, access = write>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.kernel_group "g" engine = "codegen_v1" {
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    // expected-error @below {{'exec.kernel_launch' op module @n is not an exec.kernel_module of its group}}
    exec.kernel_launch @n entry = "k" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = 2, access = write>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.kernel_group "g" engine = "codegen_v1" {
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    // expected-error @below {{'exec.kernel_launch' op entry 'kk' is not an .entry of PTX module @m}}
    exec.kernel_launch @m entry = "kk" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = 2, access = write>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.kernel_group "g" engine = "codegen_v1" {
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    // expected-error @below {{'exec.kernel_launch' op scratch uid -3 is not in its group's scratch list}}
    exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = -3, access = scratch>, #exec.arg<uid = 2, access = write>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.kernel_group "g" engine = "codegen_v1" {
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    // expected-error @below {{'exec.kernel_launch' op argument uid 4 is not a program input, output or buffer}}
    exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = 4, access = read>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.kernel_group "g" engine = "codegen_v1" {
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    // expected-error @below {{'exec.kernel_launch' op writes program input uid 1}}
    exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = 1, access = write>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.kernel_group "g" engine = "codegen_v1" {
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    // expected-error @below {{'exec.kernel_launch' op reads uid 2 before any step writes it (schedule order)}}
    exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = 2, access = read>]
    exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = 2, access = write>]
  }
}

// -----

// expected-error @below {{'exec.program' op output uid 2 is written by no step}}
exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.kernel_group "g" engine = "codegen_v1" {
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = 1, access = read>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  // expected-error @below {{'exec.kernel_group' op has no exec.kernel_launch}}
  exec.kernel_group "g" engine = "codegen_v1" {
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  // expected-error @below {{'exec.kernel_group' op engine must name the codegen plan}}
  exec.kernel_group "g" engine = "" {
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = 2, access = write>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  // expected-error @below {{'exec.kernel_group' op scratch uid -1 is declared twice}}
  exec.kernel_group "g" engine = "codegen_v1" scratch = [#exec.scratch<uid = -1, bytes = 4>, #exec.scratch<uid = -1, bytes = 8>] {
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = 2, access = write>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.kernel_group "g" engine = "codegen_v1" {
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    // expected-error @below {{'exec.kernel_module' op is launched by no exec.kernel_launch of its group}}
    exec.kernel_module @unused format = ptx binary = ".visible .entry k("
    exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = 2, access = write>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.kernel_group "g" engine = "codegen_v1" {
    // expected-error @below {{'exec.kernel_module' op binary is not PTX text with .entry functions}}
    exec.kernel_module @m format = ptx binary = ".version 8.0"
    exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = 2, access = write>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.kernel_group "g" engine = "codegen_v1" {
    // expected-error @below {{'exec.kernel_module' op binary is not a cubin (an ELF image)}}
    exec.kernel_module @m format = cubin binary = ".visible .entry k("
    exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = 2, access = write>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.kernel_group "g" engine = "codegen_v1" {
    // expected-error @below {{'exec.kernel_module' op binary must not be empty}}
    exec.kernel_module @m format = cubin binary = ""
    exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = 2, access = write>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.kernel_group "g" engine = "codegen_v1" {
    // expected-note @below {{see existing symbol definition here}}
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    // expected-error @below {{redefinition of symbol named 'm'}}
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = 2, access = write>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  // expected-error @below {{'exec.kernel_launch' op expects parent op 'exec.kernel_group'}}
  exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = 2, access = write>]
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.kernel_group "g" engine = "codegen_v1" {
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    // expected-error @below {{kernel argument uid -1: a negative uid is a scratch buffer (access = scratch)}}
    exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = -1, access = read>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.kernel_group "g" engine = "codegen_v1" {
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    // expected-error @below {{kernel argument uid 2: access = scratch needs a negative uid}}
    exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = 2, access = scratch>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.kernel_group "g" engine = "codegen_v1" {
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    // expected-error @below {{kernel argument uid 2: align 12 must be 0 or a power of two}}
    exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = 2, access = write, align = 12>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  // expected-error @below {{scratch uid 3 must be negative (scratch uids are local to their group)}}
  exec.kernel_group "g" engine = "codegen_v1" scratch = [#exec.scratch<uid = 3, bytes = 4>] {
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = 2, access = write>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  // expected-error @below {{scratch uid -1 needs a positive size, not 0 bytes}}
  exec.kernel_group "g" engine = "codegen_v1" scratch = [#exec.scratch<uid = -1, bytes = 0>] {
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = 2, access = write>]
  }
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [4], strides = [1]>] buffers = [] {
  exec.kernel_group "g" engine = "codegen_v1" {
    exec.kernel_module @m format = ptx binary = ".visible .entry k("
    exec.kernel_launch @m entry = "k" grid = [1, 1, 1] block = [1, 1, 1] args = [#exec.arg<uid = 2, access = write>]
    // expected-error @below {{'exec.cudnn_group' op expects parent op 'exec.program'}}
    exec.cudnn_group "x" inputs = [] outputs = [] heuristics = ["a"] {
      exec.yield
    }
  }
}

// -----

// expected-error @below {{tensor uid 1: read_by_value marks a device buffer, not a by-value constant}}
exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [1], strides = [1], by_value = 1.0 : f64, read_by_value = true>] outputs = [] buffers = [] {
}

// -----

// expected-error @below {{tensor uid 1: read_by_value needs a one-element tensor}}
exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [2], strides = [1], read_by_value = true>] outputs = [] buffers = [] {
}

// -----

exec.program @p inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>] outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [1], strides = [1]>] buffers = [] {
  // expected-error @below {{'exec.cudnn_group' op output uid 2 must be a device buffer (not virtual or by-value)}}
  exec.cudnn_group "g" inputs = [#exec.tensor<uid = 1, dtype = f32, dims = [4], strides = [1]>]
      outputs = [#exec.tensor<uid = 2, dtype = f32, dims = [1], strides = [1], read_by_value = true>] heuristics = ["a"] {
  ^bb0(%x: tensor<4xf32>):
    %r = graph.reduction add %x : (tensor<4xf32>) -> tensor<1xf32>
    exec.yield %r : tensor<1xf32>
  }
}
