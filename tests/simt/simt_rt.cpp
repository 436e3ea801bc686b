/*
 * simt_rt.cpp - the emulator's runtime: fibers, the block scheduler, warp
 * collectives (shuffles, votes, ldmatrix, mma.sync), the PTX subset of
 * simt_ptx(), and fp16/bf16 rounding. See simt.h.
 */
#include "simt.h"

#include <cstdarg>
#include <unistd.h>
#include <string>
#include <sys/mman.h>
#include <unordered_map>
#include <vector>

simt_fiber *simt_cur;
uint3 blockIdx;
dim3 blockDim, gridDim;
alignas(256) char simt_smem_anchor[256];
alignas(256) static char dyn_smem[232448 + 256];

void *simt_dyn_smem()
{
    return dyn_smem;
}

void simt_fail(const char *verdict, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    printf("%s: %s\n", verdict, buf);
    fflush(stdout);
    _exit(0);
}

/* ---- context switch (x86-64 System V) ---------------------------------- */
extern "C" void simt_switch(void **save_sp, void *new_sp);
extern "C" void simt_trampoline();
asm(R"(
.text
.globl simt_switch
.type simt_switch,@function
simt_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
.size simt_switch,.-simt_switch
.globl simt_trampoline
.type simt_trampoline,@function
simt_trampoline:
    movq %r12, %rdi
    callq *%r13
    ud2
.size simt_trampoline,.-simt_trampoline
)");

static void *sched_sp;
static constexpr size_t kStack = 256 * 1024;
static std::vector<char *> stacks;
static std::vector<simt_fiber> fibers;
static void (*cur_body)(void *);
static void *cur_ctx;

static void fiber_main(void *arg)
{
    simt_fiber *f = (simt_fiber *)arg;
    (void)f;
    cur_body(cur_ctx);
    simt_cur->state = SIMT_DONE;
    simt_switch(&simt_cur->sp, sched_sp);
    __builtin_unreachable();
}

void simt_yield()
{
    simt_switch(&simt_cur->sp, sched_sp);
}

static void *fiber_stack_init(char *stack_top, simt_fiber *f)
{
    /* simt_switch restores, from the new stack pointer: [mxcsr | x87 cw] r15 r14
     * r13 r12 rbx rbp, then returns. The frame is 16-aligned so that rsp is
     * 16-aligned at the trampoline's call, as the ABI wants. */
    uintptr_t top = ((uintptr_t)stack_top) & ~(uintptr_t)15;
    uint64_t *frame = (uint64_t *)(top - 128);
    uint32_t mx;
    uint16_t cw;
    asm volatile("stmxcsr %0" : "=m"(mx));
    asm volatile("fnstcw %0" : "=m"(cw));
    frame[0] = (uint64_t)mx | ((uint64_t)cw << 32);
    frame[1] = 0;                               /* r15 */
    frame[2] = 0;                               /* r14 */
    frame[3] = (uint64_t)(uintptr_t)fiber_main; /* r13 */
    frame[4] = (uint64_t)(uintptr_t)f;          /* r12 */
    frame[5] = 0;                               /* rbx */
    frame[6] = 0;                               /* rbp */
    frame[7] = (uint64_t)(uintptr_t)simt_trampoline;
    return frame;
}

/* ---- warp collectives --------------------------------------------------- */
void simt_warp_collective(simt_warp_op *op)
{
    simt_cur->op = op;
    simt_cur->state = SIMT_WAIT_WARP;
    simt_yield();
}

struct ptx_insn;
static void ptx_warp(const ptx_insn *in, simt_warp_op **lanes);

