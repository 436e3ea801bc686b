/*
 * emu.h - just enough CUDA to run the problems' kernels on the CPU.
 *
 * A development aid for machines without a GPU (tests/emu/run.py drives it):
 * a problem's .cu file is compiled as C++20 with this header forced in front
 * (g++ -include tests/emu/emu.h -x c++), and emu_launch() runs the grid one
 * block at a time, each CUDA thread on its own OS thread, so __syncthreads()
 * and warp shuffles are real barriers. __shared__ variables become function
 * statics: one copy, shared by the threads of the block that is running.
 *
 * What it proves: indexing, masking, reductions and the arithmetic of the
 * kernels (fp32 on the CPU is IEEE fp32; expf is glibc's, within 2 ulp of
 * CUDA's). What it does not: timing, coalescing, the memory model beyond
 * barriers, tensor cores (wmma) and cuda_fp16.h.
 */
#ifndef BW_EMU_H
#define BW_EMU_H

#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <math.h>
#include <memory>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__   static
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};
struct uint3 {
    unsigned x, y, z;
};
struct __attribute__((aligned(16))) float4 {
    float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w)
{
    return float4{x, y, z, w};
}

inline thread_local uint3 threadIdx;
inline uint3 blockIdx;
inline dim3 blockDim, gridDim;

struct emu_block_state {
    std::unique_ptr<std::barrier<>> block;
    std::vector<std::unique_ptr<std::barrier<>>> warps;
    std::vector<float> shfl;
};
inline emu_block_state emu_state;

inline unsigned emu_linear_tid()
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

inline void __syncthreads()
{
    emu_state.block->arrive_and_wait();
}

inline void __syncwarp(unsigned = 0xffffffffu)
{
    emu_state.warps[emu_linear_tid() / 32]->arrive_and_wait();
}

inline float __shfl_xor_sync(unsigned, float v, int offset)
{
    const unsigned t = emu_linear_tid();
    auto &bar = *emu_state.warps[t / 32];
    emu_state.shfl[t] = v;
    bar.arrive_and_wait();
    const float r = emu_state.shfl[(t & ~31u) | ((t & 31u) ^ (unsigned)offset)];
    bar.arrive_and_wait();
    return r;
}

inline float __int_as_float(int i)
{
    float f;
    std::memcpy(&f, &i, 4);
    return f;
}
inline double __longlong_as_double(long long i)
{
    double d;
    std::memcpy(&d, &i, 8);
    return d;
}

/* expf, fmaf, fmaxf, exp, fabs, fmax: the C library's, from <math.h>. */
template <class T> inline T min(T a, T b)
{
    return b < a ? b : a;
}
template <class T> inline T max(T a, T b)
{
    return a < b ? b : a;
}

/* Runs `kernel` over the grid, block after block, on a pool of one OS thread
 * per CUDA thread of a block. A thread that returns drops out of the block's
 * and its warp's barriers, as an exited CUDA thread no longer holds back
 * __syncthreads(). */
inline void emu_launch(dim3 grid, dim3 block, const std::function<void()> &kernel)
{
    const unsigned threads = block.x * block.y * block.z;
    const unsigned warps = (threads + 31) / 32;
    gridDim = grid;
    blockDim = block;
    std::barrier<> start(threads + 1), done(threads + 1);
    bool quit = false;
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (unsigned t = 0; t < threads; t++)
        pool.emplace_back([&, t] {
            threadIdx = uint3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
            for (;;) {
                start.arrive_and_wait();
                if (quit)
                    return;
                kernel();
                emu_state.warps[t / 32]->arrive_and_drop();
                emu_state.block->arrive_and_drop();
                done.arrive_and_wait();
            }
        });
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++) {
                blockIdx = uint3{bx, by, bz};
                emu_state.block = std::make_unique<std::barrier<>>(threads);
                emu_state.warps.clear();
                for (unsigned w = 0; w < warps; w++)
                    emu_state.warps.push_back(
                        std::make_unique<std::barrier<>>(std::min(32u, threads - 32 * w)));
                emu_state.shfl.assign(threads, 0.0f);
                start.arrive_and_wait();
                done.arrive_and_wait();
            }
    quit = true;
    start.arrive_and_wait();
    for (auto &th : pool)
        th.join();
}

#endif
