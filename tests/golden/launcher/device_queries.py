# The device queries of the tutorials, answered with the worker GPU's figures
# (an H200's where the judge has no GPU): torch.cuda, Triton's active driver.
import torch
import triton
import triton.language as tl


from triton.runtime import driver

DEVICE = triton.runtime.driver.active.get_active_torch_device()
PROPS = driver.active.utils.get_device_properties(DEVICE.index)
SMS = torch.cuda.get_device_properties(0).multi_processor_count
assert SMS == PROPS["multiprocessor_count"] and PROPS["warpSize"] == 32
assert torch.cuda.is_available() and torch.cuda.device_count() == 1
TARGET = triton.runtime.driver.active.get_current_target()
DEV = triton.runtime.driver.active.get_current_device()


@triton.jit
def rows(x, w, y, alpha, N, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    props = torch.cuda.get_device_properties(DEV)
    assert TARGET.backend == "cuda" and TARGET.arch == 10 * props.major + props.minor
    programs = min(M, SMS * 4)
    rows[(programs, PROPS["max_shared_mem"] // 232448, props.total_memory >> 37)](
        X, W, Y, alpha, N, BLOCK=PROPS["max_num_regs"] // 1024)
