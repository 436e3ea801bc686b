# WRONG (Memory Violation): solution.py appending one slot too far, at
# L_b + 1 + t. On the first test (S = T = 1, L = 0) the only row goes past
# the end of both caches, into their guard bands.
#
# @tune BLOCK=(256, 1024, 4096)
# @launch kv_append grid=(cdiv(T * D, BLOCK), B * H) num_warps=4 args=(k_cache, v_cache, k_new, v_new, cache_seqlens, H, S, D, T * D, BLOCK=BLOCK)
import triton
import triton.language as tl


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
