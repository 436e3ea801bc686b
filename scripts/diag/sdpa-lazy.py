"""sdpa-lazy.py - issue 11 lab: the accumulator rescaled only when some row's maximum rose by
more than TAU (log2 units), under a block-uniform `if` (FlashAttention-4's trick), against the same
kernel with TAU = 0.   python3 scripts/diag/sdpa-lazy.py"""
import importlib.util
import os
import torch, triton, triton.language as tl
import torch.nn.functional as F
spec = importlib.util.spec_from_file_location(
    "sdpa_sweep", os.path.join(os.path.dirname(os.path.abspath(__file__)), "sdpa-sweep.py"))
lab = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lab)


@triton.jit
def attn_lazy(Q, K, V, O, scale, Sq, Skv,
              HEAD_D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
              NS: tl.constexpr, TAU: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    n_m = tl.cdiv(Sq, BLOCK_M)
    n_bh = tl.num_programs(0) // n_m
    group = pid // (GROUP * n_m)
    first_bh = group * GROUP
    gsize = tl.minimum(n_bh - first_bh, GROUP)
    r = pid - group * (GROUP * n_m)
    start_m = (n_m - 1 - r // gsize) * BLOCK_M
    bh = (first_bh + r % gsize).to(tl.int64)
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_D)
    k_base = K + bh * Skv * HEAD_D
    v_base = V + bh * Skv * HEAD_D
    q = tl.load(Q + bh * Sq * HEAD_D + offs_m[:, None] * HEAD_D + offs_d[None, :],
                mask=offs_m[:, None] < Sq, other=0.0)
    qk_scale = scale * 1.4426950408889634
    m_i = tl.full((BLOCK_M,), -1.0e30, tl.float32)  # finite: m_new - m_i stays a number
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_D), tl.float32)
    full_end = (Skv // BLOCK_N) * BLOCK_N
    for start_n in tl.range(0, full_end, BLOCK_N, num_stages=NS):
        rows = start_n + offs_n
        k = tl.load(k_base + rows[:, None] * HEAD_D + offs_d[None, :])
        qk = tl.dot(q, tl.trans(k))
        m_new = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        if tl.max(m_new - m_i, 0) > TAU:  # block-uniform: move every row's reference
            alpha = tl.exp2(m_i - m_new)
            acc = acc * alpha[:, None]
            l_i = l_i * alpha
            m_i = m_new
        p = tl.exp2(qk * qk_scale - m_i[:, None])  # at most 2^TAU
        l_i = l_i + tl.sum(p, 1)
        v = tl.load(v_base + rows[:, None] * HEAD_D + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc)
    o = acc / l_i[:, None]
    tl.store(O + bh * Sq * HEAD_D + offs_m[:, None] * HEAD_D + offs_d[None, :],
             o.to(tl.float16), mask=offs_m[:, None] < Sq)


def main():
    torch.manual_seed(0)
    B, H, S, D = 8, 16, 1024, 128
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.float16) for _ in range(3))
    # a second input whose row maxima keep rising along the keys: the rescale happens often
    ramp = torch.linspace(0, 6, S, device="cuda", dtype=torch.float16)[None, None, :, None]
    k2 = (k * 0.5 + ramp).contiguous()
    scale = D ** -0.5
    pt0 = lab.timeit(lambda: F.scaled_dot_product_attention(q, k, v, scale=scale))
    print(f"torch {pt0:.4f} ms", flush=True)
    o = torch.empty_like(q)
    rows = []
    for bm, bn, ns in ((256, 64, 3), (64, 64, 3), (128, 128, 2)):
        for tau in (8.0, 0.0):
            grid = (triton.cdiv(S, bm) * B * H,)
            kw = dict(HEAD_D=D, BLOCK_M=bm, BLOCK_N=bn, NS=ns, TAU=tau, GROUP=8,
                      num_warps=bm // 16, num_stages=2)
            tag = f"BM{bm} BN{bn} NS{ns} TAU{tau}"
            try:
                errs = []
                for kk in (k, k2):
                    ref = F.scaled_dot_product_attention(q, kk, v, scale=scale)
                    o.zero_()
                    ck = attn_lazy[grid](q, kk, v, o, scale, S, S, **kw)
                    torch.cuda.synchronize()
                    errs.append((o.float() - ref.float()).abs().max().item())
                t = lab.timeit(lambda: attn_lazy[grid](q, k, v, o, scale, S, S, **kw))
                t2 = lab.timeit(lambda: attn_lazy[grid](q, k2, v, o, scale, S, S, **kw))
                print(f"  {tag}: {t:.4f} ms ({t/pt0:.3f}x), ramp {t2:.4f}, err {errs[0]:.1e} / {errs[1]:.1e} "
                      f"regs {ck.n_regs} spills {ck.n_spills}", flush=True)
                rows.append((t, tag))
            except Exception as e:
                print(f"  {tag}: FAILED {type(e).__name__}: {str(e)[:300]}", flush=True)
    pt1 = lab.timeit(lambda: F.scaled_dot_product_attention(q, k, v, scale=scale))
    print(f"torch again {pt1:.4f} ms")
    for t, tag in sorted(rows)[:5]:
        print(f"best {tag}: {t:.4f} ({t/pt0:.3f}x)")


if __name__ == "__main__":
    main()
