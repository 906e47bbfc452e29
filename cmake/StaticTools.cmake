# Fully static builds of the tools for the GPU machine, which has no LLVM.
#
# Debian's MLIR libraries link LLVM through libLLVM.so. Instead of rebuilding
# everything, the static tools reuse this build's object files and link them
# against one linker script that GROUPs every static libMLIR*/libLLVM* archive
# (the linker takes only the members it needs) plus -lz -lzstd. The result
# depends only on libc, libm, libz and libzstd (libstdc++ and libgcc are
# linked in too, so a newer distribution's runtime never matters).

file(GLOB GRAPH_STATIC_ARCHIVES
  "${LLVM_LIBRARY_DIR}/libMLIR*.a"
  "${LLVM_LIBRARY_DIR}/libLLVM*.a")
string(JOIN " " GRAPH_STATIC_GROUP ${GRAPH_STATIC_ARCHIVES})
set(GRAPH_STATIC_SCRIPT "${CMAKE_BINARY_DIR}/static-mlir-llvm.ld")
file(WRITE "${GRAPH_STATIC_SCRIPT}" "GROUP ( ${GRAPH_STATIC_GROUP} -lz -lzstd )\n")

# graph_add_static_tool(NAME SOURCE OBJECT_LIBS... LIBS ...)
function(graph_add_static_tool name source)
  cmake_parse_arguments(ARG "" "" "OBJECTS;LIBS" ${ARGN})
  set(objects)
  foreach(lib ${ARG_OBJECTS})
    list(APPEND objects $<TARGET_OBJECTS:obj.${lib}>)
  endforeach()
  add_executable(${name} ${source} ${objects})
  llvm_update_compile_flags(${name})
  add_dependencies(${name} GraphOpsIncGen GraphPassesIncGen)
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} "${GRAPH_STATIC_SCRIPT}"
                        Threads::Threads ${CMAKE_DL_LIBS})
  target_link_options(${name} PRIVATE -static-libstdc++ -static-libgcc)
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/static/bin")
endfunction()

set(GRAPH_STATIC_OBJECTS MLIRGraphDialect MLIRGraphEngines MLIRGraphTransforms
    MLIRGraphReference MLIRExecDialect GraphEngine)
set(GRAPH_STATIC_LIBS GraphReferenceCore)
if(TARGET MLIRGraphToCudnn)
  list(APPEND GRAPH_STATIC_OBJECTS MLIRGraphCodegen MLIRGraphToCudnn
       MLIRExecToRuntime)
  list(APPEND GRAPH_STATIC_LIBS GraphRuntime)
endif()
# graph-run sits on the C++ API (GraphDialect/Runner.h): the objects of
# GraphCAPI and of what it lowers with, as libGraphCAPI.so below.
set(GRAPH_CAPI_STATIC_OBJECTS GraphCAPI ${GRAPH_STATIC_OBJECTS})
if(TARGET MLIRGraphToExecutable)
  # graphModuleLowerToExecutable (its codegen_v2 groups' graph ops come from
  # buildGroupOps, in MLIRGraphToCodegen).
  list(APPEND GRAPH_CAPI_STATIC_OBJECTS MLIRGraphToExecutable
       MLIRGraphToCodegen)
endif()
graph_add_static_tool(graph-run-static
  "${PROJECT_SOURCE_DIR}/tools/graph-run/graph-run.cpp"
  OBJECTS ${GRAPH_CAPI_STATIC_OBJECTS}
  LIBS ${GRAPH_STATIC_LIBS})

# libGraphCAPI.so for the GPU machine: the C API (and so the Python package)
# with MLIR, LLVM and libstdc++ linked in and hidden.
if(TARGET obj.GraphCAPI)
  set(objects)
  foreach(lib ${GRAPH_CAPI_STATIC_OBJECTS})
    list(APPEND objects $<TARGET_OBJECTS:obj.${lib}>)
  endforeach()
  add_library(GraphCAPIDevice SHARED ${objects})
  target_link_libraries(GraphCAPIDevice PRIVATE ${GRAPH_STATIC_LIBS}
                        "${GRAPH_STATIC_SCRIPT}" Threads::Threads
                        ${CMAKE_DL_LIBS})
  target_link_options(GraphCAPIDevice PRIVATE -static-libstdc++ -static-libgcc
                      -Wl,--exclude-libs,ALL -Wl,--no-undefined)
  set_target_properties(GraphCAPIDevice PROPERTIES
    OUTPUT_NAME GraphCAPI
    LIBRARY_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/static/lib")
endif()
