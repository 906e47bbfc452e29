/*===- Graph.h - C API of the graph compiler ----------------------*- C -*-===*\
|*                                                                            *|
|* A plain C surface for embedding the compiler: parse or build a graph,      *|
|* validate it, compile it through the pipeline, query its inputs and         *|
|* outputs, execute it on host buffers (CPU reference) or device pointers     *|
|* (GPU), and serialize the compiled artifact. Every function reports failure *|
|* through its return value and leaves the full diagnostic text in            *|
|* graphGetLastError(); no C++ exception or abort crosses this boundary.      *|
|*                                                                            *|
|* Handles are checked: NULL, destroyed or foreign handles, bad indices and   *|
|* NULL pointers answer GRAPH_ERROR_INVALID_ARGUMENT (or NULL / -1) with a    *|
|* message. Calls on modules of one context are serialized; use a context    *|
|* per thread for parallel work. The library is libGraphCAPI.so; another     *|
|* CMake project finds it with find_package(GraphDialect) and links          *|
|* GraphDialect::GraphCAPI.                                                   *|
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

/* In C++ the enums below have `int` as their fixed underlying type, so an
 * out-of-range value a C caller passes (GraphDType 99) is a value the
 * functions check and reject, not undefined behaviour (UBSan's -fsanitize=enum
 * reports it otherwise). The size and the ABI are those of the C enums. */
#ifdef __cplusplus
#define GRAPH_ENUM_INT : int
#else
#define GRAPH_ENUM_INT
#endif

/* Status codes. */
typedef enum GRAPH_ENUM_INT {
  GRAPH_OK = 0,
  GRAPH_ERROR_INVALID_ARGUMENT = 1, /* a bad handle, index or buffer */
  GRAPH_ERROR_INVALID_GRAPH = 2,    /* parse or verifier failure */
  GRAPH_ERROR_NOT_SUPPORTED = 3,    /* no engine runs it */
  GRAPH_ERROR_EXECUTION = 4,        /* runtime failure */
  GRAPH_ERROR_NO_DEVICE = 5         /* GPU requested but unavailable */
} GraphStatus;

