#!/usr/bin/env bash
# runner.sh - the runner's GPU tests: build/tests/test_runner with the GPU
# forced on (BLOCKWISE_GPU_TESTS=1: a missing GPU is a failure, not a skip).
# The fake-driver and CPU tests in the same binary run too. Lines "  info:"
# carry the measured figures (GPU, calibration, copy bandwidth).
#   tests/gpu/runner.sh BUILD    (run from the repository root)
set -u
build=${1:-build}
if [ ! -x "$build/tests/test_runner" ] || [ ! -x "$build/bin/blockwise-runner" ]; then
    echo "FAIL: $build/tests/test_runner or $build/bin/blockwise-runner is not built"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi
BLOCKWISE_GPU_TESTS=1 BLOCKWISE_RUNNER="$build/bin/blockwise-runner" "$build/tests/test_runner"