/* Tries to complete one collective of warp w; true if lanes were released. */
static bool resolve_warp(unsigned w, unsigned nthreads)
{
    simt_warp_op *lanes[32] = {};
    unsigned base = w * 32;
    unsigned first = 32;
    for (unsigned l = 0; l < 32 && base + l < nthreads; l++) {
        simt_fiber &f = fibers[base + l];
        if (f.state == SIMT_WAIT_WARP && first == 32)
            first = l;
    }
    if (first == 32)
        return false;
    const unsigned mask = fibers[base + first].op->mask;
    for (unsigned l = 0; l < 32; l++) {
        if (!(mask >> l & 1))
            continue;
        if (base + l >= nthreads)
            simt_fail(
                "RE",
                "warp collective in block (%u,%u,%u) thread %u names lane %u beyond the block",
                blockIdx.x, blockIdx.y, blockIdx.z, base + first, l);
        simt_fiber &f = fibers[base + l];
        if (f.state == SIMT_DONE)
            simt_fail("RE",
                      "warp collective (mask %08x) in block (%u,%u,%u) names exited thread %u",
                      mask, blockIdx.x, blockIdx.y, blockIdx.z, base + l);
        if (f.state != SIMT_WAIT_WARP)
            return false;
        if (f.op->mask != mask || f.op->kind != fibers[base + first].op->kind)
            simt_fail("RE",
                      "lanes of warp %u of block (%u,%u,%u) meet at different warp collectives", w,
                      blockIdx.x, blockIdx.y, blockIdx.z);
        lanes[l] = f.op;
    }
    const int kind = lanes[first]->kind;
    if (kind == SIMT_OP_PTX) {
        if (mask != 0xffffffffu)
            simt_fail("RE", "warp-wide PTX instruction with a partial warp");
        ptx_warp((const ptx_insn *)lanes[first]->ptx, lanes);
    } else {
        uint64_t ballot = 0;
        for (unsigned l = 0; l < 32; l++)
            if (lanes[l] && lanes[l]->value)
                ballot |= 1ull << l;
        for (unsigned l = 0; l < 32; l++) {
            simt_warp_op *o = lanes[l];
            if (!o)
                continue;
            int width = o->width <= 0 ? 32 : o->width;
            unsigned seg = l & ~(unsigned)(width - 1);
            int src = (int)l;
            switch (kind) {
            case SIMT_OP_SYNC:
                break;
            case SIMT_OP_BALLOT:
                o->result = ballot;
                continue;
            case SIMT_OP_SHFL_IDX:
                src = (int)seg + (o->arg & (width - 1));
                break;
            case SIMT_OP_SHFL_XOR: {
                int s = (int)l ^ o->arg;
                src = (s >= (int)seg + width || s < (int)seg) ? (int)l : s;
                break;
            }
            case SIMT_OP_SHFL_DOWN: {
                int s = (int)l + o->arg;
                src = s >= (int)seg + width ? (int)l : s;
                break;
            }
            case SIMT_OP_SHFL_UP: {
                int s = (int)l - o->arg;
                src = s < (int)seg ? (int)l : s;
                break;
            }
            }
            if (kind == SIMT_OP_SYNC)
                continue;
            if (!lanes[src])
                simt_fail("RE", "shuffle in block (%u,%u,%u) reads lane %d, outside the mask %08x",
                          blockIdx.x, blockIdx.y, blockIdx.z, src, mask);
            o->result = lanes[src]->value;
        }
    }
    for (unsigned l = 0; l < 32; l++)
        if (lanes[l])
            fibers[base + l].state = SIMT_RUNNABLE;
    return true;
}

