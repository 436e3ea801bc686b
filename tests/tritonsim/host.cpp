/*
 * host.cpp - the judge's side of a Triton control judged on the CPU
 * (tests/tritonsim/run.py builds it once per problem and drives it; the
 * plan itself comes from `judged plan`).
 *
 *   host case    --problem DIR --ref reference.cu --case I [--seed S] --out DIR
 *   host compare --problem DIR --case I --dir DIR
 *   host refcost --problem DIR --ref reference.cu
 *
 * case: builds case I's reference plan, generates its inputs with the
 * judge's generator (the same bits as on the GPU for the same seed), runs
 * reference.cu on the CUDA simulator of tests/cpusim, checks its guard
 * bands and, for the problems tests/cpusim/checks.cpp knows, its outputs
 * against an independent fp64 computation; then writes into DIR, per tensor:
 * NAME.in (inputs and inouts: the bytes a submission gets, in the tensor's
 * dtype), NAME.ref (outputs: the reference's fp64 or int64 values) and
 * NAME.scale (outputs with an acc tolerance: the reference's scale S).
 *
 * compare: reads DIR/NAME.out (a submission's output bytes, in the tensor's
 * dtype) for every output and compares it with NAME.ref through the judge's
 * comparator (judge/worker/compare.h) and tolerances. Prints "ok   NAME WORST"
 * (the worst error as a fraction of its bound, or "exact") or "FAIL" and the
 * comparator's report, then "VERDICT Accepted" or "VERDICT Wrong Answer".
 *
 * refcost: per test case, the blocks and threads of the reference's launches (JSON), from
 * which run.py estimates what simulating reference.cu costs.
 *
 * Exit status: 0 when the step ran (whatever the verdict), 2 on a usage,
 * harness or reference failure (a Judge Error: never the control's fault).
 */
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

extern "C" {
#include <jansson.h>

#include "common/buf.h"
#include "plan/directive.h"
#include "common/dtype.h"
#include "common/language.h"
#include "problem/problem.h"
#include "judge/worker/compare.h"
#include "plan/plan.h"
void sim_generate(const struct gen_spec *g, unsigned long long seed, unsigned case_index, void *out,
                  long long count);
}

#include "cuda_sim.h"
#include "checks.h"

void sim_call_ref(int launch, const sim_arg *a);

static const size_t kGuard = 4096;

[[noreturn]] static void die(const std::string &msg)
{
    std::fprintf(stderr, "host: %s\n", msg.c_str());
    std::exit(2);
}

/* One device buffer of the reference: guard, data (256-byte aligned), guard. */
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

static std::string read_text(const std::string &path)
{
    FILE *f = std::fopen(path.c_str(), "rb");
    if (!f)
        die("cannot read " + path + ": " + std::strerror(errno));
    std::string s;
    char tmp[65536];
    size_t n;
    while ((n = std::fread(tmp, 1, sizeof(tmp), f)) > 0)
        s.append(tmp, n);
    std::fclose(f);
    return s;
}

static void write_file(const std::string &path, const void *data, size_t n)
{
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(data, 1, n, f) != n || std::fclose(f) != 0)
        die("cannot write " + path + ": " + std::strerror(errno));
}

/* Parses `path` as `lang`; on errors prints them as LINE:COLUMN: message and exits `status`. */
static void parse_directives(const std::string &path, enum language lang, struct directives *d,
                             int status)
{
    std::string src = read_text(path);
    struct diag_list diags = {};
    if (directives_parse_as(lang, src.data(), src.size(), d, &diags)) {
        for (size_t i = 0; i < diags.n; i++)
            std::fprintf(stderr, "%d:%d: %s\n", diags.items[i].line, diags.items[i].column,
                         diags.items[i].msg);
        std::exit(status);
    }
    diag_list_release(&diags);
}

/* Buffers of the reference's plan; inputs generated, outputs poisoned, scratch zeroed. */
static void make_buffers(const struct plan &pl, unsigned long long seed, unsigned case_index,
                         std::vector<host_buffer> &bufs)
{
    bufs.resize(pl.n_buffers);
    for (size_t b = 0; b < pl.n_buffers; b++) {
        const struct plan_buffer &pb = pl.buffers[b];
        bufs[b].init(plan_buffer_bytes(&pb));
        if (pb.role == PLAN_IN || pb.role == PLAN_INOUT) {
            struct gen_spec g = pb.gen;
            g.dtype = (uint32_t)pb.dtype; /* as the judge: the buffer's dtype (fp64 for an
                                             inout on the reference side) */
            sim_generate(&g, seed, case_index, bufs[b].p, pb.count);
        } else if (pb.role == PLAN_OUT) {
            std::memset(bufs[b].p, 0xFF, bufs[b].bytes);
        } else {
            std::memset(bufs[b].p, 0, bufs[b].bytes);
        }
    }
}

