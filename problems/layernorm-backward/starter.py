# LayerNorm backward. Given dY, X (M x N, fp16, row-major), gamma (N, fp16)
# and the forward pass's mean and rstd (M, fp32), compute in fp32:
#   xhat = (X[i][j] - mean[i]) * rstd[i],  g = dY[i][j] * gamma[j]
#   c1 = (1/N) sum_j g * xhat,  c2 = (1/N) sum_j g               (per row)
#   dX[i][j] = rstd[i] * (g - xhat * c1 - c2)                    (fp16, round once)
#   dgamma[j] = sum_i dY[i][j] * xhat,  dbeta[j] = sum_i dY[i][j] (fp32, sums over rows)
#
# solve, at the end, launches two kernels: the first gives each row a program
# for dX (a whole row in one block of BLOCK_N = next_pow2(N) columns, at least
# 256); the second gives each program BLOCK columns for dgamma and dbeta.
import triton
import triton.language as tl


@triton.jit
def lnb_dx(dY, X, gamma, mean, rstd, dX, M, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    offs = row.to(tl.int64) * N + tl.arange(0, BLOCK_N)
    cols = tl.arange(0, BLOCK_N)

    # TODO: load the row of X and dY and gamma (masked to cols < N, other=0.0,
    # .to(tl.float32)), mean[row] and rstd[row]; the row sums c1 and c2 (tl.sum);
    # then store dX (masked, .to(tl.float16)).


@triton.jit
def lnb_dgamma(dY, X, mean, rstd, dgamma, dbeta, M, N, BLOCK: tl.constexpr):
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)

    # TODO: for every row i (for i in range(0, M)), add dY[i, cols] * xhat and
    # dY[i, cols] into two fp32 blocks (masked to cols < N); store them in
    # dgamma and dbeta.


def solve(dY, X, gamma, mean, rstd, dX, dgamma, dbeta, M, N):
    block_n = max(256, triton.next_power_of_2(N))
    lnb_dx[(M,)](dY, X, gamma, mean, rstd, dX, M, N, BLOCK_N=block_n, num_warps=8)
    lnb_dgamma[(triton.cdiv(N, 128),)](dY, X, mean, rstd, dgamma, dbeta, M, N, BLOCK=128,
                                       num_warps=4)
