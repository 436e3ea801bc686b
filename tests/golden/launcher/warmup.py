# The fused-softmax tutorial's pattern: compile first (warmup), read the registers
# (from the cubin) and the shared memory, size the grid by occupancy, launch the
# compiled kernel with every parameter, constexprs included.
import torch
import triton
import triton.language as tl


from triton.runtime import driver

PROPS = driver.active.utils.get_device_properties(0)


@triton.jit
def rows(x, w, y, alpha, M, N, BLOCK: tl.constexpr, STAGES: tl.constexpr):
    tl.store(y, tl.sum(tl.load(x + tl.arange(0, BLOCK))))


def solve(X, W, Y, alpha, M, N):
    BLOCK = triton.next_power_of_2(N)
    k = rows.warmup(X, W, Y, alpha, M, N, BLOCK=BLOCK, STAGES=2, num_warps=8, grid=(1,))
    k._init_handles()
    occupancy = PROPS["max_num_regs"] // (k.n_regs * PROPS["warpSize"] * 8)
    occupancy = min(occupancy, PROPS["max_shared_mem"] // k.metadata.shared)
    programs = min(PROPS["multiprocessor_count"] * occupancy, M)
    assert k.n_spills == 0 and k.metadata.num_warps == 8 and k.asm["cubin"][:4] == b"\x7fELF"
    k[(programs, 1, 1)](X, W, Y, alpha, M, N, BLOCK, 2)
    k[(1,)](X, W, Y, alpha, M, N)  # the non-constexpr arguments only (older Triton)
