#!/usr/bin/env bash
# directives.sh - issue 12's directives on the GPU: a vector-add split over
# two launches with integer expressions in args (long long and int
# parameters: the runner gives an expression its parameter's width), and a
# @scratch buffer declared with a C type name, each judged Accepted; an
# expression that overflows an int parameter is a Compile Error at the
# argument. Run on the GPU machine: tests/gpu/directives.sh BUILD
set -u
build=${1:-build}
judged=$build/bin/judged
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# expect NAME VERDICT_TEXT FILE: `judged check --tests-only` on vector-add.
expect() {
    local out
    out=$(timeout 300 "$judged" check --tests-only problems/vector-add "$3" 2>&1)
    if grep -q "^verdict   $2" <<<"$out"; then
        pass=$((pass + 1))
        echo "ok   $1"
    else
        fail=$((fail + 1))
        echo "FAIL $1 (expected $2)"
        sed 's/^/    | /' <<<"$out" | tail -n 15
    fi
}

cat >"$tmp/split.cu" <<'CU'
// @const BLOCK=256
// @launch add_range grid=(max(1, cdiv(N / 2, BLOCK))) block=(BLOCK) args=(A, B, C, 0, N / 2)
// @launch add_range grid=(max(1, cdiv(N - N / 2, BLOCK))) block=(BLOCK) args=(A, B, C, N / 2, N - N / 2)
extern "C" __global__ void add_range(const float* a, const float* b, float* c,
                                     long long first, long long count)
{
    long long i = (long long)blockIdx.x * BLOCK + threadIdx.x;
    if (i < count)
        c[first + i] = a[first + i] + b[first + i];
}
CU
expect "two launches, args N / 2 and N - N / 2 into long long" Accepted "$tmp/split.cu"

# The parameters 4 bytes wide; the index stays 64-bit (first + i passes 2^31 in
# vector-add's last test, N = 2^31 + 129, while first and count each fit an int).
sed -e 's/long long first, long long count/int first, int count/' "$tmp/split.cu" >"$tmp/split_int.cu"
expect "the same into int parameters (4 bytes each)" Accepted "$tmp/split_int.cu"

cat >"$tmp/scratch.cu" <<'CU'
// @const BLOCK=256
// @scratch sum float[N]
// @scratch ticks unsigned int[4]
// @launch add_into grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(A, B, sum, ticks, N)
// @launch copy_out grid=(cdiv(N, BLOCK)) block=(BLOCK) args=(sum, C, N)
extern "C" __global__ void add_into(const float* a, const float* b, float* sum, unsigned* ticks,
                                    long long n)
{
    long long i = (long long)blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) {
        sum[i] = a[i] + b[i];
        atomicAdd(&ticks[blockIdx.x % 4], 1u);
    }
}
extern "C" __global__ void copy_out(const float* sum, float* c, long long n)
{
    long long i = (long long)blockIdx.x * BLOCK + threadIdx.x;
    if (i < n)
        c[i] = sum[i];
}
CU
# (vector-add caps scratch at 4*N + 4096 bytes: 4*N + 16 here)
expect "@scratch float[N] and unsigned int[4] between two launches" Accepted "$tmp/scratch.cu"

sed 's/args=(A, B, C, N \/ 2, N - N \/ 2)/args=(A, B, C, N \/ 2, N * 8)/' "$tmp/split_int.cu" >"$tmp/over.cu"
expect "N * 8 into an int is a Compile Error" "Compile Error: argument 5 'N \* 8' of kernel 'add_range' is" "$tmp/over.cu"

echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
