"""sdpa-sweep.py - issue 11: the kernel of problems/sdpa/solution.py (both loops, QREG, and
maxnreg) swept through Triton's JIT on the GPU machine against F.scaled_dot_product_attention,
L2 flushed, median of 20.
    python3 scripts/diag/sdpa-sweep.py [all]     (all: the d64 shapes too; $OUT/lab.json)"""
import functools
import importlib.util
import json
import os
import sys
import torch
import triton
import torch.nn.functional as F

print = functools.partial(print, flush=True)  # noqa: A001 (lines survive a timeout)

# the kernel of problems/sdpa/solution.py itself (its autotune configs are a subset of the sweep)
_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "sdpa_solution", os.path.join(_here, "..", "..", "problems", "sdpa", "solution.py"))
_solution = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_solution)


def jit_kernel(kernel):
    """The @triton.jit (or @gluon.jit) function under @triton.autotune and @triton.heuristics:
    the lab launches it with its constexprs and options given, which an autotuned kernel refuses."""
    while not isinstance(kernel, triton.runtime.jit.JITFunction):
        kernel = kernel.fn
    return kernel


attn_fwd = jit_kernel(_solution.attn_fwd)

_spec = importlib.util.spec_from_file_location("triton_speed", os.path.join(_here, "..", "triton-speed.py"))
_speed = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_speed)


def timeit(fn, reps=20):
    """The method of scripts/triton-speed.py (and of the judge): L2 flushed, median of reps."""
    return _speed.torch_time(fn, torch, reps)


def main():
    torch.manual_seed(0)
    shapes = [(8, 16, 1024, 128, 0)]
    if len(sys.argv) > 1 and sys.argv[1] == "all":
        shapes += [(4, 16, 2048, 64, 0), (4, 16, 2048, 64, 1)]
    # (BM, BN, NS, QREG, TEXTBOOK, maxnreg)
    variants = []
    regs_for = {128: (None, 128), 64: (None, 168), 256: (None,)}
    for bm, bn in ((128, 64), (128, 32), (64, 64), (64, 32), (256, 64), (128, 128)):
        for tb in (1, 0):
            for qreg in (0, 1):
                for ns in ((2, 3, 4) if bn == 32 else (2, 3)):
                    for mr in (regs_for[bm] if bn != 128 else (None,)):
                        variants.append((bm, bn, ns, qreg, tb, mr))
    results = []
    for (B, H, S, D, causal) in shapes:
        q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.float16) for _ in range(3))
        scale = D ** -0.5
        ref = F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal), scale=scale)
        pt0 = timeit(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal), scale=scale))
        print(f"shape {B}x{H}x{S} d{D} causal={causal}: torch {pt0:.4f} ms")
        o = torch.empty_like(q)
        for (bm, bn, ns, qreg, tb, mr) in variants:
            smem = (0 if qreg else bm * D * 2) + ns * bn * D * 4
            if smem > 200 * 1024:
                continue
            kw = dict(HEAD_D=D, BLOCK_M=bm, BLOCK_N=bn, NS=ns, QREG=qreg, TEXTBOOK=tb, GROUP=8,
                      num_warps=bm // 16, num_stages=2)
            if mr:
                kw["maxnreg"] = mr
            grid = (triton.cdiv(S, bm) * B * H,)
            tag = f"BM{bm} BN{bn} NS{ns} QREG{qreg} TB{tb} maxnreg={mr}"
            try:
                ck = attn_fwd[grid](q, k, v, o, scale, causal, S, S, **kw)
                torch.cuda.synchronize()
                err = (o.float() - ref.float()).abs().max().item()
                t = timeit(lambda: attn_fwd[grid](q, k, v, o, scale, causal, S, S, **kw))
                regs, spills, sh = ck.n_regs, ck.n_spills, ck.metadata.shared
                print(f"  {tag}: {t:.4f} ms ({t/pt0:.3f}x) err {err:.2e} regs {regs} spills {spills} shared {sh}")
                results.append(dict(shape=[B, H, S, D, causal], tag=tag, ms=t, ratio=t / pt0, err=err,
                                    regs=regs, spills=spills, shared=sh))
            except Exception as e:
                print(f"  {tag}: FAILED {type(e).__name__}: {str(e)[:200]}")
        pt1 = timeit(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal), scale=scale))
        print(f"  torch again {pt1:.4f} ms")
        best = sorted([r for r in results if r["shape"] == [B, H, S, D, causal] and r["err"] < 2e-2],
                      key=lambda r: r["ms"])[:8]
        print("  best:")
        for r in best:
            print(f"    {r['tag']}: {r['ms']:.4f} ({r['ms']/pt0:.3f}x)  regs {r['regs']} spills {r['spills']}")
    json.dump(results, open(os.path.join(os.environ.get("OUT", "/tmp"), "lab.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
