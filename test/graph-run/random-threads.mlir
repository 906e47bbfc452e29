// Random inputs are filled in blocks on the thread pool, each block starting
// at its own draw of the seeded generator: the data is the same on one
// thread as on several (inputs of more than two blocks of 65536 elements).

// RUN: rm -rf %t && mkdir -p %t
// RUN: env GRAPH_REF_THREADS=1 graph-run %s --device=cpu --random-inputs=3 --print-max-elements=0 --output-dir=%t/one
// RUN: env GRAPH_REF_THREADS=2 graph-run %s --device=cpu --random-inputs=3 --print-max-elements=0 --output-dir=%t/two
// RUN: env GRAPH_REF_THREADS=3 graph-run %s --device=cpu --random-inputs=3 --print-max-elements=0 --output-dir=%t/three
// RUN: %python %S/Inputs/npy_tool.py same %t/one/a.npy %t/two/a.npy
// RUN: %python %S/Inputs/npy_tool.py same %t/one/b.npy %t/two/b.npy
// RUN: %python %S/Inputs/npy_tool.py same %t/one/a.npy %t/three/a.npy
// RUN: %python %S/Inputs/npy_tool.py same %t/one/b.npy %t/three/b.npy

graph.graph @seeded(%x: tensor<3x70001xbf16> {graph.name = "x"},
                    %y: tensor<200003xf32> {graph.name = "y"})
    -> (tensor<3x70001xf32> {graph.name = "a"}, tensor<200003xf32> {graph.name = "b"}) {
  %a = graph.pointwise identity(%x) : (tensor<3x70001xbf16>) -> tensor<3x70001xf32>
  %b = graph.pointwise identity(%y) : (tensor<200003xf32>) -> tensor<200003xf32>
  graph.output %a, %b : tensor<3x70001xf32>, tensor<200003xf32>
}
