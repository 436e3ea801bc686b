"""PyTorch's fp16 matrix product (cuBLAS chooses its own tile order), plus the problem's trace
tile_order computed with a few small tensor operations (16K elements: microseconds beside the
product). GROUP_M changes nothing PyTorch does: both shapes of a pair time the same product."""
import torch

torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False


def tile_order(M, N, GROUP_M, device):
    num_m, num_n = -(-M // 128), -(-N // 128)
    pid = torch.arange(num_m * num_n, dtype=torch.int64, device=device)
    in_group = GROUP_M * num_n
    first_m = (pid // in_group) * GROUP_M
    rows = torch.clamp(num_m - first_m, max=GROUP_M)
    tile_m = first_m + (pid % in_group) % rows
    tile_n = (pid % in_group) // rows
    return (tile_m * num_n + tile_n).to(torch.int32)


def baseline(A, B, M, N, GROUP_M, **_):
    return {"C": torch.matmul(A, B), "tile_order": tile_order(M, N, int(GROUP_M), A.device)}