static void run_plan(const struct plan &pl, std::vector<host_buffer> &bufs)
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
        const int li = (int)l;
        sim_launch(dim3{L.grid[0], L.grid[1], L.grid[2]}, dim3{L.block[0], L.block[1], L.block[2]},
                   L.smem, [&] { sim_call_ref(li, args.data()); });
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

static int cmd_case(const struct problem *p, const std::string &ref_path, size_t ci,
                    unsigned long long seed, const std::string &out)
{
    struct directives ref_d = {};
    parse_directives(ref_path, LANG_CUDA, &ref_d, 2);
    const struct problem_case *c = &p->tests[ci];
    struct plan pl;
    char *cause = nullptr;
    if (plan_build(p, &ref_d, nullptr, c, PLAN_REFERENCE, &pl, &cause))
        die(std::string("reference plan of case ") + c->name + ": " + cause);
    std::vector<host_buffer> bufs;
    make_buffers(pl, seed, (unsigned)ci, bufs);
    std::vector<std::vector<unsigned char>> initial(pl.n_buffers);
    for (size_t b = 0; b < pl.n_buffers; b++)
        if (pl.buffers[b].role == PLAN_INOUT)
            initial[b].assign(bufs[b].p, bufs[b].p + bufs[b].bytes);
    run_plan(pl, bufs);
    for (size_t b = 0; b < pl.n_buffers; b++)
        if (!bufs[b].guards_intact())
            die(std::string("case ") + c->name + ": the reference wrote past buffer " +
                pl.buffers[b].name);
    std::map<std::string, sim_view> views;
    for (size_t b = 0; b < pl.n_buffers; b++)
        views[pl.buffers[b].name] = sim_view{bufs[b].p, pl.buffers[b].dtype, pl.buffers[b].count};
    for (size_t b = 0; b < pl.n_buffers; b++)
        if (!initial[b].empty())
            views[std::string(pl.buffers[b].name) + "@initial"] =
                sim_view{initial[b].data(), pl.buffers[b].dtype, pl.buffers[b].count};
    std::string why = sim_check_reference(p, c, views);
    if (!why.empty())
        die(std::string("case ") + c->name + ": reference.cu disagrees with the CPU: " + why);

    for (size_t t = 0; t < p->n_tensors; t++) {
        const struct tensor_spec *ts = &p->tensors[t];
        const int b = find_buffer(pl, (int)t, false);
        if (b < 0)
            die(std::string("no reference buffer for tensor ") + ts->name);
        const struct plan_buffer &pb = pl.buffers[b];
        if (ts->role != ROLE_OUT) {
            /* The submission's copy: the same generator in the tensor's own dtype. */
            struct gen_spec g = pb.gen;
            g.dtype = (uint32_t)ts->dtype;
            std::vector<unsigned char> in((size_t)pb.count * dtype_size(ts->dtype));
            sim_generate(&g, seed, (unsigned)ci, in.data(), pb.count);
            write_file(out + "/" + ts->name + ".in", in.data(), in.size());
        }
        if (ts->role != ROLE_IN) {
            write_file(out + "/" + ts->name + ".ref", bufs[b].p, bufs[b].bytes);
            const int s = find_buffer(pl, (int)t, true);
            if (s >= 0)
                write_file(out + "/" + ts->name + ".scale", bufs[s].p, bufs[s].bytes);
        }
    }
    directives_release(&ref_d);
    std::printf("case %zu %s: reference written\n", ci, c->name);
    return 0;
}

/* Per test case, the blocks and threads of the reference's launches: what its simulation costs
 * (tests/cpusim runs one OS thread per CUDA thread of a block, block after block). */
static int cmd_refcost(const struct problem *p, const std::string &ref_path)
{
    struct directives ref_d = {};
    parse_directives(ref_path, LANG_CUDA, &ref_d, 2);
    json_t *out = json_array();
    for (size_t ci = 0; ci < p->n_tests; ci++) {
        struct plan pl;
        char *cause = nullptr;
        if (plan_build(p, &ref_d, nullptr, &p->tests[ci], PLAN_REFERENCE, &pl, &cause))
            die(std::string("reference plan of case ") + p->tests[ci].name + ": " + cause);
        long long blocks = 0, threads = 0;
        for (size_t l = 0; l < pl.n_launches; l++) {
            const struct plan_launch &L = pl.launches[l];
            const long long b = (long long)L.grid[0] * L.grid[1] * L.grid[2];
            blocks += b;
            threads += b * L.block[0] * L.block[1] * L.block[2];
        }
        json_array_append_new(out, json_pack("{s:I, s:I, s:I}", "index", (json_int_t)ci, "blocks",
                                             (json_int_t)blocks, "threads", (json_int_t)threads));
    }
    char *text = json_dumps(out, JSON_COMPACT);
    std::printf("%s\n", text);
    free(text);
    json_decref(out);
    directives_release(&ref_d);
    return 0;
}

static std::vector<unsigned char> read_bytes(const std::string &path, size_t want)
{
    std::string s = read_text(path);
    if (s.size() != want)
        die(path + ": " + std::to_string(s.size()) + " bytes, expected " + std::to_string(want));
    return std::vector<unsigned char>(s.begin(), s.end());
}

