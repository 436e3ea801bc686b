/* Tests of judge/build_cache: builds kept by the SHA-256 of their request. */
#include "tests/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/limits.h"
#include "judge/worker/build_cache.h"
#include "judge/worker/triton_key.h"
#include "common/banned.h"

/* A request for `source` with one option (*opt, the caller's storage) or none. */
static struct compile_request request(const char *source, const char *const *opt)
{
    struct compile_request rq = {.source = source, .len = strlen(source), .arch = "sm_90a"};

    rq.options = opt;
    rq.n_options = opt ? 1 : 0;
    return rq;
}

static struct compile_result built(const char *log, bool ok)
{
    struct compile_result r = {.ok = ok, .ms = 80};

    r.log = strdup(log);
    if (ok) {
        r.cubin = malloc(4);
        memcpy(r.cubin,
               "\x7f"
               "ELF",
               4);
        r.cubin_len = 4;
        r.ptx = strdup(".entry k()");
        r.kernels = calloc(1, sizeof(*r.kernels));
        r.kernels[0].name = strdup("k");
        r.kernels[0].registers = 16;
        r.n_kernels = 1;
    } else {
        diag_list_addf(&r.diags, 3, 7, "error: expected a \";\"");
    }
    return r;
}

TEST(build_cache_key_changes_with_every_field)
{
    const char *o128[] = {"-DBLOCK=128"}, *o256[] = {"-DBLOCK=256"};
    struct compile_request a = request("int x;", o128);
    struct compile_request b = request("int x;", o256);
    struct compile_request c = request("int y;", o128);
    char ka[65], kb[65], kc[65], ka2[65], kd[65];

    build_cache_key(&a, ka);
    build_cache_key(&b, kb);
    build_cache_key(&c, kc);
    build_cache_key(&a, ka2);
    CHECK_STR_EQ(ka, ka2);
    CHECK(strcmp(ka, kb) != 0 && strcmp(ka, kc) != 0);
    a.arch = "sm_80";
    build_cache_key(&a, kd);
    CHECK(strcmp(ka, kd) != 0);
    a.arch = "sm_90a";
    a.no_sandbox = true;
    build_cache_key(&a, kd);
    CHECK(strcmp(ka, kd) != 0);
    CHECK_INT_EQ(strlen(ka), 64);
}

TEST(build_cache_returns_a_deep_copy)
{
    struct build_cache *c = build_cache_new();
    struct compile_request rq = request("int x;", NULL);
    struct compile_result r = built("log", true), got;
    unsigned long hits, misses;
    char key[65];

    build_cache_key(&rq, key);
    CHECK(!build_cache_get(c, key, &got));
    build_cache_put(c, key, &r);
    compile_result_release(&r); /* the cache kept its own copy */
    CHECK(build_cache_get(c, key, &got));
    CHECK(got.ok && got.from_cache && got.cubin_len == 4 &&
          memcmp(got.cubin,
                 "\x7f"
                 "ELF",
                 4) == 0);
    CHECK_STR_EQ(got.ptx, ".entry k()");
    CHECK_STR_EQ(got.log, "log");
    CHECK(got.n_kernels == 1 && strcmp(got.kernels[0].name, "k") == 0 &&
          got.kernels[0].registers == 16);
    compile_result_release(&got);
    build_cache_counts(c, &hits, &misses);
    CHECK_INT_EQ(hits, 1);
    CHECK_INT_EQ(misses, 1);
    build_cache_free(c);
}

TEST(build_cache_keeps_errors_but_not_limit_failures)
{
    struct build_cache *c = build_cache_new();
    struct compile_request a = request("int x", NULL), b = request("template bomb", NULL);
    struct compile_result ce = built("error", false), tle = built("", false), got;
    char ka[65], kb[65];

    build_cache_key(&a, ka);
    build_cache_key(&b, kb);
    build_cache_put(c, ka, &ce);
    CHECK(build_cache_get(c, ka, &got));
    CHECK(!got.ok && got.diags.n == 1 && got.diags.items[0].line == 3 &&
          got.diags.items[0].column == 7);
    compile_result_release(&got);
    tle.failure = strdup("compilation exceeded the time limit of 30 s");
    build_cache_put(c, kb, &tle);
    CHECK(!build_cache_get(c, kb, &got)); /* the machine's load may have decided it */
    compile_result_release(&ce);
    compile_result_release(&tle);
    build_cache_free(c);
}

