/*
 * checks.h - independent CPU computations of the step-8 problems, to check
 * reference.cu's outputs inside the simulator (harness.cpp).
 */
#ifndef BW_CPUSIM_CHECKS_H
#define BW_CPUSIM_CHECKS_H

#include <map>
#include <string>

extern "C" {
#include "common/dtype.h"
#include "problem/problem.h"
}

/* A buffer of the reference's plan: inputs in their dtype, outputs fp64/int64. */
struct sim_view {
    void *p;
    enum dtype dtype;
    int64_t count;
};

/* Empty when the reference's outputs agree with the CPU's fp64 computation
 * (or when the problem has no check here); else what disagrees. */
std::string sim_check_reference(const struct problem *p, const struct problem_case *c,
                                const std::map<std::string, sim_view> &bufs);

#endif
