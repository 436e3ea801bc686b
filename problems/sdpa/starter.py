# Scaled dot-product attention, for every batch b and head h:
#
#   S[i][j] = scale * sum_d Q[i][d] K[j][d]      (j > i masked out when causal != 0)
#   P = softmax of each row of S,   O[i][d] = sum_j P[i][j] V[j][d]
#
# Q and O are [B][H][Sq][D], K and V [B][H][Skv][D], fp16 and row-major;
# compute in fp32 and round O once to fp16. D (16, 32, 64 or 128) is passed
# as the constexpr HEAD_D; causal is an i32 (0 or 1). solve(...) below, which
# the judge calls for every test and benchmark shape with the problem's
# tensors, launches the unfused pipeline with the scores in a scratch buffer:
# one kernel computes S, one turns each row into probabilities, one
# multiplies by V. Fill in the three kernels (or replace the plan with a
# fused kernel).
import torch
import triton
import triton.language as tl

BLOCK_N = 64
BLOCK = 1024


@triton.jit
def scores(Q, K, S, scale, causal, Sq, Skv, HEAD_D: tl.constexpr, BLOCK_N: tl.constexpr):
    j = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)  # keys
    i = tl.program_id(1)  # query
    bh = tl.program_id(2).to(tl.int64)  # b * H + h
    d = tl.arange(0, HEAD_D)
    # TODO: S[(bh * Sq + i) * Skv + j] = scale * (row i of Q) . (row j of K)
    # for j < Skv, or -inf when causal and j > i.


@triton.jit
def softmax_rows(S, Sq, Skv, BLOCK: tl.constexpr):
    row = S + (tl.program_id(1).to(tl.int64) * Sq + tl.program_id(0)) * Skv
    # TODO: replace the Skv entries of `row` by their softmax, BLOCK entries at
    # a time (masked loads with the right neutral values: the maximum first,
    # then the sum of exp(s - max), then the normalised values).


@triton.jit
def pv(S, V, O, Sq, Skv, HEAD_D: tl.constexpr, BLOCK_N: tl.constexpr):
    i = tl.program_id(0)
    bh = tl.program_id(1).to(tl.int64)
    d = tl.arange(0, HEAD_D)
    # TODO: O[(bh * Sq + i) * HEAD_D + d] = sum over j of P[i][j] * V[j][d],
    # BLOCK_N keys at a time, rounded to fp16 at the store.


def solve(Q, K, V, O, scale, causal, B, H, Sq, Skv, D):
    # the scores, B*H*Sq*Skv fp32 values (the judge zeroes a buffer from torch.empty
    # or torch.zeros before every run, and counts it against the problem's scratch limit)
    S = torch.empty((B, H, Sq, Skv), dtype=torch.float32, device=Q.device)
    scores[(triton.cdiv(Skv, BLOCK_N), Sq, B * H)](Q, K, S, scale, causal, Sq, Skv,
                                                   HEAD_D=D, BLOCK_N=BLOCK_N, num_warps=4)
    softmax_rows[(Sq, B * H)](S, Sq, Skv, BLOCK=BLOCK, num_warps=4)
    pv[(Sq, B * H)](S, V, O, Sq, Skv, HEAD_D=D, BLOCK_N=BLOCK_N, num_warps=4)
