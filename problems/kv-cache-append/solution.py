# KV Cache Append in Triton: copy this step's keys and values into the caches,
# after the L_b = cache_seqlens[b] tokens each sequence already holds.
#
# For one (sequence b, head h), the T new rows are T*D contiguous elements in
# k_new (from ((b*H + h)*T)*D) and must land as T*D contiguous elements in
# k_cache (from ((b*H + h)*S + L_b)*D). So the plan is a grid of
# (chunks of BLOCK elements) x (B*H heads): tl.program_id(1) gives (b, h) for
# free, the program reads L_b once, and the copy itself is one masked load
# and one masked store per tensor, with no per-element index arithmetic.
#
# Vector width: when D is a multiple of 16 on a benchmark shape (all of
# them) the judge marks it divisible by 16, as Triton's JIT does; then both
# row starts are multiples of 16 elements whatever L_b is, T*D is a multiple
# of 16 too, and Triton emits 16-byte loads and stores. With D = 8 the same
# code copies correctly with narrower accesses. The copy moves bf16 bits
# unchanged: a load and a store of the same dtype do no arithmetic, so NaN
# stays NaN. Offsets are int64 (B*H*S*D can pass 2^31 in general).
#
# BLOCK is autotuned: large chunks for the prefill shape (T*D = 2^19 per
# head), small ones for decode (T*D = 128 per head, 2048 heads:
# launch-bound). The judge compiles, checks and times every config and keeps
# the fastest per benchmark shape.
#
# The judge calls solve(k_cache, v_cache, k_new, v_new, cache_seqlens, B, H,
# S, T, D) for every test and benchmark shape, with the problem's tensors,
# and runs what it launches (docs/submission-format.md).
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 256}, num_warps=4),
                          triton.Config({"BLOCK": 1024}, num_warps=4),
                          triton.Config({"BLOCK": 4096}, num_warps=4)],
                 key=["TD"])
@triton.jit
def kv_append(k_cache, v_cache, k_new, v_new, cache_seqlens, H, S, D, TD, BLOCK: tl.constexpr):
    bh = tl.program_id(1).to(tl.int64)  # b * H + h
    L = tl.load(cache_seqlens + bh // H).to(tl.int64)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)  # within this head's T*D elements
    mask = offs < TD
    src = bh * TD + offs
    dst = (bh * S + L) * D + offs
    k = tl.load(k_new + src, mask=mask)
    v = tl.load(v_new + src, mask=mask)
    tl.store(k_cache + dst, k, mask=mask)
    tl.store(v_cache + dst, v, mask=mask)


def solve(k_cache, v_cache, k_new, v_new, cache_seqlens, B, H, S, T, D):
    # axis 0: chunks of BLOCK of one head's T*D new elements; axis 1: the B*H heads
    grid = lambda meta: (triton.cdiv(T * D, meta["BLOCK"]), B * H)
    kv_append[grid](k_cache, v_cache, k_new, v_new, cache_seqlens, H, S, D, T * D)