/* ---- grid and block scheduling ----------------------------------------- */
void simt_run_grid(const simt_launch &l, void (*body)(void *), void *ctx)
{
    const unsigned n = l.block.x * l.block.y * l.block.z;
    if (n == 0 || n > 1024 || l.block.x > 1024 || l.block.y > 1024 || l.block.z > 64)
        simt_fail("RE", "invalid block (%u,%u,%u)", l.block.x, l.block.y, l.block.z);
    if (l.grid.x == 0 || l.grid.y == 0 || l.grid.z == 0 || l.grid.y > 65535 || l.grid.z > 65535 ||
        l.grid.x > 2147483647u)
        simt_fail("RE", "invalid grid (%u,%u,%u)", l.grid.x, l.grid.y, l.grid.z);
    if (l.smem > 232448)
        simt_fail("RE", "dynamic shared memory %zu bytes is more than 227 KiB", l.smem);
    memset(dyn_smem, 0xFF, l.smem);
    gridDim = l.grid;
    blockDim = l.block;
    cur_body = body;
    cur_ctx = ctx;
    while (stacks.size() < n) {
        void *m = mmap(nullptr, kStack + 4096, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED)
            simt_fail("JE", "cannot map a fiber stack");
        mprotect(m, 4096, PROT_NONE);
        stacks.push_back((char *)m + 4096 + kStack);
    }
    fibers.assign(n, simt_fiber{});
    const unsigned warps = (n + 31) / 32;
    for (unsigned bz = 0; bz < l.grid.z; bz++)
        for (unsigned by = 0; by < l.grid.y; by++)
            for (unsigned bx = 0; bx < l.grid.x; bx++) {
                blockIdx = uint3{bx, by, bz};
                for (unsigned t = 0; t < n; t++) {
                    simt_fiber &f = fibers[t];
                    f.tid = uint3{t % l.block.x, (t / l.block.x) % l.block.y,
                                  t / (l.block.x * l.block.y)};
                    f.linear = t;
                    f.state = SIMT_RUNNABLE;
                    f.op = nullptr;
                    f.sp = fiber_stack_init(stacks[t], &f);
                }
                unsigned live = n;
                while (live) {
                    bool progress = false;
                    for (unsigned t = 0; t < n; t++) {
                        if (fibers[t].state != SIMT_RUNNABLE)
                            continue;
                        simt_cur = &fibers[t];
                        simt_switch(&sched_sp, fibers[t].sp);
                        progress = true;
                        if (fibers[t].state == SIMT_DONE)
                            live--;
                    }
                    for (unsigned w = 0; w < warps; w++)
                        while (resolve_warp(w, n))
                            progress = true;
                    unsigned at_bar = 0;
                    for (unsigned t = 0; t < n; t++)
                        at_bar += fibers[t].state == SIMT_WAIT_BAR;
                    if (at_bar && at_bar == live) {
                        for (unsigned t = 0; t < n; t++)
                            if (fibers[t].state == SIMT_WAIT_BAR)
                                fibers[t].state = SIMT_RUNNABLE;
                        progress = true;
                    }
                    if (!progress && live)
                        simt_fail(
                            "RE",
                            "deadlock in block (%u,%u,%u): %u threads wait at __syncthreads, the "
                            "others at warp collectives that cannot complete",
                            bx, by, bz, at_bar);
                }
            }
}

/* ---- fp16 / bf16 rounding ---------------------------------------------- */
uint16_t simt_d2h(double d)
{
    /* round a double to fp16, nearest even, directly (no double rounding) */
    uint64_t b;
    memcpy(&b, &d, 8);
    uint16_t sign = (uint16_t)((b >> 48) & 0x8000);
    double a = fabs(d);
    if (std::isnan(d))
        return sign | 0x7e00;
    if (a >= 65520.0)
        return sign | 0x7c00;
    if (a < 0x1p-25 || a == 0)
        return sign | (a > 0x1p-25 ? 1 : 0);
    int e;
    frexp(a, &e);    /* a = m * 2^e, m in [0.5, 1) */
    int exp = e - 1; /* a in [2^exp, 2^(exp+1)) */
    if (exp < -14)
        exp = -14; /* subnormal: quantum 2^-24 */
    double q = ldexp(1.0, exp - 10);
    double m = a / q;        /* exact: power-of-two scale */
    double r = nearbyint(m); /* current mode: nearest even */
    uint32_t mant = (uint32_t)r;
    /* mant in [1024, 2048] for normals, [0, 1024] for subnormals */
    if (mant >= 2048) {
        mant >>= 1;
        exp++;
    }
    if (mant < 1024)
        return sign | (uint16_t)mant; /* subnormal (or became normal 1024 handled below) */
    if (exp > 15)
        return sign | 0x7c00;
    return sign | (uint16_t)((exp + 15) << 10) | (uint16_t)(mant - 1024);
}

uint16_t simt_f2h(float f)
{
    return simt_d2h((double)f);
}

float simt_h2f(uint16_t h)
{
    uint32_t sign = (h & 0x8000u) << 16;
    int exp = (h >> 10) & 31;
    uint32_t mant = h & 1023;
    float v;
    if (exp == 31)
        v = mant ? NAN : INFINITY;
    else if (exp == 0)
        v = ldexpf((float)mant, -24);
    else
        v = ldexpf((float)(mant | 1024), exp - 25);
    return sign ? -v : v;
}

