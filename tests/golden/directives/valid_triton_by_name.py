# @tune BLOCK=(256, 512)
# @const GROUP=8
# @let ROW = next_pow2(N)
# @launch add_kernel grid=(cdiv(N, BLOCK)) args=(A, B, C, N)
import triton
import triton.language as tl

def add_kernel(x):  # indented or earlier definitions: the last top-level one counts
    pass

@triton.jit
def add_kernel(a_ptr, b_ptr,  # pointers
               c_ptr, n,
               BLOCK: tl.constexpr, ROW: "tl.constexpr",
               GROUP: tl.constexpr = 4, OTHER: tl.constexpr = 1,
               EVEN: bool = (1, 2)[0] == 1, *, K: tl.constexpr = 3):
    pass