TEST(build_cache_evicts_the_least_recently_used)
{
    struct build_cache *c = build_cache_new();
    char keys[BW_BUILD_CACHE_ENTRIES + 1][65], src[32];
    struct compile_result got;

    for (int i = 0; i <= BW_BUILD_CACHE_ENTRIES; i++) {
        struct compile_result r = built("log", true);
        struct compile_request rq;
        snprintf(src, sizeof(src), "int x%d;", i);
        rq = request(src, NULL);
        build_cache_key(&rq, keys[i]);
        if (i == BW_BUILD_CACHE_ENTRIES) { /* full: use the oldest again, so the next goes */
            CHECK(build_cache_get(c, keys[0], &got));
            compile_result_release(&got);
        }
        build_cache_put(c, keys[i], &r);
        compile_result_release(&r);
    }
    CHECK(build_cache_get(c, keys[0], &got));
    compile_result_release(&got);
    CHECK(!build_cache_get(c, keys[1], &got));
    CHECK(build_cache_get(c, keys[BW_BUILD_CACHE_ENTRIES], &got));
    compile_result_release(&got);
    build_cache_free(c);
}

/* One Triton build of kernel "k" (n kept, equal to 1 elsewhere), of about `bytes` bytes. */
static struct triton_build triton_built(size_t bytes)
{
    struct triton_build b = {.ok = true, .num_warps = 4, .shared = 1024};

    b.cubin = calloc(bytes > 4 ? bytes + 1 : 5, 1);
    memcpy(b.cubin,
           "\x7f"
           "ELF",
           4);
    b.cubin_len = bytes > 4 ? bytes : 4;
    b.ptx = strdup(".entry k()");
    b.name = strdup("k");
    b.params = calloc(2, sizeof(*b.params));
    b.params[1] = 1;
    b.param_types = calloc(2, sizeof(*b.param_types));
    b.param_types[0] = strdup("*fp32");
    b.param_types[1] = strdup("i32");
    b.n_params = 2;
    return b;
}

TEST(triton_builds_are_kept_apart_from_nvrtc_builds)
{
    struct build_cache *c = build_cache_new();
    struct triton_build t = triton_built(4), got;
    struct compile_result cr;
    char key[65], key2[65];

    memset(key, 'a', 64);
    key[64] = '\0';
    memset(key2, 'b', 64);
    key2[64] = '\0';
    CHECK(!build_cache_get_triton(c, key, &got));
    build_cache_put_triton(c, key, &t);
    CHECK(!build_cache_get(c, key, &cr)); /* the entry is a Triton one: no NVRTC build */
    compile_result_release(&cr);
    CHECK(build_cache_get_triton(c, key, &got));
    CHECK(got.ok && got.cubin != t.cubin); /* a deep copy */
    CHECK_INT_EQ(got.cubin_len, 4);
    CHECK_STR_EQ(got.name, "k");
    CHECK_INT_EQ(got.n_params, 2);
    CHECK_STR_EQ(got.param_types[1], "i32");
    CHECK_INT_EQ(got.shared, 1024);
    triton_build_release(&got);
    /* Only builds that built are kept: an error's diagnostics belong to its request. */
    t.ok = false;
    build_cache_put_triton(c, key2, &t);
    CHECK(!build_cache_get_triton(c, key2, &got));
    triton_build_release(&t);
    build_cache_free(c);
}