uint16_t simt_d2bf(double d)
{
    if (std::isnan(d))
        return 0x7fc0;
    uint64_t b;
    memcpy(&b, &d, 8);
    uint16_t sign = (uint16_t)((b >> 48) & 0x8000);
    double a = fabs(d);
    if (a == 0)
        return sign;
    int e;
    frexp(a, &e);
    int exp = e - 1;
    if (exp < -126)
        exp = -126;
    double q = ldexp(1.0, exp - 7);
    double r = nearbyint(a / q);
    double v = r * q;
    if (v > 0x1.fep127) /* rounded past the largest finite value */
        return sign | 0x7f80;
    float fv = (float)v; /* exact: v has at most 8 significant bits */
    uint32_t u;
    memcpy(&u, &fv, 4);
    return sign | (uint16_t)(u >> 16);
}

uint16_t simt_f2bf(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return 0x7fc0;
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* ---- inline PTX --------------------------------------------------------- */
enum ptx_op {
    PTX_MMA_F32,  /* mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 */
    PTX_MMA_F16,  /* mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 */
    PTX_LDMATRIX, /* ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16 */
    PTX_CP_ASYNC, /* cp.async.{ca,cg}.shared.global [dst], [src], bytes[, src_bytes] */
    PTX_NOP,      /* cp.async.commit_group / wait_group / wait_all */
    PTX_EX2,      /* ex2.approx[.ftz].f32 d, a: per thread */
};
struct ptx_insn {
    ptx_op op;
    bool bf16 = false;
    bool trans = false;
    int count = 0;         /* ldmatrix matrices; cp.async bytes */
    std::vector<int> regs; /* operand numbers in order of appearance */
};

static std::unordered_map<const char *, ptx_insn> ptx_cache;

static const ptx_insn &ptx_parse(const char *text)
{
    auto it = ptx_cache.find(text);
    if (it != ptx_cache.end())
        return it->second;
    std::string t = text;
    ptx_insn in;
    auto has = [&](const char *s) { return t.find(s) != std::string::npos; };
    if (has("mma.sync.aligned.m16n8k16.row.col.f32")) {
        in.op = PTX_MMA_F32;
        in.bf16 = has(".bf16");
    } else if (has("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16")) {
        in.op = PTX_MMA_F16;
    } else if (has("ldmatrix.sync.aligned.m8n8")) {
        in.op = PTX_LDMATRIX;
        in.trans = has(".trans");
        in.count = has(".x4") ? 4 : has(".x2") ? 2 : 1;
        if (!has(".shared") || !has(".b16"))
            simt_fail("JE", "unsupported ldmatrix form: %s", text);
    } else if (has("cp.async.commit_group") || has("cp.async.wait_group") ||
               has("cp.async.wait_all")) {
        in.op = PTX_NOP;
    } else if (has("cp.async.")) {
        in.op = PTX_CP_ASYNC;
    } else if (has("ex2.approx") && has(".f32")) {
        in.op = PTX_EX2;
        in.trans = has(".ftz"); /* reused as the ftz flag */
    } else {
        simt_fail("JE", "the emulator does not know this PTX: %s", text);
    }
    for (size_t i = 0; i < t.size(); i++)
        if (t[i] == '%' && i + 1 < t.size() && isdigit((unsigned char)t[i + 1]))
            in.regs.push_back(atoi(t.c_str() + i + 1));
    if (in.op == PTX_CP_ASYNC) {
        /* cp.async.cg.shared.global [%0], [%1], 16[, %2]; the byte count is a literal */
        size_t p = t.find(']', t.find(']') + 1);
        size_t c = t.find(',', p);
        in.count = atoi(t.c_str() + c + 1);
        if (in.count != 4 && in.count != 8 && in.count != 16)
            simt_fail("JE", "cp.async byte count %d", in.count);
    }
    return ptx_cache.emplace(text, in).first->second;
}

struct ptx_operands {
    std::vector<simt_out> outs;
    std::vector<uint64_t> ins;
    size_t n_outs;
    uint64_t get(int r) const
    {
        if ((size_t)r < n_outs) {
            uint64_t v = 0;
            memcpy(&v, outs[r].p, (size_t)outs[r].size);
            return v;
        }
        return ins.at((size_t)r - n_outs);
    }
    void set32(int r, uint32_t v) const
    {
        if ((size_t)r >= n_outs)
            simt_fail("JE", "PTX writes input operand %%%d", r);
        memcpy(outs[r].p, &v, 4);
    }
};

void simt_ptx(const char *text, std::initializer_list<simt_out> outs,
              std::initializer_list<uint64_t> ins)
{
    const ptx_insn &in = ptx_parse(text);
    ptx_operands ops{std::vector<simt_out>(outs), std::vector<uint64_t>(ins), outs.size()};
    if (in.op == PTX_NOP)
        return;
    if (in.op == PTX_EX2) {
        /* the hardware's result is within 2^-22 relative; exp2f is within 2 ulp */
        uint32_t xb = (uint32_t)ops.get(in.regs[1]);
        float x, y;
        memcpy(&x, &xb, 4);
        y = exp2f(x);
        if (in.trans && std::fpclassify(y) == FP_SUBNORMAL)
            y = 0.0f;
        uint32_t yb;
        memcpy(&yb, &y, 4);
        ops.set32(in.regs[0], yb);
        return;
    }
    if (in.op == PTX_CP_ASYNC) {
        void *dst = simt_shared_ptr((unsigned)ops.get(in.regs[0]));
        const void *src = (const void *)(uintptr_t)ops.get(in.regs[1]);
        int src_bytes = in.regs.size() > 2 ? (int)ops.get(in.regs[2]) : in.count;
        if (((uintptr_t)dst % (unsigned)in.count) || ((uintptr_t)src % (unsigned)in.count))
            simt_fail("RE", "misaligned cp.async of %d bytes", in.count);
        memset(dst, 0, (size_t)in.count);
        if (src_bytes > 0)
            memcpy(dst, src, (size_t)(src_bytes < in.count ? src_bytes : in.count));
        return;
    }
    simt_warp_op op{};
    op.kind = SIMT_OP_PTX;
    op.mask = 0xffffffffu;
    op.ptx = &in;
    op.outs = (void **)&ops;
    simt_warp_collective(&op);
}

static float mma_in(uint32_t reg, int half, bool bf16)
{
    uint16_t b = (uint16_t)(reg >> (16 * half));
    return bf16 ? simt_bf2f(b) : simt_h2f(b);
}

static void ptx_warp(const ptx_insn *in, simt_warp_op **lanes)
{
    auto ops = [&](int l) -> const ptx_operands & { return *(const ptx_operands *)lanes[l]->outs; };
    if (in->op == PTX_LDMATRIX) {
        /* lanes 8i..8i+7 give the row addresses of matrix i; lane l gets, of each
         * matrix, row l/4, elements 2(l%4) and 2(l%4)+1 (transposed: column l/4) */
        uint16_t m[4][8][8];
        for (int i = 0; i < in->count; i++)
            for (int r = 0; r < 8; r++) {
                const int src = 8 * i + r;
                const uint16_t *row =
                    (const uint16_t *)simt_shared_ptr((unsigned)ops(src).get(in->regs[in->count]));
                if ((uintptr_t)row % 16)
                    simt_fail("RE", "ldmatrix row address not 16-byte aligned");
                for (int c = 0; c < 8; c++)
                    m[i][r][c] = row[c];
            }
        for (int l = 0; l < 32; l++)
            for (int i = 0; i < in->count; i++) {
                int r = l / 4, c = 2 * (l % 4);
                uint32_t v = in->trans ? ((uint32_t)m[i][c][r] | (uint32_t)m[i][c + 1][r] << 16)
                                       : ((uint32_t)m[i][r][c] | (uint32_t)m[i][r][c + 1] << 16);
                ops(l).set32(in->regs[i], v);
            }
        return;
    }
    /* mma m16n8k16, A row-major 16x16, B "col" 16x8, C/D 16x8 */
    double A[16][16], B[16][8], C[16][8];
    const bool f16acc = in->op == PTX_MMA_F16;
    const int nd = f16acc ? 2 : 4; /* D registers */
    for (int l = 0; l < 32; l++) {
        const ptx_operands &o = ops(l);
        const int g = l / 4, t = l % 4;
        uint32_t a[4], b[2];
        for (int i = 0; i < 4; i++)
            a[i] = (uint32_t)o.get(in->regs[nd + i]);
        for (int i = 0; i < 2; i++)
            b[i] = (uint32_t)o.get(in->regs[nd + 4 + i]);
        for (int h = 0; h < 2; h++) {
            A[g][2 * t + h] = mma_in(a[0], h, in->bf16);
            A[g + 8][2 * t + h] = mma_in(a[1], h, in->bf16);
            A[g][2 * t + 8 + h] = mma_in(a[2], h, in->bf16);
            A[g + 8][2 * t + 8 + h] = mma_in(a[3], h, in->bf16);
            B[2 * t + h][g] = mma_in(b[0], h, in->bf16);
            B[2 * t + 8 + h][g] = mma_in(b[1], h, in->bf16);
        }
        if (f16acc) {
            uint32_t c0 = (uint32_t)o.get(in->regs[nd + 6]), c1 = (uint32_t)o.get(in->regs[nd + 7]);
            C[g][2 * t] = mma_in(c0, 0, false);
            C[g][2 * t + 1] = mma_in(c0, 1, false);
            C[g + 8][2 * t] = mma_in(c1, 0, false);
            C[g + 8][2 * t + 1] = mma_in(c1, 1, false);
        } else {
            float c[4];
            for (int i = 0; i < 4; i++) {
                uint32_t v = (uint32_t)o.get(in->regs[nd + 6 + i]);
                memcpy(&c[i], &v, 4);
            }
            C[g][2 * t] = c[0];
            C[g][2 * t + 1] = c[1];
            C[g + 8][2 * t] = c[2];
            C[g + 8][2 * t + 1] = c[3];
        }
    }
    /* Hopper's datapath as measured by MMA-Sim (arXiv 2511.10909, Microsoft):
     * the 16 exact products and the accumulator are aligned to the largest
     * exponent and truncated to 25 fractional bits, summed exactly, then
     * truncated to fp32 (fp32 accumulators) or rounded to nearest-even fp16
     * (fp16 accumulators). */
    float D[16][8];
    uint16_t Dh[16][8];
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 8; c++) {
            double t[17];
            t[16] = C[r][c];
            for (int k = 0; k < 16; k++)
                t[k] = A[r][k] * B[k][c];
            int emax = INT32_MIN;
            for (int k = 0; k < 17; k++)
                if (t[k] != 0) {
                    int e;
                    frexp(t[k], &e);
                    emax = std::max(emax, e - 1);
                }
            double s = 0;
            if (emax != INT32_MIN) {
                const double q = ldexp(1.0, emax - 25);
                for (int k = 0; k < 17; k++)
                    s += trunc(t[k] / q) * q; /* exact: at most ~31 significant bits */
            }
            float f = (float)s;
            if (fabs((double)f) > fabs(s))
                f = nextafterf(f, 0.0f); /* truncate toward zero */
            D[r][c] = f;
            Dh[r][c] = simt_d2h(s);
        }
    for (int l = 0; l < 32; l++) {
        const ptx_operands &o = ops(l);
        const int g = l / 4, t = l % 4;
        if (f16acc) {
            o.set32(in->regs[0], (uint32_t)Dh[g][2 * t] | (uint32_t)Dh[g][2 * t + 1] << 16);
            o.set32(in->regs[1], (uint32_t)Dh[g + 8][2 * t] | (uint32_t)Dh[g + 8][2 * t + 1] << 16);
        } else {
            float d[4] = {D[g][2 * t], D[g][2 * t + 1], D[g + 8][2 * t], D[g + 8][2 * t + 1]};
            for (int i = 0; i < 4; i++) {
                uint32_t v;
                memcpy(&v, &d[i], 4);
                o.set32(in->regs[i], v);
            }
        }
    }
}
