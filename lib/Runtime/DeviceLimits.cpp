//===- DeviceLimits.cpp - Launch limits read from the CUDA device ---------===//

#include "RuntimeApi.h"

#include "GraphDialect/Runtime/DeviceLimits.h"

using namespace graph::rt;
using namespace graph::rt::detail;

std::string detail::readDeviceLimits(const DriverApi &cu, CUdevice device,
                                     DeviceLimits &out) {
  DeviceLimits limits = out;
  struct Attribute {
    CUdevice_attribute attribute;
    const char *name;
    int64_t *field;
  } attributes[] = {
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "multiprocessor count",
       &limits.multiprocessors},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
       "max threads per multiprocessor", &limits.maxThreadsPerMultiprocessor},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "max threads per block",
       &limits.maxThreadsPerBlock},
      {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR,
       "registers per multiprocessor", &limits.registersPerMultiprocessor},
      {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, "registers per block",
       &limits.registersPerBlock},
  };
  for (const Attribute &a : attributes) {
    int value = 0;
    if (CUresult status = cu.cuDeviceGetAttribute(&value, a.attribute, device);
        status != CUDA_SUCCESS)
      return std::string("cuDeviceGetAttribute(") + a.name +
             ") failed: " + cuStatusText(cu, status);
    if (value <= 0)
      return std::string("the device reports ") + a.name + " " +
             std::to_string(value);
    *a.field = value;
  }
  out = limits;
  return "";
}
