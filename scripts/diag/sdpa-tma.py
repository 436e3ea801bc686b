"""sdpa-tma.py - issue 11 lab: K and V through device-side tensor descriptors (TMA, no pointer
registers) against pointer loads, BM 64-256 x BN 64-128.   python3 scripts/diag/sdpa-tma.py"""
import importlib.util
import os
import torch, triton, triton.language as tl
import torch.nn.functional as F
spec = importlib.util.spec_from_file_location(
    "sdpa_sweep", os.path.join(os.path.dirname(os.path.abspath(__file__)), "sdpa-sweep.py"))
lab = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lab)

triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))


@triton.jit
def attn_tma(Q, K, V, O, scale, Sq, Skv,
             HEAD_D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
             NS: tl.constexpr, QREG: tl.constexpr, GROUP: tl.constexpr):
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
    offs_d = tl.arange(0, HEAD_D)
    k_desc = tl.make_tensor_descriptor(K + bh * Skv * HEAD_D, shape=[Skv, HEAD_D], strides=[HEAD_D, 1],
                                       block_shape=[BLOCK_N, HEAD_D])
    v_desc = tl.make_tensor_descriptor(V + bh * Skv * HEAD_D, shape=[Skv, HEAD_D], strides=[HEAD_D, 1],
                                       block_shape=[BLOCK_N, HEAD_D])
    q = tl.load(Q + bh * Sq * HEAD_D + offs_m[:, None] * HEAD_D + offs_d[None, :],
                mask=offs_m[:, None] < Sq, other=0.0)
    if QREG:
        q = q + 0.0
    qk_scale = scale * 1.4426950408889634
    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_D), tl.float32)
    full_end = (Skv // BLOCK_N) * BLOCK_N
    for start_n in tl.range(0, full_end, BLOCK_N, num_stages=NS):
        k = k_desc.load([start_n, 0])
        qk = tl.dot(q, tl.trans(k))
        m_new = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        p = tl.exp2(qk * qk_scale - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = v_desc.load([start_n, 0])
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_new
    o = acc / l_i[:, None]
    tl.store(O + bh * Sq * HEAD_D + offs_m[:, None] * HEAD_D + offs_d[None, :],
             o.to(tl.float16), mask=offs_m[:, None] < Sq)


def main():
    torch.manual_seed(0)
    B, H, S, D = 8, 16, 1024, 128
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.float16) for _ in range(3))
    scale = D ** -0.5
    ref = F.scaled_dot_product_attention(q, k, v, scale=scale)
    pt0 = lab.timeit(lambda: F.scaled_dot_product_attention(q, k, v, scale=scale))
    print(f"torch {pt0:.4f} ms", flush=True)
    o = torch.empty_like(q)
    rows = []
    for bm, bn in ((128, 128), (128, 64), (64, 128), (64, 64), (256, 64)):
        for ns in (2, 3, 4):
            for qreg in (0, 1):
                for tma in (1, 0):
                    smem = (0 if qreg else bm * D * 2) + ns * bn * D * 4
                    if smem > 224 * 1024:
                        continue
                    grid = (triton.cdiv(S, bm) * B * H,)
                    if tma:
                        fn, kw = attn_tma, dict(HEAD_D=D, BLOCK_M=bm, BLOCK_N=bn, NS=ns, QREG=qreg, GROUP=8)
                        args = (q, k, v, o, scale, S, S)
                    else:
                        fn, kw = lab.attn_fwd, dict(HEAD_D=D, BLOCK_M=bm, BLOCK_N=bn, NS=ns, QREG=qreg,
                                                    TEXTBOOK=1, GROUP=8)
                        args = (q, k, v, o, scale, 0, S, S)
                    kw.update(num_warps=bm // 16, num_stages=2)
                    tag = f"BM{bm} BN{bn} NS{ns} QREG{qreg} {'TMA' if tma else 'ptr'}"
                    try:
                        o.zero_()
                        ck = fn[grid](*args, **kw)
                        torch.cuda.synchronize()
                        err = (o.float() - ref.float()).abs().max().item()
                        t = lab.timeit(lambda: fn[grid](*args, **kw))
                        print(f"  {tag}: {t:.4f} ms ({t/pt0:.3f}x) err {err:.2e} regs {ck.n_regs} "
                              f"spills {ck.n_spills} shared {ck.metadata.shared}", flush=True)
                        rows.append((t, tag, err))
                    except Exception as e:
                        print(f"  {tag}: FAILED {type(e).__name__}: {str(e)[:300]}", flush=True)
    pt1 = lab.timeit(lambda: F.scaled_dot_product_attention(q, k, v, scale=scale))
    print(f"torch again {pt1:.4f} ms")
    for t, tag, err in sorted(rows)[:8]:
        print(f"best {tag}: {t:.4f} ({t/pt0:.3f}x) err {err:.1e}")


if __name__ == "__main__":
    main()
