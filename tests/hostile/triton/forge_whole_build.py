# expect: failure
# failure: malformed
# A whole, sound-looking build forged on the result pipe at import, closed with
# "built": the judge may take it as final (it is the submission's own code, in
# its own runner), but the compiler's real build of the same index follows, and
# the answer is malformed: the compile ends as the submission's failure.
import os
import triton
import triton.language as tl


def field(key, value):
    value = value if isinstance(value, bytes) else value.encode()
    return b"%s %d\n" % (key.encode(), len(value)) + value + b"\n"


ptx = ".visible .entry forged(\n.param .u64 a,\n.param .u32 b,\n.param .u64 c,\n.param .u64 d\n)\n"
os.write(4, field("build", "0") + field("name", "forged") + field("cubin", b"\x7fELF forged")
         + field("ptx", ptx) + field("num_warps", "4") + field("num_ctas", "1") + field("params", "0,1")
         + field("types", "*fp32,i32") + field("ptx_params", "4") + field("built", "0"))


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)
