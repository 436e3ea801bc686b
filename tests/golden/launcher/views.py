# Views bound back to their buffers with element offsets: slicing, select, t(),
# transpose, permute, view, reshape, flatten, unsqueeze, narrow, expand, stride(),
# is_contiguous(), contiguous() of a contiguous view, .shape, size(), dim(),
# .dtype, .device. Offsets not a multiple of 16 bytes lose pointer divisibility.
import torch
import triton
import triton.language as tl


@triton.jit
def k(a, b, c, s0, s1, n, BLOCK: tl.constexpr):
    pass


def solve(X, W, Y, alpha, M, N):
    assert X.dim() == 2 and X.shape == (M, N) and X.size(1) == N and X.size() == X.shape
    assert X.dtype == torch.float32 and W.dtype == torch.float16 and X.device == Y.device
    assert X.is_contiguous() and not X.t().is_contiguous() and X.contiguous() is X
    last = X[M - 1]                      # the last row: offset (M - 1) * N
    tail = W[1:]                         # offset 1: 2 bytes, not 16-byte aligned
    k[(1,)](last, tail, Y[:, 1:], X.stride(0), X.stride(1), N, BLOCK=8)
    xt = X.t()
    k[(1,)](xt, W.unsqueeze(0).expand(M, N), Y.transpose(0, 1), xt.stride(0), xt.stride(1), M, BLOCK=8)
    flat = Y.view(-1)
    k[(1,)](X.reshape(M * N)[N:], W.view(N, 1).flatten(), flat.narrow(0, 4, M * N - 4), 1, 1, M * N,
             BLOCK=8)
    k[(1,)](X.permute(1, 0)[0], W[::2], Y.select(0, M - 1)[::N], N, 2, N, BLOCK=8)
