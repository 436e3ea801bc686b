# Vector Addition in Triton: C[i] = A[i] + B[i], at memory speed.
#
# One program per BLOCK = 1024 elements. With num_warps=4 Triton spreads them
# over 128 threads, 4 consecutive floats per access, so each thread issues two
# 16-byte loads per input and two 16-byte stores (LDG.E.128 / STG.E.128). Two
# facts allow that: the buffers are 256-byte aligned (the judge tells Triton
# its pointers are 16-byte aligned), and when N is a multiple of 16 (both
# benchmark shapes) N is marked divisible by 16, as Triton's JIT does, so the
# mask `offs < N` is known to be the same for each group of 4 lanes. Other N
# get a build with 4-byte accesses; only the tests see those.
#
# At about 32 registers a thread, 16 programs fit on an SM, each with 8 KB of
# loads in flight: more than HBM needs to stream at full speed.
#
# The offsets are int64: pid * BLOCK as an i32 product would wrap once N
# passes 2^31 (N itself then arrives as i64).
#
# The judge calls solve(A, B, C, N) for every test and benchmark shape, with
# the problem's tensors, and runs what it launches (docs/submission-format.md).
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def vector_add(A, B, C, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    a = tl.load(A + offs, mask=mask)
    b = tl.load(B + offs, mask=mask)
    tl.store(C + offs, a + b, mask=mask)


def solve(A, B, C, N):
    vector_add[(triton.cdiv(N, BLOCK),)](A, B, C, N, BLOCK=BLOCK, num_warps=4)
