#!/usr/bin/env bash
# oracle.sh - the independent PyTorch oracle against every problem's reference.cu
# (tests/oracle/run.py); run on the GPU machine: tests/gpu/oracle.sh BUILD
set -u
build=${1:-build}
PYTHONUNBUFFERED=1 python3 tests/oracle/run.py "$build"
