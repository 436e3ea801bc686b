/*
 * harness.cpp - the judge's side of a simulated run (see cuda_sim.h, run.py).
 *
 *   BIN --problem DIR --ref reference.cu --sub FILE.cu [--cases 0,3,5] [--seed S]
 *
 * Loads the problem with the judge's loader, parses both files' directives
 * and builds each case's plans with the judge's plan builder, generates the
 * inputs with the judge's generator (same bits as on the GPU for the same
 * seed), poisons outputs with 0xFF, zeroes scratch, surrounds every buffer
 * with 4 KiB guard bands, runs reference.cu's launches and then the file's on
 * the simulated GPU, and judges like the judge: a written guard band is
 * Memory Violation, a changed input Input Modified, then each output is
 * compared with the judge's comparator. The reference itself is checked
 * against an independent fp64 computation on the CPU (checks.cpp).
 *
 * Prints one line per case ("ok   NAME  O 0.12 of the bound" or the verdict
 * and the comparator's report) and a last line "VERDICT <name> (N cases)".
 * Exit status 0 when every case ran (whatever the verdict), 2 on a harness
 * or reference failure.
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

extern "C" {
#include "common/buf.h"
#include "plan/directive.h"
#include "common/dtype.h"
#include "problem/problem.h"
#include "judge/worker/compare.h"
#include "plan/plan.h"
void sim_generate(const struct gen_spec *g, unsigned long long seed, unsigned case_index, void *out,
                  long long count);
}

#include "cuda_sim.h"
#include "checks.h"

void sim_call_ref(int launch, const sim_arg *a);
void sim_call_sub(int launch, const sim_arg *a);

static const size_t kGuard = 4096;

/* One device buffer: guard, data (256-byte aligned), guard. */
struct host_buffer {
    std::vector<unsigned char> raw;
    unsigned char *p = nullptr;
    size_t bytes = 0;

    void init(size_t n)
    {
        bytes = n;
        raw.assign(n + 2 * kGuard + 256, 0xA5);
        uintptr_t base = reinterpret_cast<uintptr_t>(raw.data()) + kGuard;
        base = (base + 255) & ~uintptr_t(255);
        p = reinterpret_cast<unsigned char *>(base);
    }
    bool guards_intact() const
    {
        for (const unsigned char *q = raw.data(); q < p; q++)
            if (*q != 0xA5)
                return false;
        for (const unsigned char *q = p + bytes; q < raw.data() + raw.size(); q++)
            if (*q != 0xA5)
                return false;
        return true;
    }
};

static std::string read_text(const char *path)
{
    FILE *f = std::fopen(path, "rb");
    if (!f) {
        std::fprintf(stderr, "cannot read %s\n", path);
        std::exit(2);
    }
    std::string s;
    char tmp[65536];
    size_t n;
    while ((n = std::fread(tmp, 1, sizeof(tmp), f)) > 0)
        s.append(tmp, n);
    std::fclose(f);
    return s;
}

static void parse_directives(const char *path, struct directives *d)
{
    std::string src = read_text(path);
    struct diag_list diags = {};
    if (directives_parse(src.data(), src.size(), d, &diags)) {
        for (size_t i = 0; i < diags.n; i++)
            std::fprintf(stderr, "%s:%d:%d: %s\n", path, diags.items[i].line, diags.items[i].column,
                         diags.items[i].msg);
        std::exit(2);
    }
    diag_list_release(&diags);
}

/* Buffers of one side's plan; inputs generated, outputs poisoned. */
static void make_buffers(const struct plan &pl, unsigned long long seed, unsigned case_index,
                         std::vector<host_buffer> &bufs)
{
    bufs.resize(pl.n_buffers);
    for (size_t b = 0; b < pl.n_buffers; b++) {
        const struct plan_buffer &pb = pl.buffers[b];
        bufs[b].init(plan_buffer_bytes(&pb));
        if (pb.role == PLAN_IN || pb.role == PLAN_INOUT) {
            struct gen_spec g = pb.gen;
            g.dtype =
                (uint32_t)
                    pb.dtype; /* as the judge: the buffer's dtype (fp64 on the reference side) */
            sim_generate(&g, seed, case_index, bufs[b].p, pb.count);
        } else if (pb.role == PLAN_OUT) {
            std::memset(bufs[b].p, 0xFF, bufs[b].bytes);
        } else {
            std::memset(bufs[b].p, 0, bufs[b].bytes);
        }
    }
}

