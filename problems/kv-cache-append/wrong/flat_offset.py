# WRONG (Wrong Answer): solution.py adding L_b as an element offset instead
# of a row offset (L instead of L * D): the rows land at the wrong slots,
# overlapping the tokens already in the cache, as soon as some L_b > 0.
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
    dst = (bh * S) * D + L + offs
    k = tl.load(k_new + src, mask=mask)
    v = tl.load(v_new + src, mask=mask)
    tl.store(k_cache + dst, k, mask=mask)
    tl.store(v_cache + dst, v, mask=mask)
