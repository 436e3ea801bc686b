"""sdpa-sass.py - the SASS, TTGIR and PTX of three sdpa builds into $OUT, to count the key loop's
instructions:   python3 scripts/diag/sdpa-sass.py"""
import os, importlib.util
import torch, triton
spec = importlib.util.spec_from_file_location(
    "sdpa_sweep", os.path.join(os.path.dirname(os.path.abspath(__file__)), "sdpa-sweep.py"))
lab = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lab)
B, H, S, D = 8, 16, 1024, 128
q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.float16) for _ in range(3))
o = torch.empty_like(q)
out = os.environ.get("OUT", "/tmp")
for bm, bn, ns_, qreg, tb in ((128, 64, 3, 0, 1), (64, 64, 3, 1, 0), (128, 128, 2, 0, 1)):
    kw = dict(HEAD_D=D, BLOCK_M=bm, BLOCK_N=bn, NS=ns_, QREG=qreg, TEXTBOOK=tb, GROUP=8,
              num_warps=bm // 16, num_stages=2)
    ck = lab.attn_fwd[(triton.cdiv(S, bm) * B * H,)](q, k, v, o, D ** -0.5, 0, S, S, **kw)
    tag = f"bm{bm}_bn{bn}_ns{ns_}_q{qreg}_tb{tb}"
    for key in ("sass", "ttgir", "ptx"):
        open(f"{out}/{tag}.{key}", "w").write(ck.asm[key])
    print(tag, ck.n_regs, ck.n_spills, flush=True)
