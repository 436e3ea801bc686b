#!/usr/bin/env bash
# triton.sh - the Triton compile sandbox with the real Triton (on the GPU machine):
#   tests/gpu/triton.sh BUILD
#
# 1. build/tests/test_triton_compile with BW_TRITON_REAL=1: the probe with the real
#    Triton, every sandboxed compile of the unit tests, the real_* tests (a vector add
#    in two specialisations and a matmul, with their metadata: entry name, num_warps,
#    kept parameters, shared memory, cp.async in the matmul), and the hostile corpus of
#    tests/hostile/triton/ (those marked "# real: skip" are fake-only).
# 2. The PTX the judge's driver produced for those kernels equals (debug lines aside)
#    what Triton's own launcher produces for the same arguments (kernel.warmup with
#    CUDA tensors): the specialisation (tt.divisibility, 1 folded) is Triton's.
#
# Without Triton (no python with `import triton`) it skips cleanly. Python:
# $BLOCKWISE_PYTHON, else python3 on PATH (/opt/torch/.venv/bin/python3 there).
set -u
build=${1:-build}
py=${BLOCKWISE_PYTHON:-$(command -v python3 || true)}
pass=0 fail=0 skip=0

if [ -z "$py" ] || ! "$py" -c 'import triton' >/dev/null 2>&1; then
    echo "skip triton: no Python with triton here (${py:-no python3}); set BLOCKWISE_PYTHON"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
if [ ! -x "$build/tests/test_triton_compile" ] || [ ! -x "$build/bin/blockwise-triton-compile" ]; then
    echo "FAIL triton: $build/tests/test_triton_compile or $build/bin/blockwise-triton-compile is not built"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi
echo "python: $py, Triton $("$py" -c 'import triton; print(triton.__version__)')"
dump=$(mktemp -d /tmp/bw-triton-gpu-XXXXXX)
trap 'rm -rf "$dump"' EXIT

# ---- 1. the unit tests and hostile corpus with the real Triton -------------------------
log=$dump/unit.log
BW_TRITON_REAL=1 BLOCKWISE_PYTHON=$py BW_TRITON_DUMP_DIR=$dump \
    BLOCKWISE_TRITON_COMPILE=$build/bin/blockwise-triton-compile BW_TEST_DEADLINE_S=200 \
    "$build/tests/test_triton_compile" >"$log" 2>&1
sed 's/^/  | /' "$log" | grep -v '^  | ok ' | tail -n 80
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
if [ -n "$line" ]; then
    p=$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")
    f=$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$line")
    s=$(sed -nE 's/.*, ([0-9]+) skipped.*/\1/p' <<<"$line")
    pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + ${s:-0}))
    echo "test_triton_compile (real Triton): $line"
else
    fail=$((fail + 1))
    echo "FAIL test_triton_compile (real Triton): no summary line"
fi

# ---- 2. our PTX == Triton's own launcher's ------------------------------------------------
cat >"$dump/kernels.py" <<'EOF'
import triton
import triton.language as tl


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(c_ptr + offs, a + b, mask=mask)


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptr + rm[:, None] * sam + (k * BK + rk)[None, :] * sak,
                    mask=(rm[:, None] < M) & ((k * BK + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k * BK + rk)[:, None] * sbk + rn[None, :] * sbn,
                    mask=((k * BK + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))
EOF
cat >"$dump/compare.py" <<'EOF'
import os, re, sys
import torch
sys.path.insert(0, sys.argv[1])
import kernels

dump = sys.argv[1]


def normal(ptx):
    """The PTX without what depends on the file and line (debug info, .loc, .file)."""
    ptx = re.sub(r"\.section\s+\.debug\w*\s*\{.*?\n\s*\}", "", ptx, flags=re.S)
    keep = [l.rstrip() for l in ptx.splitlines()
            if l.strip() and not l.strip().startswith((".loc", ".file", "//", "$L__", "@@"))]
    return "\n".join(keep)


x = torch.empty(4099, device="cuda", dtype=torch.float32)
a = torch.empty(4096, 4096, device="cuda", dtype=torch.float32)
cases = {
    "add_kernel_div16": lambda: kernels.add_kernel.warmup(x, x, x, 4096, BLOCK=1024, grid=(1,)),
    "add_kernel_odd": lambda: kernels.add_kernel.warmup(x, x, x, 4099, BLOCK=1024, grid=(1,)),
    "matmul": lambda: kernels.matmul.warmup(a, a, a, 4096, 4096, 4096, *a.stride(), *a.stride(),
                                            *a.stride(), BM=128, BN=128, BK=32, grid=(1,)),
}
bad = 0
for name, warm in cases.items():
    path = os.path.join(dump, name + ".ptx")
    if not os.path.exists(path):
        print("FAIL %s: the judge's PTX was not dumped" % name)
        bad += 1
        continue
    ours = normal(open(path).read())
    theirs = normal(warm().asm["ptx"])
    if ours == theirs:
        print("ok   %s: the judge's PTX is Triton's launcher's (%d lines)" % (name, ours.count("\n") + 1))
    else:
        import difflib
        diff = list(difflib.unified_diff(theirs.splitlines(), ours.splitlines(), "launcher", "judge", lineterm="", n=1))
        print("FAIL %s: the PTX differs from the launcher's:\n  %s" % (name, "\n  ".join(diff[:40])))
        bad += 1
sys.exit(1 if bad else 0)
EOF
if out=$(cd "$dump" && TRITON_CACHE_DIR=$dump/cache "$py" compare.py "$dump" 2>&1); then
    echo "$out"
    pass=$((pass + $(grep -c '^ok ' <<<"$out")))
else
    echo "$out" | tail -n 60
    n=$(grep -c '^FAIL ' <<<"$out")
    fail=$((fail + (n > 0 ? n : 1)))
    pass=$((pass + $(grep -c '^ok ' <<<"$out")))
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
