/*===- embed.c - Embedding the graph compiler through its C API -----------===*\
|*                                                                            *|
|* Parses a graph (matmul + bias + relu) from text, prepares it, executes it *|
|* on the CPU reference and checks the output against values computed here.  *|
|* Prints PASS or FAIL; exits non-zero on failure.                            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "GraphDialect-c/Graph.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { M = 2, K = 3, N = 4 };

static const char *kGraph =
    "graph.graph @dense(%x: tensor<2x3xf32> {graph.name = \"x\"},\n"
    "                   %w: tensor<3x4xf32> {graph.name = \"w\"},\n"
    "                   %b: tensor<1x4xf32> {graph.name = \"b\"})\n"
    "    -> (tensor<2x4xf32> {graph.name = \"y\"})\n"
    "    attributes {io_data_type = f32, compute_data_type = f32} {\n"
    "  %h = graph.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> "
    "tensor<2x4xf32>\n"
    "  %hb = graph.pointwise add(%h, %b) : (tensor<2x4xf32>, "
    "tensor<1x4xf32>) -> tensor<2x4xf32>\n"
    "  %y = graph.pointwise relu(%hb) : (tensor<2x4xf32>) -> "
    "tensor<2x4xf32>\n"
    "  graph.output %y : tensor<2x4xf32>\n"
    "}\n";

static int failWith(const char *what) {
  fprintf(stderr, "embed: %s: %s\n", what, graphGetLastError());
  printf("FAIL\n");
  return 1;
}

/* Binds `data` to the graph tensor `info` as a dense buffer. */
static GraphBuffer bind(const GraphTensorInfo *info, float *data) {
  GraphBuffer buffer;
  memset(&buffer, 0, sizeof(buffer));
  buffer.uid = info->uid;
  buffer.data = data;
  buffer.dtype = info->dtype;
  buffer.rank = info->rank;
  for (int32_t d = 0; d < info->rank; ++d)
    buffer.dims[d] = info->dims[d];
  return buffer; /* strides all 0: dense row-major */
}

int main(void) {
  float x[M * K], w[K * N], b[N], y[M * N], expected[M * N];
  for (int i = 0; i < M * K; ++i)
    x[i] = 0.5f * (float)(i - 2);
  for (int i = 0; i < K * N; ++i)
    w[i] = 0.25f * (float)((i * 7) % 5 - 2);
  for (int i = 0; i < N; ++i)
    b[i] = 0.1f * (float)(i - 1);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double acc = b[n];
      for (int k = 0; k < K; ++k)
        acc += (double)x[m * K + k] * w[k * N + n];
      expected[m * N + n] = acc > 0 ? (float)acc : 0.0f;
    }
  memset(y, 0, sizeof(y));

  GraphContext context = graphContextCreate();
  GraphModule module = graphModuleParseNamed(context, kGraph, strlen(kGraph),
                                             "embed.mlir");
  if (!module)
    return failWith("parse");
  if (graphModulePrepare(module) != GRAPH_OK)
    return failWith("prepare");

  /* Bind buffers by the names the graph gave its tensors. */
  GraphBuffer buffers[4];
  int32_t numBuffers = 0;
  int32_t numInputs = graphNumInputs(module);
  for (int32_t i = 0; i < numInputs; ++i) {
    GraphTensorInfo info;
    if (graphGetInput(module, i, &info) != GRAPH_OK)
      return failWith("graphGetInput");
    float *data = strcmp(info.name, "x") == 0   ? x
                  : strcmp(info.name, "w") == 0 ? w
                                                : b;
    buffers[numBuffers++] = bind(&info, data);
  }
  GraphTensorInfo out;
  if (graphNumOutputs(module) != 1 || graphGetOutput(module, 0, &out) != GRAPH_OK)
    return failWith("graphGetOutput");
  buffers[numBuffers++] = bind(&out, y);

  if (graphExecute(module, GRAPH_DEVICE_CPU, buffers, numBuffers) != GRAPH_OK)
    return failWith("execute");

  int ok = 1;
  for (int i = 0; i < M * N; ++i)
    if (fabsf(y[i] - expected[i]) > 1e-5f * (1.0f + fabsf(expected[i]))) {
      fprintf(stderr, "embed: y[%d] = %g, expected %g\n", i, y[i], expected[i]);
      ok = 0;
    }

  /* The GPU is not linked into this build: a clear error, not a crash. */
  GraphStatus gpu = graphExecute(module, GRAPH_DEVICE_GPU, buffers, numBuffers);
  printf("GPU execute: %s (%s)\n", graphStatusName(gpu), graphGetLastError());

  graphModuleDestroy(module);
  graphContextDestroy(context);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
