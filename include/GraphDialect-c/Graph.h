/*===- Graph.h - C API of the graph compiler ----------------------*- C -*-===*\
|*                                                                            *|
|* A plain C surface for embedding the compiler: parse or build a graph,      *|
|* validate it, compile it through the pipeline, query its inputs and         *|
|* outputs, execute it on host buffers (CPU reference) or device pointers     *|
|* (GPU), and serialize the compiled artifact. Every function reports failure *|
|* through its return value and leaves the full diagnostic text in            *|
|* graphGetLastError(); no C++ exception or abort crosses this boundary.      *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef GRAPHDIALECT_C_GRAPH_H
#define GRAPHDIALECT_C_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GRAPH_API __attribute__((visibility("default")))

/* Status codes. */
typedef enum {
  GRAPH_OK = 0,
  GRAPH_ERROR_INVALID_ARGUMENT = 1, /* a bad handle, index or buffer */
  GRAPH_ERROR_INVALID_GRAPH = 2,    /* parse or verifier failure */
  GRAPH_ERROR_NOT_SUPPORTED = 3,    /* no engine runs it */
  GRAPH_ERROR_EXECUTION = 4,        /* runtime failure */
  GRAPH_ERROR_NO_DEVICE = 5         /* GPU requested but unavailable */
} GraphStatus;

/* Element types, as the dialect spells them. */
typedef enum {
  GRAPH_F32 = 0,
  GRAPH_F16 = 1,
  GRAPH_BF16 = 2,
  GRAPH_F64 = 3,
  GRAPH_I8 = 4,
  GRAPH_U8 = 5,
  GRAPH_I32 = 6,
  GRAPH_I64 = 7,
  GRAPH_I1 = 8,
  GRAPH_F8E4M3FN = 9,
  GRAPH_F8E5M2 = 10,
  GRAPH_F8E8M0FNU = 11,
  GRAPH_F4E2M1FN = 12
} GraphDType;

typedef enum { GRAPH_DEVICE_CPU = 0, GRAPH_DEVICE_GPU = 1 } GraphDevice;

typedef struct GraphContextImpl *GraphContext;
typedef struct GraphModuleImpl *GraphModule;

#define GRAPH_MAX_RANK 8

/* One graph input or output. Strides are in elements. */
typedef struct {
  int64_t uid;         /* 0 until uids are assigned */
  const char *name;    /* owned by the module; "" when unnamed */
  GraphDType dtype;
  int32_t rank;
  int64_t dims[GRAPH_MAX_RANK];    /* -1 for a dynamic dim */
  int64_t strides[GRAPH_MAX_RANK]; /* 0s when not decided */
} GraphTensorInfo;

/* A buffer handed to execute: host memory for the CPU, a device pointer for
 * the GPU, with its actual dims and strides (elements). */
typedef struct {
  int64_t uid;
  void *data;
  GraphDType dtype;
  int32_t rank;
  int64_t dims[GRAPH_MAX_RANK];
  int64_t strides[GRAPH_MAX_RANK];
} GraphBuffer;

/* The full text of the last failure on this thread ("" when none). */
GRAPH_API const char *graphGetLastError(void);

GRAPH_API GraphContext graphContextCreate(void);
GRAPH_API void graphContextDestroy(GraphContext context);

/* Parses MLIR text (or bytecode) holding one or more graph.graph ops and
 * verifies it. NULL on failure. */
GRAPH_API GraphModule graphModuleParse(GraphContext context, const char *data,
                                       size_t size);
GRAPH_API void graphModuleDestroy(GraphModule module);

/* Graphs in the module; the first is selected until graphModuleSelect. */
GRAPH_API int32_t graphModuleNumGraphs(GraphModule module);
GRAPH_API const char *graphModuleGraphName(GraphModule module, int32_t index);
GRAPH_API GraphStatus graphModuleSelect(GraphModule module, const char *name);

/* Runs the graph-prepare pipeline (uids, layouts, canonicalization). */
GRAPH_API GraphStatus graphModulePrepare(GraphModule module);

/* The module as text (generic != 0: generic form) or bytecode. The caller
 * frees the result with graphFree. */
GRAPH_API char *graphModulePrint(GraphModule module, int generic,
                                 size_t *size);
GRAPH_API char *graphModuleWriteBytecode(GraphModule module, size_t *size);
GRAPH_API void graphFree(void *pointer);

/* Inputs and outputs of the selected graph. */
GRAPH_API int32_t graphNumInputs(GraphModule module);
GRAPH_API int32_t graphNumOutputs(GraphModule module);
GRAPH_API GraphStatus graphGetInput(GraphModule module, int32_t index,
                                    GraphTensorInfo *info);
GRAPH_API GraphStatus graphGetOutput(GraphModule module, int32_t index,
                                     GraphTensorInfo *info);

/* Executes the selected graph. Buffers are matched to inputs and outputs by
 * uid; every input and output needs exactly one. Output buffers are written
 * in the strides they declare. */
GRAPH_API GraphStatus graphExecute(GraphModule module, GraphDevice device,
                                   const GraphBuffer *buffers,
                                   int32_t numBuffers);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHDIALECT_C_GRAPH_H */
