# WRONG (Memory Violation): solution.py appending one slot too far, at
# L_b + 1 + t. On the first test (S = T = 1, L = 0) the only row goes past
# the end of both caches, into their guard bands.
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
    dst = (bh * S + L + 1) * D + offs
    k = tl.load(k_new + src, mask=mask)
    v = tl.load(v_new + src, mask=mask)
    tl.store(k_cache + dst, k, mask=mask)
    tl.store(v_cache + dst, v, mask=mask)


def solve(k_cache, v_cache, k_new, v_new, cache_seqlens, B, H, S, T, D):
    # axis 0: chunks of BLOCK of one head's T*D new elements; axis 1: the B*H heads
    grid = lambda meta: (triton.cdiv(T * D, meta["BLOCK"]), B * H)
    kv_append[grid](k_cache, v_cache, k_new, v_new, cache_seqlens, H, S, D, T * D)
