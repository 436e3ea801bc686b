/*
 * harness.h - the judge's side of a CPU-emulated run (see emu.h, run.py).
 *
 * Guarded buffers (4 KiB of 0xA5 before and after, base 256-byte aligned),
 * 0xFF poison for outputs, input-unchanged checks, a small RNG for the
 * problems' distributions, and the command line every emulated problem
 * binary shares:
 *   BIN --sizes a,b,c --profile NAME --seed S
 *       --grid x,y,z --block x,y,z --ref-grid x,y,z --ref-block x,y,z
 * Each binary prints one line: "AC", or "WA: ...", "MV: ...", "IM: ...",
 * or "REF: ..." when reference.cu disagrees with the CPU's fp64 result.
 */
#ifndef BW_EMU_HARNESS_H
#define BW_EMU_HARNESS_H

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "emu.h"

constexpr size_t kGuard = 4096;

template <class T> struct guarded {
    std::vector<unsigned char> raw;
    T *p = nullptr;
    size_t n = 0;

    explicit guarded(size_t count) : raw(count * sizeof(T) + 2 * kGuard + 256), n(count)
    {
        uintptr_t base = reinterpret_cast<uintptr_t>(raw.data()) + kGuard;
        base = (base + 255) & ~uintptr_t(255);
        p = reinterpret_cast<T *>(base);
        std::memset(raw.data(), 0xA5, raw.size());
    }
    void poison()
    {
        std::memset(p, 0xFF, n * sizeof(T));
    }
    /* Empty string when both guard bands are intact. */
    std::string guard_report(const char *name) const
    {
        const unsigned char *lo = reinterpret_cast<const unsigned char *>(p) - kGuard;
        const unsigned char *hi = reinterpret_cast<const unsigned char *>(p + n);
        for (size_t i = 0; i < kGuard; i++)
            if (lo[i] != 0xA5)
                return std::string(name) + ": guard before written at offset " + std::to_string(i);
        for (size_t i = 0; i < kGuard; i++)
            if (hi[i] != 0xA5)
                return std::string(name) + ": guard after written at byte " + std::to_string(i);
        return "";
    }
};

struct rng {
    uint64_t s[4];
    explicit rng(uint64_t seed)
    {
        for (int i = 0; i < 4; i++) {
            seed += 0x9E3779B97F4A7C15ull;
            uint64_t z = seed;
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
            s[i] = z ^ (z >> 31);
        }
    }
    static uint64_t rotl(uint64_t x, int k)
    {
        return (x << k) | (x >> (64 - k));
    }
    uint64_t next()
    {
        uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = rotl(s[3], 45);
        return r;
    }
    double unit()
    {
        return (double)(next() >> 11) * 0x1.0p-53;
    }
    double uniform(double lo, double hi)
    {
        return lo + (hi - lo) * unit();
    }
    double normal(double mean, double std)
    {
        double u1 = unit(), u2 = unit();
        if (u1 < 1e-300)
            u1 = 1e-300;
        return mean + std * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    }
    double loguniform_signed(double lo, double hi)
    {
        double v = std::exp(uniform(std::log(lo), std::log(hi)));
        return (next() & 1) ? v : -v;
    }
};

struct args {
    std::vector<long long> sizes;
    std::string profile;
    uint64_t seed = 1;
    dim3 grid, block, ref_grid, ref_block;
};

inline dim3 parse_dim3(const char *s)
{
    dim3 d;
    if (std::sscanf(s, "%u,%u,%u", &d.x, &d.y, &d.z) != 3) {
        std::fprintf(stderr, "bad dim3 %s\n", s);
        std::exit(2);
    }
    return d;
}

inline args parse_args(int argc, char **argv)
{
    args a;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string k = argv[i];
        const char *v = argv[i + 1];
        if (k == "--sizes") {
            std::string s = v;
            size_t pos = 0;
            while (pos <= s.size()) {
                size_t comma = s.find(',', pos);
                if (comma == std::string::npos)
                    comma = s.size();
                a.sizes.push_back(std::strtoll(s.substr(pos, comma - pos).c_str(), nullptr, 10));
                pos = comma + 1;
            }
        } else if (k == "--profile") {
            a.profile = v;
        } else if (k == "--seed") {
            a.seed = std::strtoull(v, nullptr, 10);
        } else if (k == "--grid") {
            a.grid = parse_dim3(v);
        } else if (k == "--block") {
            a.block = parse_dim3(v);
        } else if (k == "--ref-grid") {
            a.ref_grid = parse_dim3(v);
        } else if (k == "--ref-block") {
            a.ref_block = parse_dim3(v);
        } else {
            std::fprintf(stderr, "unknown option %s\n", k.c_str());
            std::exit(2);
        }
    }
    return a;
}

/* The judge's comparison of one element; true when it fails. */
inline bool mismatch(double got, double ref, double atol, double rtol, double acc, double scale)
{
    if (std::isnan(ref) || std::isinf(ref))
        return !(std::isnan(ref) ? std::isnan(got) : got == ref);
    if (!std::isfinite(got))
        return true;
    return std::fabs(got - ref) > atol + rtol * std::fabs(ref) + acc * scale;
}

#endif
