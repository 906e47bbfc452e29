"""Stand-in CUDA tensors for tests and CPU benches of the GPU host path on a
machine without a GPU or torch: enough of a torch CUDA tensor for the
package's buffer code (address, shape, strides, device), no memory behind
the address. Shared by test_execute_fast_path.py and
bench/host_overhead_cpu.py."""

import types


class CudaTensor:
    """A row-major float32 CUDA tensor of `shape` at `address` on GPU
    `device` (the package recognizes it as torch's by its module)."""

    def __init__(self, shape, address, device=0):
        self.shape = tuple(shape)
        self.address = address
        self.dtype = "torch.float32"
        self.device = types.SimpleNamespace(type="cuda", index=device)
        strides, acc = [], 1
        for d in reversed(self.shape):
            strides.append(acc)
            acc *= d
        self.strides_ = tuple(reversed(strides))
        self.numel_ = acc

    def data_ptr(self):
        return self.address

    def stride(self):
        return self.strides_

    def element_size(self):
        return 4

    def numel(self):
        return self.numel_

    def storage_offset(self):
        return 0

    def untyped_storage(self):
        return types.SimpleNamespace(nbytes=lambda: self.numel_ * 4)


CudaTensor.__module__ = "torch"
