/*
 * simt_main.cpp - the judge's side of one emulated run (see simt.h, simt.py).
 *
 *   BIN CASE_FILE
 *
 * The case file (written by simt.py) lists buffers, input generators, the
 * launches and, for a submission, the tolerances. Inputs come from the
 * judge's own generator (judge/kernels/gen_value.h: same seed, case index and
 * stream give the same bits as on the GPU). Outputs are poisoned with 0xFF,
 * scratch is zeroed, every buffer has 4 KiB guard bands (then unmapped pages).
 * Mode "ref" writes each output (fp64 / int64) to REFDIR/NAME.bin; mode "sub"
 * checks guards, unchanged inputs and poison, compares with the reference the
 * way judge/compare.c does, and prints one line: "AC ...", or "WA: ...",
 * "MV: ...", "IM: ...", "RE: ...".
 */
#include "simt.h"

#include <map>
#include <signal.h>
#include <unistd.h>
#include <string>
#include <sys/mman.h>
#include <vector>

#undef __CUDA_ARCH__
#undef __CUDACC_RTC__
extern "C" {
#include "common/gen.h"
#include "judge/kernels/gen_value.h"
}

extern const simt_kernel simt_kernels[];
extern const int simt_n_kernels;

static const size_t kGuard = 4096;

struct buffer {
    std::string name, dtype, role;
    size_t count = 0, esize = 0;
    long long rowlen = 1;
    unsigned char *p = nullptr, *base = nullptr;
    size_t span = 0;
    std::vector<unsigned char> initial; /* inputs, for the unchanged check */
    bool has_gen = false;
    gen_spec g{};
    int stream = 0;
    bool exact = false;
    double atol = 0, rtol = 0, acc = 0;
    bool has_tol = false;
};

static size_t dtype_bytes(const std::string &d)
{
    if (d == "fp64" || d == "int64" || d == "uint64")
        return 8;
    if (d == "fp32" || d == "int32" || d == "uint32")
        return 4;
    if (d == "fp16" || d == "bf16")
        return 2;
    if (d == "int8" || d == "uint8")
        return 1;
    simt_fail("JE", "unknown dtype %s", d.c_str());
}
static uint32_t dtype_code(const std::string &d)
{
    if (d == "fp64")
        return DTYPE_FP64;
    if (d == "fp32")
        return DTYPE_FP32;
    if (d == "fp16")
        return DTYPE_FP16;
    if (d == "bf16")
        return DTYPE_BF16;
    if (d == "int8")
        return DTYPE_INT8;
    if (d == "uint8")
        return DTYPE_UINT8;
    if (d == "int32")
        return DTYPE_INT32;
    if (d == "uint32")
        return DTYPE_UINT32;
    if (d == "int64")
        return DTYPE_INT64;
    return DTYPE_UINT64;
}
static bool is_float(const std::string &d)
{
    return d == "fp64" || d == "fp32" || d == "fp16" || d == "bf16";
}

static double load_value(const buffer &b, size_t i)
{
    const unsigned char *q = b.p + i * b.esize;
    if (b.dtype == "fp64") {
        double v;
        memcpy(&v, q, 8);
        return v;
    }
    if (b.dtype == "fp32") {
        float v;
        memcpy(&v, q, 4);
        return v;
    }
    if (b.dtype == "fp16") {
        uint16_t v;
        memcpy(&v, q, 2);
        return simt_h2f(v);
    }
    if (b.dtype == "bf16") {
        uint16_t v;
        memcpy(&v, q, 2);
        return simt_bf2f(v);
    }
    if (b.dtype == "int32") {
        int32_t v;
        memcpy(&v, q, 4);
        return v;
    }
    if (b.dtype == "int64") {
        int64_t v;
        memcpy(&v, q, 8);
        return (double)v;
    }
    if (b.dtype == "uint32") {
        uint32_t v;
        memcpy(&v, q, 4);
        return v;
    }
    if (b.dtype == "int8")
        return (double)(int8_t)*q;
    if (b.dtype == "uint8")
        return (double)*q;
    uint64_t v;
    memcpy(&v, q, 8);
    return (double)v;
}

static double round_to(const std::string &d, double v)
{
    if (d == "fp32")
        return (double)(float)v;
    if (d == "fp16")
        return simt_h2f(simt_d2h(v));
    if (d == "bf16")
        return simt_bf2f(simt_d2bf(v));
    return v;
}