static void run_plan(const struct plan &pl, std::vector<host_buffer> &bufs,
                     void (*call)(int, const sim_arg *), int first_launch = 0)
{
    for (size_t l = 0; l < pl.n_launches; l++) {
        const struct plan_launch &L = pl.launches[l];
        std::vector<sim_arg> args(L.n_args);
        for (size_t a = 0; a < L.n_args; a++) {
            const struct plan_arg &pa = L.args[a];
            switch (pa.kind) {
            case PLAN_ARG_BUF:
                args[a].p = bufs[pa.buf].p;
                break;
            case PLAN_ARG_F32:
            case PLAN_ARG_F64:
                args[a].f = pa.f;
                break;
            default:
                args[a].i = pa.i;
                break;
            }
        }
        const int li = first_launch + (int)l;
        sim_launch(dim3{L.grid[0], L.grid[1], L.grid[2]}, dim3{L.block[0], L.block[1], L.block[2]},
                   L.smem, [&] { call(li, args.data()); });
    }
}

static int find_buffer(const struct plan &pl, int tensor, bool scale)
{
    for (size_t b = 0; b < pl.n_buffers; b++)
        if (pl.buffers[b].tensor == tensor && pl.buffers[b].is_scale == scale &&
            pl.buffers[b].role != PLAN_SCRATCH)
            return (int)b;
    return -1;
}

/* The reference's @rows kernel on some rows (the first, the last and others
 * spread between) must give the full reference's values there, within 1e-12
 * relative (what BLOCKWISE_CHECK_ROWS=1 asks on the GPU). */
static bool rows_agree(const struct problem *p, const struct directives *d,
                       const struct problem_case *c, const struct plan &full,
                       const std::vector<host_buffer> &fb, unsigned long long seed,
                       unsigned case_index, std::string &note)
{
    char *cause = nullptr;
    int64_t R = 0;
    if (plan_rows_count(p, d, c, &R, &cause)) {
        std::printf("JE   %s: @rows: %s\n", c->name, cause);
        return false;
    }
    std::vector<int64_t> rows;
    for (int64_t k = 0; k < 17 && k < R; k++)
        rows.push_back(R <= 17 ? k : k * (R - 1) / 16);
    struct plan pl;
    if (plan_build_rows(p, d, c, (int64_t)rows.size(), &pl, &R, &cause)) {
        std::printf("JE   %s: @rows plan: %s\n", c->name, cause);
        return false;
    }
    std::vector<host_buffer> rb;
    make_buffers(pl, seed, case_index, rb);
    for (size_t b = 0; b < pl.n_buffers; b++)
        if (pl.buffers[b].role == PLAN_DATA)
            std::memcpy(rb[b].p, rows.data(), rows.size() * sizeof(int64_t));
    run_plan(pl, rb, sim_call_ref, (int)d->n_launches);
    for (size_t b = 0; b < full.n_buffers; b++) {
        const struct plan_buffer &pb = full.buffers[b];
        if (pb.role != PLAN_OUT || pb.dtype != DTYPE_FP64)
            continue;
        const double *want = (const double *)fb[b].p, *got = (const double *)rb[b].p;
        const int64_t len = pb.count / R;
        for (int64_t r : rows)
            for (int64_t e = r * len; e < (r + 1) * len; e++) {
                double a = got[e], w = want[e];
                if (a == w || (a != a && w != w))
                    continue;
                if (!(std::fabs(a - w) <= 1e-12 * std::fmax(1.0, std::fabs(w)))) {
                    std::printf("JE   %s: @rows disagrees with the full reference: %s[%lld] = "
                                "%.17g, full %.17g (row %lld)\n",
                                c->name, pb.name, (long long)e, a, w, (long long)r);
                    return false;
                }
            }
    }
    note = "; @rows agrees on " + std::to_string(rows.size()) + " rows";
    return true;
}

