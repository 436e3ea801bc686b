# Vectorized Vector Add: C[i] = A[i] + B[i] for 0 <= i < N, all fp16.
# N is any value >= 1; the buffers start on 256-byte boundaries.
#
# solve, at the end, gives each program BLOCK consecutive elements. Triton turns
# loads and stores of consecutive, aligned elements into 16-byte accesses
# (8 halves at a time) only when it can prove that nothing breaks a group of 8:
# think about what the mask `offs < N` means when N is not a multiple of 8,
# and which programs need a mask at all.
import triton
import triton.language as tl

BLOCK = 2048


@triton.jit
def vadd(A, B, C, N, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offs = start + tl.arange(0, BLOCK)
    # TODO: load A + offs and B + offs, add them, store to C + offs. Elements
    # at offs >= N do not exist: they must be neither read nor written.


def solve(A, B, C, N):
    vadd[(triton.cdiv(N, BLOCK),)](A, B, C, N, BLOCK=BLOCK, num_warps=4)
