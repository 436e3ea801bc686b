#!/usr/bin/env bash
# cuda_host_equiv.sh - builds tests/cpu/cuda_host_equiv.cu with nvcc (host code
# only: no GPU needed) and runs it: common/dtype.c's fp16/bf16 conversions
# against cuda_fp16.h/cuda_bf16.h, common/philox.h against cuRAND's
# Philox4_32_10. Skips when nvcc is absent.  Usage: tests/cpu/cuda_host_equiv.sh BUILD
set -u
build=${1:-build}
nvcc=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
if [ ! -x "$nvcc" ]; then
    echo "skip: no nvcc at $nvcc"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
out=$build/tests/cuda_host_equiv
mkdir -p "$build/tests"
if ! "$nvcc" -O2 -I. -Xcompiler -Wall -o "$out" tests/cpu/cuda_host_equiv.cu common/dtype.c \
    2>"$out.log"; then
    cat "$out.log"
    echo "FAIL build of cuda_host_equiv"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi
"$out"