int main(int argc, char **argv)
{
    const char *dir = nullptr, *ref_path = nullptr, *sub_path = nullptr, *cases_arg = nullptr;
    unsigned long long seed = 0x5EED5EEDull;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string k = argv[i];
        if (k == "--problem")
            dir = argv[i + 1];
        else if (k == "--ref")
            ref_path = argv[i + 1];
        else if (k == "--sub")
            sub_path = argv[i + 1];
        else if (k == "--cases")
            cases_arg = argv[i + 1];
        else if (k == "--seed")
            seed = std::strtoull(argv[i + 1], nullptr, 0);
    }
    if (!dir || !ref_path || !sub_path) {
        std::fprintf(stderr,
                     "usage: %s --problem DIR --ref FILE --sub FILE [--cases LIST] [--seed S]\n",
                     argv[0]);
        return 2;
    }
    char *cause = nullptr;
    struct problem *p = problem_load(dir, &cause);
    if (!p) {
        std::fprintf(stderr, "%s\n", cause);
        return 2;
    }
    struct directives ref_d = {}, sub_d = {};
    parse_directives(ref_path, &ref_d);
    parse_directives(sub_path, &sub_d);

    std::vector<size_t> cases;
    if (cases_arg) {
        for (const char *q = cases_arg; *q;) {
            char *end;
            cases.push_back(std::strtoul(q, &end, 10));
            q = *end ? end + 1 : end;
        }
    } else {
        for (size_t i = 0; i < p->n_tests; i++)
            cases.push_back(i);
    }

    std::string verdict = "Accepted";
    size_t ran = 0;
    for (size_t ci : cases) {
        const struct problem_case *c = &p->tests[ci];
        struct plan ref_pl, sub_pl;
        if (plan_build(p, &ref_d, nullptr, c, PLAN_REFERENCE, &ref_pl, &cause)) {
            std::printf("JE   %s: reference plan: %s\n", c->name, cause);
            return 2;
        }
        if (plan_build(p, &sub_d, nullptr, c, PLAN_SUBMISSION, &sub_pl, &cause)) {
            std::printf("RE   %s: plan: %s\n", c->name, cause);
            verdict = "Runtime Error";
            break;
        }
        std::vector<host_buffer> rb, sb;
        make_buffers(ref_pl, seed, (unsigned)ci, rb);
        make_buffers(sub_pl, seed, (unsigned)ci, sb);
        std::vector<std::vector<unsigned char>> inputs(sub_pl.n_buffers);
        for (size_t b = 0; b < sub_pl.n_buffers; b++)
            if (sub_pl.buffers[b].role == PLAN_IN)
                inputs[b].assign(sb[b].p, sb[b].p + sb[b].bytes);

        std::vector<std::vector<unsigned char>> initial(ref_pl.n_buffers);
        for (size_t b = 0; b < ref_pl.n_buffers; b++)
            if (ref_pl.buffers[b].role == PLAN_INOUT)
                initial[b].assign(rb[b].p, rb[b].p + rb[b].bytes);
        run_plan(ref_pl, rb, sim_call_ref);
        for (size_t b = 0; b < ref_pl.n_buffers; b++)
            if (!rb[b].guards_intact()) {
                std::printf("JE   %s: reference wrote past buffer %s\n", c->name,
                            ref_pl.buffers[b].name);
                return 2;
            }
        std::map<std::string, sim_view> views;
        for (size_t b = 0; b < ref_pl.n_buffers; b++)
            views[ref_pl.buffers[b].name] =
                sim_view{rb[b].p, ref_pl.buffers[b].dtype, ref_pl.buffers[b].count};
        for (size_t b = 0; b < ref_pl.n_buffers; b++)
            if (!initial[b].empty())
                views[std::string(ref_pl.buffers[b].name) + "@initial"] =
                    sim_view{initial[b].data(), ref_pl.buffers[b].dtype, ref_pl.buffers[b].count};
        std::string why = sim_check_reference(p, c, views);
        if (!why.empty()) {
            std::printf("JE   %s: reference.cu disagrees with the CPU: %s\n", c->name, why.c_str());
            return 2;
        }
        std::string rows_note;
        if (ref_d.rows && !rows_agree(p, &ref_d, c, ref_pl, rb, seed, (unsigned)ci, rows_note))
            return 2;

        run_plan(sub_pl, sb, sim_call_sub);
        ran++;
        std::string fail, notes;
        for (size_t b = 0; b < sub_pl.n_buffers && fail.empty(); b++)
            if (!sb[b].guards_intact()) {
                fail = "Memory Violation";
                notes = std::string("guard band of ") + sub_pl.buffers[b].name + " written";
            }
        for (size_t b = 0; b < sub_pl.n_buffers && fail.empty(); b++)
            if (sub_pl.buffers[b].role == PLAN_IN &&
                std::memcmp(inputs[b].data(), sb[b].p, sb[b].bytes) != 0) {
                fail = "Input Modified";
                notes = std::string("input ") + sub_pl.buffers[b].name + " changed";
            }
        for (size_t t = 0; t < p->n_tensors && fail.empty(); t++) {
            const struct tensor_spec *ts = &p->tensors[t];
            if (ts->role == ROLE_IN)
                continue;
            int sbi = find_buffer(sub_pl, (int)t, false), rbi = find_buffer(ref_pl, (int)t, false);
            int sci = find_buffer(ref_pl, (int)t, true);
            struct compare_spec spec = {};
            int64_t dims[BW_MAX_DIMS];
            problem_tensor_shape(p, t, c, dims, &cause);
            spec.dtype = ts->dtype;
            spec.ref_dtype = dtype_is_float(ts->dtype) ? DTYPE_FP64 : DTYPE_INT64;
            spec.exact = ts->tol.exact;
            problem_tolerance(p, t, c, &spec.atol, &spec.rtol, &cause);
            spec.acc = ts->tol.acc;
            spec.dims = dims;
            spec.ndim = ts->ndim;
            const double *scale = sci >= 0 ? (const double *)rb[sci].p : nullptr;
            struct compare_report rep;
            const int64_t count = sub_pl.buffers[sbi].count;
            if (compare_output(&spec, sb[sbi].p, rb[rbi].p, scale, count, &rep, &cause)) {
                std::printf("JE   %s: compare %s: %s\n", c->name, ts->name, cause);
                return 2;
            }
            if (!compare_passed(&rep)) {
                struct buf out;
                buf_init(&out, 1 << 20);
                compare_report_format(&rep, ts->name, &out);
                fail = "Wrong Answer";
                notes = std::string(out.data ? out.data : "");
                buf_release(&out);
                break;
            }
            /* Worst error as a fraction of the bound, over finite elements. */
            double worst = 0;
            if (dtype_is_float(ts->dtype) && !spec.exact) {
                const double *r = (const double *)rb[rbi].p;
                for (int64_t i = 0; i < count; i++) {
                    double g = dtype_load(ts->dtype, sb[sbi].p + i * dtype_size(ts->dtype));
                    if (!std::isfinite(r[i]))
                        continue;
                    double bound = spec.atol + spec.rtol * std::fabs(r[i]) +
                                   (scale ? spec.acc * scale[i] : 0.0);
                    worst = std::fmax(worst, std::fabs(g - r[i]) / bound);
                }
                char tmp[96];
                std::snprintf(tmp, sizeof(tmp), " %s %.3g", ts->name, worst);
                notes += tmp;
            } else {
                notes += std::string(" ") + ts->name + " exact";
            }
        }
        if (!fail.empty()) {
            std::printf("FAIL %s: %s: %s\n", c->name, fail.c_str(), notes.c_str());
            verdict = fail;
            break;
        }
        std::printf("ok   %s:%s%s\n", c->name, notes.c_str(), rows_note.c_str());
        std::fflush(stdout);
    }
    std::printf("VERDICT %s (%zu cases)\n", verdict.c_str(), ran);
    return 0;
}
