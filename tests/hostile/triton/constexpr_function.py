# expect: compile-error
# diag: 15:* No such file or directory
# real: skip
import triton
import triton.language as tl


@triton.constexpr_function
def secret(x):
    return len(open("/etc/passwd").read()) + x


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    tl.store(x_ptr, secret(BLOCK))
