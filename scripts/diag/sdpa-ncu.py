"""sdpa-ncu.py - one launch each of three sdpa builds and PyTorch's kernel, for Nsight Compute:
    ncu --set detailed -k regex:"attn|fmha|flash|sdpa" -o prof python3 scripts/diag/sdpa-ncu.py"""
import torch, triton
import torch.nn.functional as F
import importlib.util
import os
spec = importlib.util.spec_from_file_location(
    "sdpa_sweep", os.path.join(os.path.dirname(os.path.abspath(__file__)), "sdpa-sweep.py"))
lab = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lab)
attn_fwd = lab.attn_fwd
B, H, S, D = 8, 16, 1024, 128
q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.float16) for _ in range(3))
o = torch.empty_like(q)
scale = D ** -0.5
for bm, bn, ns_, qreg, tb in ((256, 64, 3, 0, 1), (64, 64, 3, 1, 0), (128, 64, 3, 0, 1)):
    kw = dict(HEAD_D=D, BLOCK_M=bm, BLOCK_N=bn, NS=ns_, QREG=qreg, TEXTBOOK=tb, GROUP=8,
              num_warps=bm // 16, num_stages=2)
    attn_fwd[(triton.cdiv(S, bm) * B * H,)](q, k, v, o, scale, 0, S, S, **kw)
torch.cuda.synchronize()
F.scaled_dot_product_attention(q, k, v, scale=scale)
torch.cuda.synchronize()
print("done", flush=True)