/* Element types, as the dialect spells them. */
typedef enum GRAPH_ENUM_INT {
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

typedef enum GRAPH_ENUM_INT {
  GRAPH_DEVICE_CPU = 0,
  GRAPH_DEVICE_GPU = 1
} GraphDevice;

typedef struct GraphContextImpl *GraphContext;
typedef struct GraphModuleImpl *GraphModule;

#define GRAPH_MAX_RANK 8

/* One graph input or output. Strides are in elements. */
typedef struct {
  int64_t uid;         /* meaningful when hasUid (0 is a valid uid) */
  const char *name;    /* owned by the module; "" when unnamed */
  GraphDType dtype;
  int32_t rank;
  int64_t dims[GRAPH_MAX_RANK];    /* -1 for a dynamic dim */
  int64_t strides[GRAPH_MAX_RANK]; /* 0s when not decided */
  int32_t hasUid; /* 1 when the tensor has a uid, 0 until uids are assigned */
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

/* The full text of the last failure on this thread ("" when none): every
 * MLIR diagnostic as "file:line:col: error: message", the quoted source line
 * and a caret, then its notes. Every function that takes a context or a
 * module clears it on entry (the destroy functions only set it, on a stale
 * handle), so after a failure it describes that failure. The pointer is valid
 * until the next such call on this thread. */
GRAPH_API const char *graphGetLastError(void);
/* The status of the last failure on this thread (GRAPH_OK when none): how a
 * caller tells why a function returning NULL or -1 failed (for example
 * GRAPH_ERROR_INVALID_GRAPH from graphModuleParse). */
GRAPH_API GraphStatus graphGetLastStatus(void);
/* Clears the last error and status of this thread. */
GRAPH_API void graphClearLastError(void);

/* "GRAPH_OK", "GRAPH_ERROR_INVALID_GRAPH"...; NULL for an unknown status. */
GRAPH_API const char *graphStatusName(GraphStatus status);
/* The element type as MLIR spells it ("f32", "bf16", "ui8", "f8E4M3FN"...);
 * NULL for an unknown dtype. */
GRAPH_API const char *graphDTypeName(GraphDType dtype);
/* Bytes of one stored element (1 for i1 and for f4E2M1FN, stored one value
 * per byte); 0 for an unknown dtype. */
GRAPH_API size_t graphDTypeSize(GraphDType dtype);

/* A context owns the MLIR context graphs are parsed into. Never NULL. */
GRAPH_API GraphContext graphContextCreate(void);
/* Destroys a context. Modules parsed in it stay valid (they keep the MLIR
 * context alive) until they are destroyed. NULL is a no-op. */
GRAPH_API void graphContextDestroy(GraphContext context);

/* Parses MLIR text (or bytecode, told apart by its magic) holding one or more
 * graph.graph ops, or one or more exec.program ops (a compiled artifact, see
 * graphModuleLowerToExecutable; a module mixing both is rejected), and
 * verifies it. Diagnostics name the buffer "<graph>".
 * NULL on failure (GRAPH_ERROR_INVALID_GRAPH or _INVALID_ARGUMENT; see
 * graphGetLastError). `data` need not be NUL-terminated. */
GRAPH_API GraphModule graphModuleParse(GraphContext context, const char *data,
                                       size_t size);
/* graphModuleParse with the file name diagnostics show (NULL or "": "<graph>").
 */
GRAPH_API GraphModule graphModuleParseNamed(GraphContext context,
                                            const char *data, size_t size,
                                            const char *bufferName);
/* Destroys a module. NULL is a no-op. */
GRAPH_API void graphModuleDestroy(GraphModule module);

/* Compiled artifacts (exec.program)
 *
 * graphModuleLowerToExecutable runs the GPU pipeline (graph-prepare,
 * graph-fuse, graph-select-engines) and graph-lower-to-executable on a clone
 * of `module` and returns a NEW module (destroy it with graphModuleDestroy;
 * `module` is unchanged) holding one exec.program per graph, the program of
 * the selected graph selected. It needs no GPU. NULL on failure:
 * GRAPH_ERROR_NOT_SUPPORTED when the pipeline or the lowering rejects a
 * graph (or the build has no GPU lowering), GRAPH_ERROR_INVALID_ARGUMENT for
 * a module that already is an artifact; see graphGetLastError.
 *
 * An artifact module (returned here or parsed from its text or bytecode)
 * answers the module calls with its programs: graphModuleNumGraphs /
 * GraphName / Select / SelectedName list and pick programs;
 * graphNumInputs / Outputs and graphGetInput / Output describe the selected
 * program's inputs and outputs (uid, name, dtype, dims, strides as its
 * #exec.tensor attributes give them); graphModulePrepare is a no-op
 * (GRAPH_OK); graphModulePrint / graphModuleWriteBytecode write it.
 * graphExecute(GRAPH_DEVICE_GPU) runs it without recompiling: the first
 * execute rebuilds its cuDNN program and plans (the heuristics recorded in
 * the artifact, graphSetPlanOptions' options), later ones reuse them. It
 * answers GRAPH_ERROR_NO_DEVICE before anything else when no GPU is usable;
 * the buffers are checked as for a graph (uid, dtype, dims, and the
 * program's strides). graphExecute(GRAPH_DEVICE_CPU) is
 * GRAPH_ERROR_NOT_SUPPORTED: an artifact runs only on the GPU. The plan-list
 * calls (graphPlanCreate...) do not apply to an artifact
 * (GRAPH_ERROR_NOT_SUPPORTED). */
GRAPH_API GraphModule graphModuleLowerToExecutable(GraphModule module);
/* 1 when the module is a compiled artifact (exec.program ops), 0 when it
 * holds graphs, -1 for a bad handle. */
GRAPH_API int graphModuleIsExecutable(GraphModule module);

/* Graphs in the module; the first is selected until graphModuleSelect.
 * graphModuleNumGraphs answers -1 for a bad handle. Names are owned by the
 * module and valid until the next graphModulePrepare or its destruction;
 * graphModuleGraphName answers NULL for a bad handle or index. */
GRAPH_API int32_t graphModuleNumGraphs(GraphModule module);
GRAPH_API const char *graphModuleGraphName(GraphModule module, int32_t index);
/* Selects the graph named `name` (without the @); an unknown name is
 * GRAPH_ERROR_INVALID_ARGUMENT and the error lists the module's graphs. */
GRAPH_API GraphStatus graphModuleSelect(GraphModule module, const char *name);
/* Name of the selected graph (owned by the module, as above); NULL for a bad
 * handle. */
GRAPH_API const char *graphModuleSelectedName(GraphModule module);

/* Runs the graph-prepare pipeline (verify, uids, layouts, canonicalization)
 * over every graph of the module. On failure (GRAPH_ERROR_INVALID_GRAPH) the
 * module is left as it was. Execute needs every input and output to have a
 * uid, which this assigns. */
GRAPH_API GraphStatus graphModulePrepare(GraphModule module);

/* The module as text (generic != 0: generic op form), NUL-terminated, or as
 * MLIR bytecode (graphModuleParse reads both back). `size` receives the
 * length without the terminator; it may be NULL for graphModulePrint but not
 * for graphModuleWriteBytecode. NULL on failure. The caller frees the result
 * with graphFree. */
GRAPH_API char *graphModulePrint(GraphModule module, int generic,
                                 size_t *size);
GRAPH_API char *graphModuleWriteBytecode(GraphModule module, size_t *size);
/* Frees what graphModulePrint / graphModuleWriteBytecode returned. NULL is a
 * no-op. */
GRAPH_API void graphFree(void *pointer);

/* Inputs (graph arguments) and outputs (graph.output operands) of the
 * selected graph, in order. The counts are -1 on failure: a bad handle, or
 * GRAPH_ERROR_NOT_SUPPORTED when a tensor has an element type without a
 * GraphDType or a rank above GRAPH_MAX_RANK. `info->name` is owned by the
 * module and valid until the next graphModuleSelect / graphModulePrepare or
 * its destruction. */
GRAPH_API int32_t graphNumInputs(GraphModule module);
GRAPH_API int32_t graphNumOutputs(GraphModule module);
GRAPH_API GraphStatus graphGetInput(GraphModule module, int32_t index,
                                    GraphTensorInfo *info);
GRAPH_API GraphStatus graphGetOutput(GraphModule module, int32_t index,
                                     GraphTensorInfo *info);

/* Executes the selected graph. Buffers are matched to inputs and outputs by
 * uid; every input and output needs exactly one (run graphModulePrepare first
 * when uids are missing). Each buffer's dtype and rank must equal the
 * graph's, and its dims the graph's static dims (dynamic dims take any size);
 * every mismatch is GRAPH_ERROR_INVALID_ARGUMENT naming the uid and what the
 * graph expects. Input buffers are read with the strides they give; output
 * buffers are written in the strides they give, which must not overlap
 * another output. Strides all 0 mean dense row-major; `data` may be NULL only
 * for a tensor with no elements. Inputs and outputs may alias: every input is
 * read before any output is written, and no output is written when execution
 * fails.
 *
 * GRAPH_DEVICE_CPU runs the CPU reference executor (float64 accumulation).
 * GRAPH_DEVICE_GPU runs the graph's cuDNN groups on device pointers (in the
 * graph's declared layouts): the first GPU execute lowers the graph and
 * builds its plans (following graphPlanCreate's heuristics, graphPlanSelect
 * and graphSetPlanOptions when called), later ones reuse them; it answers
 * GRAPH_ERROR_NO_DEVICE when the GPU runtime is not linked in or no GPU is
 * usable. The second GPU execute with the same buffer addresses (and lent
 * workspace) records the execute as a CUDA graph and later ones with them
 * launch it in one call; the data may change in place between executes
 * (GRAPH_CUDA_GRAPHS=0 turns this off; an execute inside the caller's own
 * capture, or of a graph with by-value scalars read from host buffers, is
 * never recorded). An op without a CPU implementation is
 * GRAPH_ERROR_NOT_SUPPORTED; other execution failures GRAPH_ERROR_EXECUTION. */
GRAPH_API GraphStatus graphExecute(GraphModule module, GraphDevice device,
                                   const GraphBuffer *buffers,
                                   int32_t numBuffers);

/* Lends the calling thread's GPU executes `bytes` of the caller's device
 * memory at `memory` as workspace (the frontend's execute(workspace=)),
 * instead of the workspace each executable keeps, until lent again; NULL
 * returns to the own ones. A group that needs more than `bytes`, or keeps
 * constants in its workspace (ALiBi slopes), still uses its own. The memory
 * must stay valid, and unwritten by others, while the work queued with it
 * runs. Without the GPU runtime: GRAPH_ERROR_NO_DEVICE. */
GRAPH_API GraphStatus graphSetWorkspace(void *memory, int64_t bytes);

/* Queues GPU work on the caller's CUDA stream (a cudaStream_t / CUstream,
 * e.g. torch.cuda.current_stream().cuda_stream) instead of the runtime's
 * own; NULL returns to the own stream. With a caller stream set, a GPU
 * graphExecute returns once the work is queued (ordered after what the
 * caller queued before); with the own stream it returns when it finished. */
GRAPH_API GraphStatus graphSetStream(void *stream);

/* Selects the GPU (CUDA device ordinal) that the calling thread's GPU calls
 * run on: graphExecute(GRAPH_DEVICE_GPU), graphPlanCreate and graphSetStream
 * (each device has its own context, stream and cuDNN handle, like a cuDNN
 * frontend handle created with that device current). -1 clears the choice:
 * the thread then follows its current CUDA device (cudaSetDevice,
 * torch.cuda.set_device), or device 0 when no context is current. An
 * ordinal that does not exist is GRAPH_ERROR_INVALID_ARGUMENT naming it and
 * the device count; no driver is GRAPH_ERROR_NO_DEVICE. A graph executed on
 * another device than before builds its plans again there; a buffer of
 * another GPU than the one executing is GRAPH_ERROR_INVALID_ARGUMENT. */
GRAPH_API GraphStatus graphSetDevice(int32_t ordinal);

/* The GPU the calling thread's GPU calls run on now (see graphSetDevice). */
GRAPH_API GraphStatus graphGetDevice(int32_t *ordinal);

/* The number of GPUs the driver sees (0 and GRAPH_ERROR_NO_DEVICE without a
 * driver or GPU runtime). */
GRAPH_API GraphStatus graphGetDeviceCount(int32_t *count);

/*===------------------------------------------------------------------===*\
|* GPU plan list                                                            *|
|*                                                                          *|
|* The ranked execution plans of the selected graph, as the cuDNN         *|
|* frontend exposes them (create_execution_plans, get_execution_plan_count, *|
|* get_plan_name_at_index, build_plan_at_index, select_plan,                *|
|* create_execution_plan, deselect_engines, deselect_workspace_greater_than).*|
|*                                                                          *|
|* graphPlanCreate runs the GPU pipeline (graph-prepare, graph-fuse,        *|
|* graph-select-engines) on a clone of the module, lowers it to groups and  *|
|* builds the plan list of the graph's ANCHOR fused group (graphPlanGroup), *|
|* the list GPU executes walk: cuDNN's heuristics plans, then the codegen   *|
|* engine's plans that can run the group (generated kernels: names          *|
|* "codegen_v2_t<threads>_i<items>[_p]" then "codegen_v1", engine ids       *|
|* GRAPH_CODEGEN_V2_ENGINE_ID / GRAPH_CODEGEN_V1_ENGINE_ID, no workspace,   *|
|* behavior note "GENERATED_KERNELS"), then the explicit plans of           *|
|* graphPlanAdd. When cuDNN declines the group the list is the codegen      *|
|* plans alone (index 0 up). A group whose tensors span 32 MiB or more is   *|
|* ranked by time once per process (README): the fastest timed plan, which  *|
|* may be a codegen plan or one of another description of the group, is   *|
|* listed first. The frontend lists plans per graph; a graph                *|
|* may lower to several fused groups here (graphPlanCount's `numGroups` >   *|
|* 1). The graph's list is then its anchor group's: the group with the most *|
|* principal ops (not pointwise, reduction or a view), then the most ops,   *|
|* the earliest on a tie (usually the matmul/conv/sdpa/norm group, not a    *|
|* pointwise prologue). The pinned plan and the explicit plans are the      *|
|* anchor's; every other group walks its own list as a plain execute does   *|
|* (first plan that builds), under the same graphSetPlanOptions filters.    *|
|* The list belongs to the selected graph: after graphModuleSelect of       *|
|* another graph the plan calls answer GRAPH_ERROR_INVALID_ARGUMENT until   *|
|* graphPlanCreate runs for it.                                             *|
|*                                                                          *|
|* Every plan call answers GRAPH_ERROR_NO_DEVICE when no GPU is usable (the *|
|* runtime is not linked in, or libcuda / libcudnn / a device is missing),  *|
|* with the reason in graphGetLastError; argument errors (NULL or stale     *|
|* module, NULL pointers, bad index) are GRAPH_ERROR_INVALID_ARGUMENT and   *|
|* are checked first.                                                       *|
\*===------------------------------------------------------------------===*/

/* Engine ids of the codegen plans (cuDNN's are >= 0), and the knob types of
 * codegen_v2 plans: threads per block, 16-byte items per thread, prefetch
 * (1: row loads pipelined one row ahead). */
#define GRAPH_CODEGEN_V2_ENGINE_ID (-2)
#define GRAPH_CODEGEN_V1_ENGINE_ID (-3)
#define GRAPH_CODEGEN_KNOB_THREADS 1000
#define GRAPH_CODEGEN_KNOB_ITEMS 1001
#define GRAPH_CODEGEN_KNOB_PREFETCH 1002
/* The knob type that marks a cuDNN plan of another description of its
 * group (value 0: a 1x1 convolution written as a matmul over the same
 * bytes, listed for groups ranked by time): graphPlanEngine answers it
 * among the knobs, and graphPlanAdd with it builds the engine on that
 * description. */
#define GRAPH_KNOB_ALTERNATE_DESCRIPTION 2000

/* Heuristics modes, queried in the order given; plans already listed by an
 * earlier mode are not repeated. */
typedef enum GRAPH_ENUM_INT {
  GRAPH_HEUR_MODE_A = 0,
  GRAPH_HEUR_MODE_B = 1,
  GRAPH_HEUR_MODE_FALLBACK = 2
} GraphHeurMode;

/* Builds the plan list of the selected graph for `device` (only
 * GRAPH_DEVICE_GPU has one; GRAPH_DEVICE_CPU is GRAPH_ERROR_INVALID_ARGUMENT).
 * `heurModes` holds `numModes` GraphHeurMode values; numModes 0 (heurModes
 * may then be NULL) means {A, FALLBACK}. Replaces an earlier list of the
 * module, and its pinned plan and explicit plans. GRAPH_ERROR_NOT_SUPPORTED
 * when the GPU pipeline or lowering rejects the graph, or when neither
 * engine has a plan for the anchor group (cuDNN rejects its operation graph
 * or its heuristics offer no plan, and no codegen plan applies; a plain
 * execute would then split it into single ops, which have their own
 * lists); the message says why. Later GPU executes use the same heuristics
 * modes, so plan indices mean the same plans there. */
GRAPH_API GraphStatus graphPlanCreate(GraphModule module, GraphDevice device,
                                      const int *heurModes, int32_t numModes);
/* Plans in the list (cuDNN heuristics', codegen's, then graphPlanAdd's), -1
 * on failure. When
 * `numGroups` is not NULL it receives the number of fused groups of the
 * lowered graph (the list is the anchor group's, graphPlanGroup). */
GRAPH_API int32_t graphPlanCount(GraphModule module, int32_t *numGroups);
/* The index (0 up, in schedule order, among graphPlanCount's `numGroups`)
 * of the fused group whose plan list the plan calls address: the graph's
 * anchor group. -1 on failure (no list, no GPU), as graphPlanCount. */
GRAPH_API int32_t graphPlanGroup(GraphModule module);
/* The plan's name, "eng<engine id>_k<knob type>=<value>..." (with
 * " [as <layout>]" when cuDNN only took the group relabeled, and
 * " [as 1x1 convolution as a matmul]" for a plan of that description of a
 * large group, see GRAPH_KNOB_ALTERNATE_DESCRIPTION) or the codegen
 * plan's ("codegen_v2_t256_i2", "codegen_v1"), owned by the
 * module and valid until the next graphPlanCreate or its destruction; NULL
 * on failure. */
GRAPH_API const char *graphPlanName(GraphModule module, int32_t index);
/* The plan's engine id and knobs. `knobs` holds (knob type, value) pairs,
 * 2 * capacity int64_t; *numKnobs is the capacity (in pairs) on entry and
 * the plan's knob count on return. A capacity too small for the plan is
 * GRAPH_ERROR_INVALID_ARGUMENT with *numKnobs set to the count needed, so
 * (knobs NULL, *numKnobs 0) queries the count. engineId may be NULL. A
 * codegen plan answers GRAPH_CODEGEN_V2_ENGINE_ID with its
 * GRAPH_CODEGEN_KNOB_* knobs, or GRAPH_CODEGEN_V1_ENGINE_ID without. */
GRAPH_API GraphStatus graphPlanEngine(GraphModule module, int32_t index,
                                      int64_t *engineId, int64_t *knobs,
                                      int32_t *numKnobs);
/* Bytes of device workspace the plan needs (its own plus the group's
 * internal scratch; 0 for a codegen plan). The plan is built first when it
 * is not yet, so a plan that declines answers -1 with
 * GRAPH_ERROR_NOT_SUPPORTED and the reason; -1 also on any other failure. */
GRAPH_API int64_t graphPlanWorkspace(GraphModule module, int32_t index);
/* The plan's notes as cuDNN names them, comma-separated ("" when none):
 * numeric != 0 the numerical notes ("TENSOR_CORE", "DOWN_CONVERT_INPUTS",
 * "NONDETERMINISTIC"...), else the behavior notes ("RUNTIME_COMPILATION",
 * "SUPPORTS_CUDA_GRAPH_NATIVE_API"...; a codegen plan's is
 * "GENERATED_KERNELS"). Owned by the module like
 * graphPlanName; NULL on failure. */
GRAPH_API const char *graphPlanNotes(GraphModule module, int32_t index,
                                     int numeric);
/* Finalizes plan `index` (build_plan_at_index; a codegen plan: compiles its
 * kernels and loads them once). A plan that declines is
 * GRAPH_ERROR_NOT_SUPPORTED, with the decline reason in graphGetLastError;
 * the other plans stay usable. Building twice is a no-op. */
GRAPH_API GraphStatus graphPlanBuild(GraphModule module, int32_t index);
/* Finalizes the `count` plans of `indices` as graphPlanBuild does each
 * (build_plans with build_plan_policy.ALL), cuDNN's on up to 8 threads at
 * once, each with its own cuDNN handle (GRAPH_PLAN_BUILD_THREADS=N sets
 * how many, 1 one after another; a runtime-fusion plan compiles its
 * kernels when it is finalized). GRAPH_OK when every one built; else
 * GRAPH_ERROR_NOT_SUPPORTED naming the first that declined, and the others
 * stay built. The next graphPlanBuild of a plan that declined here answers
 * its reason without finalizing it again (later ones try again). An index
 * out of range is GRAPH_ERROR_INVALID_ARGUMENT and builds nothing. */
GRAPH_API GraphStatus graphPlanBuildMany(GraphModule module,
                                         const int32_t *indices, int32_t count);
/* Pins plan `index` for the next GPU executes of the selected graph
 * (select_plan): the first group runs that plan and no other, so a plan
 * that declines makes the execute fail (GRAPH_ERROR_NOT_SUPPORTED) rather
 * than fall back. -1 unpins (walk the list: the first plan that builds).
 * The GPU program is rebuilt at the next execute when the choice changes. */
GRAPH_API GraphStatus graphPlanSelect(GraphModule module, int32_t index);
/* Appends the plan of an explicit engine id and knobs (create_execution_plan,
 * replaying graphPlanEngine's answer): `knobs` holds `numKnobs` (type,
 * value) pairs (NULL when 0). The new plan is the last index (the indices
 * before it do not move); later GPU executes replay it too, so
 * graphPlanSelect can pin it. Only cuDNN engines are added (a negative id
 * is GRAPH_ERROR_INVALID_ARGUMENT: the codegen plans are listed already).
 * An engine cuDNN does not know for this graph, or a group cuDNN rejects,
 * is GRAPH_ERROR_NOT_SUPPORTED (often only at graphPlanBuild). */
GRAPH_API GraphStatus graphPlanAdd(GraphModule module, int64_t engineId,
                                   const int64_t *knobs, int32_t numKnobs);
/* Plan options of the module's next GPU executes (every group): plans whose
 * name contains one of the `numNames` strings of `deselectNames`
 * (deselect_engines; NULL when 0) are skipped ("cudnn" skips every cuDNN
 * plan, "codegen" every codegen plan; indices do not move), so are plans
 * needing more than `workspaceLimit` bytes of workspace
 * (deselect_workspace_greater_than; -1: no limit); autotune != 0 checks
 * every plan that builds (of both engines) against the CPU reference, times
 * the correct ones and runs the fastest (as GRAPH_AUTOTUNE=1 does). Each
 * call replaces all three. Does not
 * need graphPlanCreate; a pinned plan that these options exclude makes the
 * execute fail. (GRAPH_CODEGEN_CUBIN=1 in the environment embeds the codegen
 * kernels as sm_90 cubin from ptxas instead of PTX.) */
GRAPH_API GraphStatus graphSetPlanOptions(GraphModule module,
                                          const char *const *deselectNames,
                                          int32_t numNames,
                                          int64_t workspaceLimit,
                                          int autotune);

/*===------------------------------------------------------------------===*\
|* Graph builder                                                            *|
|*                                                                          *|
|* Builds one graph.graph without writing MLIR text, as the cuDNN frontend  *|
|* and the Python package do: create tensors (handles, ids > 0), set their  *|
|* properties, add ops naming their tensors by ODS port, mark outputs, then *|
|* graphBuilderFinish emits the graph (generic op form) and parses it       *|
|* through graphModuleParse's path: every parse or verifier diagnostic      *|
|* comes back through graphGetLastError (GRAPH_ERROR_INVALID_GRAPH).        *|
|*                                                                          *|
|* Tensors: a tensor no op produces is a graph input (block argument, with  *|
|* graph.uid / graph.name argument attributes); inputs are ordered by id.   *|
|* An op's results are tensors created with graphBuilderTensor too: the     *|
|* caller gives their dtype, and their dims (like the frontend's set_dim)   *|
|* or none (rank 0): graphBuilderOp then fills them in from the op's shape  *|
|* rule, the one its verifier checks (graphTensorGetDims reads them).       *|
|* Where the operands do not fix them, the rule fills in a default: one     *|
|* group for conv_dgrad's DX and conv_wgrad's DW (a filter does not say a   *|
|* grouped conv's group count), one row per routed row for a scattering     *|
|* MoE. Give those dims for a grouped (depthwise) conv.                     *|
|* Tensors marked with graphTensorSetOutput(t, 1) (or                       *|
|* graphTensorSetVirtual(t, 0)) are the graph's outputs (graph.output       *|
|* operands, with graph.uid / graph.name result attributes), ordered by id; *|
|* the others are virtual.                                                  *|
|* Uids may be left unset: graphModulePrepare assigns them.                 *|
|*                                                                          *|
|* Ports are the op's ODS operand and result names (include/GraphDialect/   *|
|* GraphOps.td): matmul A, B -> C; conv_fprop image, weight -> Y;           *|
|* layernorm input, scale, bias, epsilon -> Y, mean, inv_var; sdpa q, k, v  *|
|* [, attn_scale, bias, ...] -> O [, Stats, ...]. The i-th tensor of a      *|
|* variadic port is "<port>_<i>", numbered from 0 without gaps: pointwise   *|
|* takes "inputs_0", "inputs_1", "inputs_2"; batchnorm "peer_stats_0"...    *|
|* Optional ports may be left out (layernorm inference: no mean/inv_var).   *|
|*                                                                          *|
|* Every misuse is GRAPH_ERROR_INVALID_ARGUMENT with the full text: unknown *|
|* op kind (the message lists them), unknown port (lists the op's ports),   *|
|* missing required port, a port given twice, an unknown tensor id, a       *|
|* tensor read by an earlier op as a graph input and then produced ("used  *|
|* before it exists"), a tensor produced twice, a user uid already given to *|
|* another tensor (both tensors are named), an unknown attribute name.      *|
|* An op whose result dims are left out and whose operands break its shape  *|
|* rule is GRAPH_ERROR_INVALID_GRAPH with the rule's diagnostic, e.g.       *|
|* `matmul "mm": K of A is 128 but K of B is 64`.                           *|
\*===------------------------------------------------------------------===*/

typedef struct GraphBuilderImpl *GraphBuilder;

/* A builder of the graph @graphName (NULL or "": "main") whose io,
 * intermediate and compute data types are the graph's io_data_type,
 * intermediate_data_type and compute_data_type; io -1 leaves the graph
 * without an io_data_type (as a graph whose io type is not set). NULL on
 * failure (a bad context or dtype). The context must stay alive until
 * graphBuilderFinish. */
GRAPH_API GraphBuilder graphBuilderCreate(GraphContext context,
                                          const char *graphName, GraphDType io,
                                          GraphDType intermediate,
                                          GraphDType compute);
/* Destroys a builder (modules it finished stay valid). NULL is a no-op. */
GRAPH_API void graphBuilderDestroy(GraphBuilder builder);

/* A tensor of `rank` dims (-1: dynamic) and strides in elements
 * (stridesOrNull NULL: not decided, graphModulePrepare infers them); its
 * handle (> 0), or -1 on failure. */
GRAPH_API int64_t graphBuilderTensor(GraphBuilder builder, GraphDType dtype,
                                     int32_t rank, const int64_t *dims,
                                     const int64_t *stridesOrNull,
                                     const char *nameOrNull);
/* A pass-by-value scalar: a graph.scalar op of dims {1} (graphTensorSetDims
 * changes them); integer dtypes need an integral value. A NaN or infinity
 * is the type's own (its bit pattern; NaN is the quiet NaN), and a type
 * without one (f8E4M3FN has no infinity, f4E2M1FN neither) fails at
 * graphBuilderFinish. graphBuilderFinish emits each scalar right before
 * the first op that reads it (those no op reads first). Its handle, or
 * -1. */
GRAPH_API int64_t graphBuilderScalar(GraphBuilder builder, GraphDType dtype,
                                     double value, const char *nameOrNull);
/* graphBuilderScalar for an integer or i1 dtype, the value given exactly
 * (a double holds integers up to 2^53 only); a float dtype is refused. */
GRAPH_API int64_t graphBuilderScalarInt(GraphBuilder builder, GraphDType dtype,
                                        int64_t value, const char *nameOrNull);

/* Tensor setters; each applies to what graphBuilderFinish emits later.
 * graphTensorSetUid takes any uid >= 0 (0 is a uid, as in the frontend) and
 * fails when another tensor has that uid (the message names both tensors);
 * setting dims of another rank drops the strides;
 * graphTensorSetVirtual(t, v) is graphTensorSetOutput(t, !v). */
GRAPH_API GraphStatus graphTensorSetUid(GraphBuilder builder, int64_t tensor,
                                        int64_t uid);
GRAPH_API GraphStatus graphTensorSetName(GraphBuilder builder, int64_t tensor,
                                         const char *name);
GRAPH_API GraphStatus graphTensorSetDims(GraphBuilder builder, int64_t tensor,
                                         int32_t rank, const int64_t *dims);
GRAPH_API GraphStatus graphTensorSetStrides(GraphBuilder builder,
                                            int64_t tensor, int32_t rank,
                                            const int64_t *strides);
GRAPH_API GraphStatus graphTensorSetDType(GraphBuilder builder, int64_t tensor,
                                          GraphDType dtype);
GRAPH_API GraphStatus graphTensorSetOutput(GraphBuilder builder,
                                           int64_t tensor, int output);
GRAPH_API GraphStatus graphTensorSetVirtual(GraphBuilder builder,
                                            int64_t tensor, int isVirtual);
/* Marks (byValue != 0) a graph input graph.by_value: a one-element input
 * that cuDNN takes by value, its buffer read on the host at each execute
 * (the frontend's is_pass_by_value). graphBuilderFinish refuses it on a
 * tensor an op produces, and the verifier on one of more elements. */
GRAPH_API GraphStatus graphTensorSetByValue(GraphBuilder builder,
                                            int64_t tensor, int byValue);

/* Appends one op of the graph dialect. `kind` is its mnemonic ("matmul",
 * "pointwise", "reduction", "layernorm", "conv_fprop", "sdpa"... every op
 * but graph, output and scalar); modeOrNull the pointwise mode ("add",
 * "relu"...), reduction mode ("add", "max"...), norm phase ("training",
 * "inference") or MoE mode, as the dialect spells the keyword (NULL when
 * the op has none); nameOrNull the node's name. inPorts[i] names the port
 * of inTensors[i], outPorts[i] that of outTensors[i] (see above).
 * attributesOrNull is an MLIR attribute dictionary of the op's other
 * attributes, e.g. "{padding = array<i64: 1, 1>, stride = array<i64: 1, 1>}"
 * or "{use_causal_mask, generate_stats}"; its values are checked when the
 * graph is finished, names now (a name with a '.' is a discardable
 * attribute and passes as is).
 * Each result tensor without dims (rank 0) gets the dims the op's shape
 * rule gives it from the operands' dims and the attributes, as they are
 * now: matmul C is [batch..., M, N], pointwise the operands' broadcast,
 * layernorm mean/inv_var the input's with the normalized dims 1, conv_dgrad
 * DX the one-group image its forward maps to loss... Where the dims are
 * the user's choice (reduction, reshape, rng) or an operand has no dims
 * yet, they stay unset. The op is not added when the rule fails
 * (GRAPH_ERROR_INVALID_GRAPH, its diagnostic in graphGetLastError). */
GRAPH_API GraphStatus graphBuilderOp(
    GraphBuilder builder, const char *kind, const char *modeOrNull,
    const char *nameOrNull, const char *const *inPorts,
    const int64_t *inTensors, int32_t numIn, const char *const *outPorts,
    const int64_t *outTensors, int32_t numOut, const char *attributesOrNull);

/* The dims (strides) of `tensor` as they are now: given, set, or filled in
 * by graphBuilderOp (-1: a dynamic dim; no strides: not decided yet).
 * *rank is the capacity of the array on entry and the count on return (0:
 * none yet); a capacity too small is GRAPH_ERROR_INVALID_ARGUMENT with
 * *rank set to the count needed, so (NULL, *rank 0) queries it. */
GRAPH_API GraphStatus graphTensorGetDims(GraphBuilder builder, int64_t tensor,
                                         int32_t *rank, int64_t *dims);
GRAPH_API GraphStatus graphTensorGetStrides(GraphBuilder builder,
                                            int64_t tensor, int32_t *rank,
                                            int64_t *strides);

/* The graph as MLIR text (generic op form), NUL-terminated; free it with
 * graphFree. NULL on failure. */
GRAPH_API char *graphBuilderPrint(GraphBuilder builder, size_t *size);
/* Emits the graph and parses it in the builder's context: a module holding
 * one graph, selected, as graphModuleParse returns it (diagnostics name the
 * buffer "<builder @name>"). NULL on failure, with graphGetLastStatus
 * GRAPH_ERROR_INVALID_GRAPH for a verifier failure. The builder stays
 * usable. */
GRAPH_API GraphModule graphBuilderFinish(GraphBuilder builder);

#ifdef __cplusplus
}
#endif

#endif /* GRAPHDIALECT_C_GRAPH_H */