static void alloc(buffer &b)
{
    size_t bytes = b.count * b.esize;
    size_t data = (bytes + 4095) & ~(size_t)4095;
    b.span = 4096 + kGuard + data + kGuard + 4096;
    void *m = mmap(nullptr, b.span, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        simt_fail("JE", "cannot map %zu bytes for %s", b.span, b.name.c_str());
    b.base = (unsigned char *)m;
    mprotect(b.base, 4096, PROT_NONE);
    mprotect(b.base + b.span - 4096, 4096, PROT_NONE);
    b.p = b.base + 4096 + kGuard;
    memset(b.base + 4096, 0xA5, kGuard);
    /* the guard after the data starts right at its end */
    memset(b.p + bytes, 0xA5, b.span - 4096 - (size_t)(b.p + bytes - b.base));
}

static std::string guard_report(const buffer &b)
{
    size_t bytes = b.count * b.esize;
    for (size_t i = 0; i < kGuard; i++)
        if (b.base[4096 + i] != 0xA5)
            return "wrote before the start of " + b.name + " (byte " +
                   std::to_string((long long)i - (long long)kGuard) + ")";
    const unsigned char *end = b.p + bytes, *stop = b.base + b.span - 4096;
    for (const unsigned char *q = end; q < stop; q++)
        if (*q != 0xA5)
            return "wrote past the end of " + b.name + " (byte " + std::to_string(q - end) +
                   " after it)";
    return "";
}

static std::vector<buffer> bufs;

static void on_segv(int, siginfo_t *si, void *)
{
    const unsigned char *a = (const unsigned char *)si->si_addr;
    for (auto &b : bufs)
        if (a >= b.base && a < b.base + b.span) {
            char msg[256];
            snprintf(msg, sizeof msg, "MV: memory fault %td bytes %s %s\n",
                     a < b.p ? b.p - a : a - (b.p + b.count * b.esize),
                     a < b.p ? "before" : "after", b.name.c_str());
            ssize_t r = write(1, msg, strlen(msg));
            (void)r;
            _exit(0);
        }
    const char *msg = "RE: memory fault outside every buffer (an illegal address)\n";
    ssize_t r = write(1, msg, strlen(msg));
    (void)r;
    _exit(0);
}

static buffer *find(const std::string &n)
{
    for (auto &b : bufs)
        if (b.name == n)
            return &b;
    simt_fail("JE", "no buffer %s", n.c_str());
}

static void generate(buffer &b, uint64_t seed, uint32_t case_index)
{
    uint32_t dt = dtype_code(b.dtype);
    for (size_t i = 0; i < b.count; i++) {
        gen_value v = gen_value_at(&b.g, seed, case_index, i);
        unsigned char *q = b.p + i * b.esize;
        if (b.dtype == "fp64") {
            memcpy(q, &v.f, 8);
        } else if (b.dtype == "fp32") {
            float f = (float)v.f;
            memcpy(q, &f, 4);
        } else if (b.dtype == "fp16") {
            uint16_t h = simt_d2h(v.f);
            memcpy(q, &h, 2);
        } else if (b.dtype == "bf16") {
            uint16_t h = simt_d2bf(v.f);
            memcpy(q, &h, 2);
        } else {
            uint64_t bits = gen_int_bits(v, dt);
            memcpy(q, &bits, b.esize);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CASE_FILE\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f)
        simt_fail("JE", "cannot open %s", argv[1]);
    std::string mode, refdir;
    uint64_t seed = 1;
    uint32_t case_index = 0;
    std::vector<simt_launch> launches;
    std::vector<int> kernel_of;
    char line[8192];
    while (fgets(line, sizeof line, f)) {
        std::vector<std::string> tok;
        char *save = nullptr;
        for (char *t = strtok_r(line, " \t\n", &save); t; t = strtok_r(nullptr, " \t\n", &save))
            tok.push_back(t);
        if (tok.empty())
            continue;
        const std::string &k = tok[0];
        if (k == "mode") {
            mode = tok[1];
        } else if (k == "refdir") {
            refdir = tok[1];
        } else if (k == "seed") {
            seed = strtoull(tok[1].c_str(), nullptr, 10);
            case_index = (uint32_t)strtoul(tok[2].c_str(), nullptr, 10);
        } else if (k == "buffer") {
            buffer b;
            b.name = tok[1];
            b.dtype = tok[2];
            b.count = strtoull(tok[3].c_str(), nullptr, 10);
            b.role = tok[4];
            b.rowlen = strtoll(tok[5].c_str(), nullptr, 10);
            b.esize = dtype_bytes(b.dtype);
            bufs.push_back(b);
        } else if (k == "gen") {
            buffer *b = find(tok[1]);
            b->has_gen = true;
            gen_spec &g = b->g;
            memset(&g, 0, sizeof g);
            g.dtype = dtype_code(b->dtype);
            g.stream = (uint32_t)strtoul(tok[2].c_str(), nullptr, 10);
            g.row_len = b->rowlen;
            const std::string &kind = tok[3];
            g.kind = kind == "uniform"      ? GEN_UNIFORM
                     : kind == "normal"     ? GEN_NORMAL
                     : kind == "loguniform" ? GEN_LOGUNIFORM
                     : kind == "const"      ? GEN_CONST
                                            : GEN_RANDINT;
            for (size_t i = 4; i < tok.size(); i++) {
                std::string t = tok[i];
                size_t eq = t.find('=');
                std::string key = t.substr(0, eq), val = t.substr(eq + 1);
                double d = strtod(val.c_str(), nullptr);
                if (key == "a")
                    g.a = d;
                else if (key == "b")
                    g.b = d;
                else if (key == "ilo")
                    g.ilo = strtoll(val.c_str(), nullptr, 10);
                else if (key == "ihi")
                    g.ihi = strtoll(val.c_str(), nullptr, 10);
                else if (key == "signed")
                    g.flags |= GEN_SIGNED;
                else if (key == "negate")
                    g.flags |= GEN_NEGATE;
                else if (key == "row_lo") {
                    g.flags |= GEN_ROW_OFFSET;
                    g.row_lo = d;
                } else if (key == "row_hi")
                    g.row_hi = d;
                else if (key == "spike") {
                    g.flags |= GEN_SPIKE;
                    g.spike = d;
                } else if (key == "special") {
                    size_t c = val.find(':');
                    g.special_value[g.n_specials] = strtod(val.substr(0, c).c_str(), nullptr);
                    g.special_fraction[g.n_specials] = strtod(val.substr(c + 1).c_str(), nullptr);
                    g.n_specials++;
                } else
                    simt_fail("JE", "unknown gen key %s", key.c_str());
            }
        } else if (k == "tol") {
            buffer *b = find(tok[1]);
            b->has_tol = true;
            if (tok[2] == "exact") {
                b->exact = true;
            } else {
                b->atol = strtod(tok[2].c_str(), nullptr);
                b->rtol = strtod(tok[3].c_str(), nullptr);
                b->acc = strtod(tok[4].c_str(), nullptr);
            }
        } else if (k == "launch") {
            simt_launch l{};
            int ki = -1;
            for (int i = 0; i < simt_n_kernels; i++)
                if (tok[1] == simt_kernels[i].name)
                    ki = i;
            if (ki < 0)
                simt_fail("CE", "no kernel %s", tok[1].c_str());
            l.grid = dim3{(unsigned)strtoul(tok[2].c_str(), nullptr, 10),
                          (unsigned)strtoul(tok[3].c_str(), nullptr, 10),
                          (unsigned)strtoul(tok[4].c_str(), nullptr, 10)};
            l.block = dim3{(unsigned)strtoul(tok[5].c_str(), nullptr, 10),
                           (unsigned)strtoul(tok[6].c_str(), nullptr, 10),
                           (unsigned)strtoul(tok[7].c_str(), nullptr, 10)};
            l.smem = strtoull(tok[8].c_str(), nullptr, 10);
            l.nargs = atoi(tok[9].c_str());
            for (int i = 0; i < l.nargs; i++) {
                const std::string &a = tok[10 + i];
                simt_arg &x = l.args[i];
                if (a.rfind("b:", 0) == 0) {
                    x.ptr =
                        (void *)(uintptr_t)find(a.substr(2))->count; /* patched after allocation */
                    x.i = -1 - (long long)(&*find(a.substr(2)) - &bufs[0]);
                } else {
                    std::string v = a.substr(2);
                    x.f = strtod(v.c_str(), nullptr);
                    x.i = strtoll(v.c_str(), nullptr, 10);
                    x.u = strtoull(v.c_str(), nullptr, 10);
                    x.ptr = nullptr;
                }
            }
            launches.push_back(l);
            kernel_of.push_back(ki);
        } else {
            simt_fail("JE", "bad case line %s", k.c_str());
        }
    }
    fclose(f);

    for (auto &b : bufs)
        alloc(b);
    for (auto &l : launches)
        for (int i = 0; i < l.nargs; i++)
            if (l.args[i].i < 0 && l.args[i].ptr) {
                l.args[i].ptr = bufs[(size_t)(-1 - l.args[i].i)].p;
            }
    for (auto &b : bufs) {
        if (b.role == "in" || b.role == "inout") {
            if (!b.has_gen)
                simt_fail("JE", "input %s has no generator", b.name.c_str());
            generate(b, seed, case_index);
            if (b.role == "in")
                b.initial.assign(b.p, b.p + b.count * b.esize);
        } else if (b.role == "scratch") {
            memset(b.p, 0, b.count * b.esize);
        } else {
            memset(b.p, 0xFF, b.count * b.esize);
        }
    }

    static char altstack[65536];
    stack_t ss{};
    ss.ss_sp = altstack;
    ss.ss_size = sizeof altstack;
    sigaltstack(&ss, nullptr);
    struct sigaction sa {
    };
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigaction(SIGSEGV, &sa, nullptr);
    sigaction(SIGBUS, &sa, nullptr);

    for (size_t i = 0; i < launches.size(); i++)
        simt_kernels[kernel_of[i]].run(launches[i]);

    for (auto &b : bufs) {
        std::string g = guard_report(b);
        if (!g.empty()) {
            printf("MV: %s\n", g.c_str());
            return 0;
        }
    }
    for (auto &b : bufs)
        if (b.role == "in" && memcmp(b.initial.data(), b.p, b.initial.size())) {
            printf("IM: the input %s was changed\n", b.name.c_str());
            return 0;
        }

    if (mode == "ref") {
        for (auto &b : bufs) {
            if (b.role != "out" && b.role != "inout")
                continue;
            std::string path = refdir + "/" + b.name + ".bin";
            FILE *o = fopen(path.c_str(), "wb");
            if (!o || fwrite(b.p, b.esize, b.count, o) != b.count)
                simt_fail("JE", "cannot write %s", path.c_str());
            fclose(o);
        }
        printf("REFOK\n");
        return 0;
    }

    std::string summary;
    const bool rounded_ref = getenv("SIMT_ROUNDED_REF") && *getenv("SIMT_ROUNDED_REF") == '1';
    for (auto &b : bufs) {
        if (b.role != "out" && b.role != "inout")
            continue;
        std::vector<unsigned char> ref(b.count * 8), scale;
        auto rd = [&](const std::string &n, std::vector<unsigned char> &v) {
            v.resize(b.count * 8);
            std::string path = refdir + "/" + n + ".bin";
            FILE *i = fopen(path.c_str(), "rb");
            if (!i || fread(v.data(), 8, b.count, i) != b.count)
                simt_fail("JE", "cannot read %s", path.c_str());
            fclose(i);
        };
        rd(b.name, ref);
        if (b.acc > 0)
            rd(b.name + "_scale", scale);
        long long bad = 0, first = -1;
        double worst = 0, worst_abs = 0, worst_bad = 0;
        std::string why;
        for (size_t i = 0; i < b.count; i++) {
            bool poison = true;
            for (size_t j = 0; j < b.esize; j++)
                poison &= b.p[i * b.esize + j] == 0xFF;
            bool ok;
            double got = load_value(b, i), r, s = 0;
            if (!is_float(b.dtype)) {
                long long ri;
                memcpy(&ri, &ref[i * 8], 8);
                ok = (long long)got == ri;
                r = (double)ri;
            } else {
                memcpy(&r, &ref[i * 8], 8);
                if (rounded_ref)
                    r = round_to(b.dtype,
                                 r); /* docs/problem-format.md's rule; compare.c uses r as is */
                if (b.acc > 0)
                    memcpy(&s, &scale[i * 8], 8);
                /* as judge/compare.c: NaN / inf are judged on the reference
                 * rounded to the dtype only for exact outputs */
                double want = b.exact ? round_to(b.dtype, r) : r;
                if (std::isnan(want))
                    ok = std::isnan(got);
                else if (std::isinf(want))
                    ok = got == want;
                else if (poison || std::isnan(got) || std::isinf(got))
                    ok = false;
                else if (b.exact)
                    ok = got == want;
                else {
                    double bound = b.atol + b.rtol * fabs(r) + b.acc * s;
                    ok = fabs(got - r) <= bound;
                    if (ok && bound > 0)
                        worst = std::max(worst, fabs(got - r) / bound);
                    worst_abs = std::max(worst_abs, fabs(got - r));
                }
            }
            if (!ok) {
                if (is_float(b.dtype) && !b.exact && std::isfinite(got) && std::isfinite(r)) {
                    double bound = b.atol + b.rtol * fabs(r) + b.acc * s;
                    if (bound > 0)
                        worst_bad = std::max(worst_bad, fabs(got - r) / bound);
                }
                if (first < 0) {
                    first = (long long)i;
                    char m[256];
                    snprintf(m, sizeof m, "%s[%zu]: got %.9g want %.9g%s%s", b.name.c_str(), i, got,
                             r, poison ? " (poison)" : "",
                             b.acc > 0 ? (" S=" + std::to_string(s)).c_str() : "");
                    why = m;
                }
                bad++;
            }
        }
        if (bad) {
            printf("WA: %lld of %zu elements of %s differ (worst %.3g x the bound); first %s\n",
                   bad, b.count, b.name.c_str(), worst_bad, why.c_str());
            return 0;
        }
        char m[160];
        snprintf(m, sizeof m, " %s:worst=%.3g", b.name.c_str(), worst);
        summary += m;
    }
    printf("AC%s\n", summary.c_str());
    return 0;
}
