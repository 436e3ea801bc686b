"""Oracle for grouped-matmul (P22): C = A @ B in fp64, and the tile trace.

tile_order[pid] is the tile (128 x 128) that program pid computes in Triton's
grouped ordering (the current tutorial's form, with the short last group):
    num_m = cdiv(M, 128), num_n = cdiv(N, 128), in_group = GROUP_M * num_n
    first_m = (pid // in_group) * GROUP_M
    rows = min(num_m - first_m, GROUP_M)
    tile_m = first_m + (pid % in_group) % rows
    tile_n = (pid % in_group) // rows
    tile_order[pid] = tile_m * num_n + tile_n
"""
import torch


def tile_order(m, n, group_m, device="cpu"):
    num_m, num_n = -(-m // 128), -(-n // 128)
    pid = torch.arange(num_m * num_n, dtype=torch.int64, device=device)
    in_group = group_m * num_n
    first_m = (pid // in_group) * group_m
    rows = torch.clamp(num_m - first_m, max=group_m)
    tile_m = first_m + (pid % in_group) % rows
    tile_n = (pid % in_group) // rows
    return (tile_m * num_n + tile_n).to(torch.int32)


def compute(inputs, scalars, sizes):
    a = inputs["A"].to(torch.float64)
    b = inputs["B"].to(torch.float64)
    order = tile_order(int(sizes["M"]), int(sizes["N"]), int(scalars["GROUP_M"]), a.device)
    return {"C": torch.matmul(a, b), "tile_order": order}


def scales(inputs, scalars, sizes):
    a = inputs["A"].to(torch.float64).abs()
    b = inputs["B"].to(torch.float64).abs()
    return {"C": torch.matmul(a, b)}


if __name__ == "__main__":
    # The statement's example: 3 x 5 tiles, GROUP_M = 2.
    got = tile_order(300, 520, 2).tolist()
    want = [0, 5, 1, 6, 2, 7, 3, 8, 4, 9, 10, 11, 12, 13, 14]
    assert got == want, got
    print("ok")
