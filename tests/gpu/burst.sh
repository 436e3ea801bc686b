#!/usr/bin/env bash
# burst.sh - a class's burst on the GPU machine: the server and one judged
# worker with two job slots on GPU 0; a Runtime Error (an illegal address), a
# Time Limit and a Memory Violation among learners' Runs cost nobody else
# their verdict, a Submit in the burst is timed alone, a cancelled Submit
# frees the GPU at once. The checks of tests/cpu/worker-fake.sh, on real
# kernels: tests/gpu/burst.sh BUILD
exec "$(dirname "$0")/../cpu/worker-fake.sh" "${1:-build}" --gpu