TEST(build_cache_is_bounded_in_bytes)
{
    struct build_cache *c = build_cache_new();
    size_t each = BW_BUILD_CACHE_BYTES / 4, entries, bytes;
    char keys[6][65];
    struct triton_build got;

    for (int i = 0; i < 6; i++) {
        struct triton_build b = triton_built(each);
        memset(keys[i], 'a' + i, 64);
        keys[i][64] = '\0';
        if (i >= 3) { /* full: keep using the first, so the others go, oldest first */
            CHECK(build_cache_get_triton(c, keys[0], &got));
            triton_build_release(&got);
        }
        build_cache_put_triton(c, keys[i], &b);
        triton_build_release(&b);
        build_cache_size(c, &entries, &bytes);
        CHECK_MSG(bytes <= BW_BUILD_CACHE_BYTES, "%zu bytes kept, over %d", bytes,
                  BW_BUILD_CACHE_BYTES);
    }
    CHECK_INT_EQ(entries, 3); /* each costs a little more than a quarter */
    CHECK(build_cache_get_triton(c, keys[0], &got));
    triton_build_release(&got);
    CHECK(!build_cache_get_triton(c, keys[1], &got));
    CHECK(!build_cache_get_triton(c, keys[2], &got));
    CHECK(!build_cache_get_triton(c, keys[3], &got));
    CHECK(build_cache_get_triton(c, keys[5], &got));
    triton_build_release(&got);
    build_cache_free(c);
}

TEST(launcher_builds_are_listed_by_module)
{
    struct build_cache *c = build_cache_new();
    struct cached_variant got[4];
    struct triton_build b = triton_built(8), one;
    char m1[65], m2[65], key[65];
    unsigned long hits, misses;
    size_t n;

    memset(m1, '1', 64);
    m1[64] = '\0';
    memset(m2, '2', 64);
    m2[64] = '\0';
    build_cache_put_variant(c, m1, "k(*fp32:D)[B=1]{4,3,0}", &b);
    build_cache_put_variant(c, m1, "k(*fp32:D)[B=2]{4,3,0}", &b);
    build_cache_put_variant(c, m2, "k(*fp32:D)[B=1]{4,3,0}", &b);
    b.ok = false; /* never kept */
    build_cache_put_variant(c, m1, "k(*fp32:D)[B=3]{4,3,0}", &b);
    b.ok = true;
    n = build_cache_get_variants(c, m1, got, 4);
    CHECK_INT_EQ(n, 2);
    if (n == 2) { /* the most recently used first; deep copies */
        CHECK_STR_EQ(got[0].variant, "k(*fp32:D)[B=2]{4,3,0}");
        CHECK_STR_EQ(got[1].variant, "k(*fp32:D)[B=1]{4,3,0}");
        CHECK(got[0].build.ok && got[0].build.cubin != b.cubin && got[0].build.cubin_len == 8);
    }
    for (size_t i = 0; i < n; i++)
        cached_variant_release(&got[i]);
    /* a use makes it the most recent, and counts as a hit */
    build_cache_touch_variant(c, m1, "k(*fp32:D)[B=1]{4,3,0}");
    n = build_cache_get_variants(c, m1, got, 1);
    CHECK(n == 1 && strcmp(got[0].variant, "k(*fp32:D)[B=1]{4,3,0}") == 0);
    for (size_t i = 0; i < n; i++)
        cached_variant_release(&got[i]);
    build_cache_counts(c, &hits, &misses);
    CHECK(hits == 1 && misses == 0);
    /* the other module's, and its key as the directive path's look-up would make it */
    CHECK_INT_EQ(build_cache_get_variants(c, m2, got, 4), 1);
    cached_variant_release(&got[0]);
    triton_key_variant(m2, "k(*fp32:D)[B=1]{4,3,0}", key);
    CHECK(build_cache_get_triton(c, key, &one));
    triton_build_release(&one);
    memset(key, '3', 64); /* a module with none */
    CHECK_INT_EQ(build_cache_get_variants(c, key, got, 4), 0);
    triton_build_release(&b);
    build_cache_free(c);
}