static bool file_exists(const std::string &path)
{
    FILE *f = std::fopen(path.c_str(), "rb");
    if (f)
        std::fclose(f);
    return f != nullptr;
}

static int cmd_compare(const struct problem *p, size_t ci, const std::string &dir)
{
    const struct problem_case *c = &p->tests[ci];
    char *cause = nullptr;
    bool failed = false;
    for (size_t t = 0; t < p->n_tensors && !failed; t++) {
        const struct tensor_spec *ts = &p->tensors[t];
        if (ts->role == ROLE_IN)
            continue;
        int64_t dims[BW_MAX_DIMS], count = 0;
        if (problem_tensor_shape(p, t, c, dims, &cause) ||
            problem_tensor_count(p, t, c, &count, &cause))
            die(cause);
        struct compare_spec spec = {};
        spec.dtype = ts->dtype;
        spec.ref_dtype = dtype_is_float(ts->dtype) ? DTYPE_FP64 : DTYPE_INT64;
        spec.exact = ts->tol.exact;
        if (problem_tolerance(p, t, c, &spec.atol, &spec.rtol, &cause))
            die(cause);
        spec.acc = ts->tol.acc;
        spec.dims = dims;
        spec.ndim = ts->ndim;
        const std::string base = dir + "/" + ts->name;
        std::vector<unsigned char> got = read_bytes(base + ".out", count * dtype_size(ts->dtype));
        std::vector<unsigned char> ref = read_bytes(base + ".ref", count * 8);
        std::vector<unsigned char> scale;
        if (file_exists(base + ".scale"))
            scale = read_bytes(base + ".scale", count * 8);
        const double *sp = scale.empty() ? nullptr : (const double *)scale.data();
        struct compare_report rep;
        if (compare_output(&spec, got.data(), ref.data(), sp, count, &rep, &cause))
            die(std::string("compare ") + ts->name + ": " + cause);
        if (!compare_passed(&rep)) {
            struct buf text;
            buf_init(&text, 1 << 20);
            compare_report_format(&rep, ts->name, &text);
            std::printf("FAIL %s\n", text.data ? text.data : ts->name);
            buf_release(&text);
            failed = true;
            break;
        }
        if (dtype_is_float(ts->dtype) && !spec.exact) {
            /* The worst error as a fraction of its bound, over finite references. */
            const double *r = (const double *)ref.data();
            double worst = 0;
            for (int64_t i = 0; i < count; i++) {
                if (!std::isfinite(r[i]))
                    continue;
                double g = dtype_load(ts->dtype, got.data() + i * dtype_size(ts->dtype));
                double bound =
                    spec.atol + spec.rtol * std::fabs(r[i]) + (sp ? spec.acc * sp[i] : 0);
                worst = std::fmax(worst, std::fabs(g - r[i]) / bound);
            }
            std::printf("ok   %s %.3g\n", ts->name, worst);
        } else {
            std::printf("ok   %s exact\n", ts->name);
        }
    }
    std::printf("VERDICT %s\n", failed ? "Wrong Answer" : "Accepted");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        die("usage: host case|compare|refcost --problem DIR ...");
    const std::string cmd = argv[1];
    std::map<std::string, std::string> opt;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (std::strncmp(argv[i], "--", 2) != 0)
            die(std::string("unexpected argument ") + argv[i]);
        opt[argv[i] + 2] = argv[i + 1];
    }
    if (!opt.count("problem"))
        die("--problem DIR is required");
    char *cause = nullptr;
    struct problem *p = problem_load(opt["problem"].c_str(), &cause);
    if (!p)
        die(cause);
    size_t ci = 0;
    if (cmd == "case" || cmd == "compare") {
        if (!opt.count("case"))
            die("--case I is required");
        ci = std::strtoul(opt["case"].c_str(), nullptr, 10);
        if (ci >= p->n_tests)
            die("case " + opt["case"] + " out of range (" + std::to_string(p->n_tests) +
                " test cases)");
    }
    int rc;
    if (cmd == "case") {
        if (!opt.count("ref") || !opt.count("out"))
            die("case needs --ref reference.cu and --out DIR");
        unsigned long long seed =
            opt.count("seed") ? std::strtoull(opt["seed"].c_str(), nullptr, 0) : 0x5EED5EEDull;
        rc = cmd_case(p, opt["ref"], ci, seed, opt["out"]);
    } else if (cmd == "refcost") {
        if (!opt.count("ref"))
            die("refcost needs --ref reference.cu");
        rc = cmd_refcost(p, opt["ref"]);
    } else if (cmd == "compare") {
        if (!opt.count("dir"))
            die("compare needs --dir DIR");
        rc = cmd_compare(p, ci, opt["dir"]);
    } else {
        die("unknown command " + cmd + " (case, compare or refcost)");
    }
    problem_free(p);
    return rc;
}
