/* Tests of judge/compare: element rules, reports, text and JSON; default tolerances. */
#include "tests/test.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/buf.h"
#include "common/dtype.h"
#include "common/error.h"
#include "judge/worker/compare.h"
#include "problem/problem.h"
#include "common/banned.h"

static struct compare_spec fp32_spec(double atol, double rtol)
{
    struct compare_spec s = {
        .dtype = DTYPE_FP32, .ref_dtype = DTYPE_FP64, .atol = atol, .rtol = rtol};
    return s;
}

static void poison(void *p, size_t bytes)
{
    memset(p, 0xFF, bytes);
}

TEST(compare_all_equal_passes)
{
    float got[4] = {1, -2, 0.5f, 0};
    double ref[4] = {1, -2, 0.5, 0};
    struct compare_spec s = fp32_spec(1e-5, 1.3e-6);
    struct compare_report r;
    CHECK_INT_EQ(compare_output(&s, got, ref, NULL, 4, &r, NULL), BW_OK);
    CHECK(compare_passed(&r));
    CHECK_INT_EQ(r.count, 4);
    CHECK_INT_EQ(r.checked, 4);
    CHECK_INT_EQ(r.mismatches, 0);
    CHECK_INT_EQ(r.n_shown, 0);
    CHECK(r.max_abs_err == 0);
    CHECK_INT_EQ(r.max_abs_at, 0); /* the first element attains the maximum 0 */
}

TEST(compare_tolerance_boundary)
{
    /* bound = atol + rtol*|r| = 0.5 + 0.25*2 = 1: |g - r| == 1 passes, more fails */
    double ref[3] = {2, 2, -2};
    float got[3] = {3, 3.0000002f, -1};
    struct compare_spec s = fp32_spec(0.5, 0.25);
    struct compare_report r;
    CHECK_INT_EQ(compare_output(&s, got, ref, NULL, 3, &r, NULL), BW_OK);
    CHECK_INT_EQ(r.mismatches, 1);
    CHECK_INT_EQ(r.first[0].flat, 1);
    CHECK_STR_EQ(compare_reason_text(r.first[0].reason), "outside tolerance");
    CHECK(r.first[0].expected.f == 2.0);
    CHECK(r.first[0].got.f == (double)3.0000002f);
    CHECK(fabs(r.first[0].abs_err - ((double)3.0000002f - 2)) < 1e-15);
    CHECK(r.first[0].rel_err == r.first[0].abs_err / 2);
}

TEST(compare_nan_and_inf_positions_and_signs)
{
    double ref[10] = {NAN, NAN, INFINITY, INFINITY, -INFINITY, -INFINITY, 1, 1, 1, INFINITY};
    float got[10] = {-NAN, 1, INFINITY, -INFINITY, -INFINITY, 5, NAN, INFINITY, -INFINITY, NAN};
    struct compare_spec s = fp32_spec(1e-5, 1e-5);
    struct compare_report r;
    CHECK_INT_EQ(compare_output(&s, got, ref, NULL, 10, &r, NULL), BW_OK);
    /* passes: 0 (NaN matches any NaN), 2, 4 */
    CHECK_INT_EQ(r.mismatches, 7);
    CHECK_INT_EQ(r.n_shown, BW_MISMATCHES_SHOWN);
    static const struct {
        int64_t flat;
        const char *reason;
    } want[] = {{1, "expected NaN"},
                {3, "expected +inf"},
                {5, "expected -inf"},
                {6, "got NaN"},
                {7, "got +inf"}};
    for (int k = 0; k < 5; k++) {
        CHECK_INT_EQ(r.first[k].flat, want[k].flat);
        CHECK_STR_EQ(compare_reason_text(r.first[k].reason), want[k].reason);
    }
    CHECK(isinf(r.first[1].abs_err));
    CHECK(isnan(r.first[0].abs_err));
    /* the unlisted ones still count; 8 is "got -inf", 9 "expected +inf" */
    float g2[1] = {-INFINITY};
    double r2[1] = {1};
    CHECK_INT_EQ(compare_output(&s, g2, r2, NULL, 1, &r, NULL), BW_OK);
    CHECK_STR_EQ(compare_reason_text(r.first[0].reason), "got -inf");
    /* max errors skip non-finite elements */
    CHECK(r.max_abs_at == -1 && r.max_abs_err == 0);
}

TEST(compare_negative_zero)
{
    double ref[2] = {0.0, -0.0};
    float got[2] = {-0.0f, 0.0f};
    struct compare_spec s = fp32_spec(0, 0);
    struct compare_report r;
    CHECK_INT_EQ(compare_output(&s, got, ref, NULL, 2, &r, NULL), BW_OK);
    CHECK(compare_passed(&r));
    s.exact = true;
    CHECK_INT_EQ(compare_output(&s, got, ref, NULL, 2, &r, NULL), BW_OK);
    CHECK(compare_passed(&r));
    CHECK(r.max_rel_at == -1); /* a zero reference has no relative error */
}

TEST(compare_poison_detection)
{
    float got[4] = {1, 2, 3, 4};
    double ref[4] = {1, 2, INFINITY, NAN};
    poison(&got[1], 4);
    poison(&got[2], 4);
    poison(&got[3], 4);
    struct compare_spec s = fp32_spec(1e-5, 1e-5);
    struct compare_report r;
    CHECK_INT_EQ(compare_output(&s, got, ref, NULL, 4, &r, NULL), BW_OK);
    /* poison is caught where a value, an infinity and a NaN are expected:
     * an unwritten element never passes as "NaN matches NaN" */
    CHECK_INT_EQ(r.mismatches, 3);
    CHECK_INT_EQ(r.unwritten, 3); /* every mismatch is an unwritten element */
    CHECK_STR_EQ(compare_reason_text(r.first[0].reason), "not written (poison)");
    CHECK_INT_EQ(r.first[0].flat, 1);
    CHECK_STR_EQ(compare_reason_text(r.first[1].reason), "not written (poison)");
    CHECK_STR_EQ(compare_reason_text(r.first[2].reason), "not written (poison)");
    CHECK_INT_EQ(r.first[2].flat, 3);
    CHECK(isnan(r.first[0].got.f));
    /* any other NaN bit pattern (the GPU's canonical 0x7FFFFFFF, a copied
     * input's 0x7FC00000, a negated 0xFFC00000) matches an expected NaN */
    uint32_t nans[3] = {0x7FFFFFFFu, 0x7FC00000u, 0xFFC00000u};
    double nan_refs[3] = {NAN, NAN, NAN};
    CHECK_INT_EQ(compare_output(&s, nans, nan_refs, NULL, 3, &r, NULL), BW_OK);
    CHECK(compare_passed(&r));
    /* a NaN that is not the poison pattern is reported as NaN */
    float nan_got = NAN;
    CHECK_INT_EQ(compare_output(&s, &nan_got, ref, NULL, 1, &r, NULL), BW_OK);
    CHECK_STR_EQ(compare_reason_text(r.first[0].reason), "got NaN");
    CHECK_INT_EQ(r.unwritten, 0);
    /* fp16, bf16 and fp64 poison */
    uint16_t h = 0xFFFF;
    double one = 1;
    struct compare_spec s16 = {.dtype = DTYPE_FP16, .ref_dtype = DTYPE_FP64, .rtol = 1e-3};
    CHECK_INT_EQ(compare_output(&s16, &h, &one, NULL, 1, &r, NULL), BW_OK);
    CHECK_STR_EQ(compare_reason_text(r.first[0].reason), "not written (poison)");
    s16.dtype = DTYPE_BF16;
    CHECK_INT_EQ(compare_output(&s16, &h, &one, NULL, 1, &r, NULL), BW_OK);
    CHECK_STR_EQ(compare_reason_text(r.first[0].reason), "not written (poison)");
    uint64_t d = UINT64_MAX;
    s16.dtype = DTYPE_FP64;
    CHECK_INT_EQ(compare_output(&s16, &d, &one, NULL, 1, &r, NULL), BW_OK);
    CHECK_STR_EQ(compare_reason_text(r.first[0].reason), "not written (poison)");
    /* integers have no poison reason: 0xFF.. is -1, a plain wrong value */
    int32_t i = -1;
    int64_t want = 7;
    struct compare_spec si = {.dtype = DTYPE_INT32, .ref_dtype = DTYPE_INT64};
    CHECK_INT_EQ(compare_output(&si, &i, &want, NULL, 1, &r, NULL), BW_OK);
    CHECK_STR_EQ(compare_reason_text(r.first[0].reason), "not equal");
}

TEST(compare_fp16_and_bf16_outputs)
{
    /* fp16 ref 1/3: nearest fp16 0x3555 = 0.333251953125, error 8.1e-5 */
    double ref = 1.0 / 3.0;
    uint16_t h = 0x3555;
    struct compare_spec s = {.dtype = DTYPE_FP16, .ref_dtype = DTYPE_FP64};
    dtype_default_tolerance(DTYPE_FP16, &s.atol, &s.rtol);
    struct compare_report r;
    CHECK_INT_EQ(compare_output(&s, &h, &ref, NULL, 1, &r, NULL), BW_OK);
    CHECK(compare_passed(&r));
    CHECK(fabs(r.max_abs_err - fabs(0.333251953125 - ref)) < 1e-18);
    h = 0x3556; /* one ulp off: error 1.6e-4 <= 1e-5 + 1e-3/3 = 3.43e-4 */
    CHECK_INT_EQ(compare_output(&s, &h, &ref, NULL, 1, &r, NULL), BW_OK);
    CHECK(compare_passed(&r));
    h = 0x3558; /* three ulps off: error 6.5e-4 fails */
    CHECK_INT_EQ(compare_output(&s, &h, &ref, NULL, 1, &r, NULL), BW_OK);
    CHECK_INT_EQ(r.mismatches, 1);
    CHECK(r.first[0].got.f == (double)fp16_to_float(0x3558));
    /* exact fp16: only the correctly rounded value passes */
    s.exact = true;
    h = 0x3555;
    CHECK_INT_EQ(compare_output(&s, &h, &ref, NULL, 1, &r, NULL), BW_OK);
    CHECK(compare_passed(&r));
    h = 0x3556;
    CHECK_INT_EQ(compare_output(&s, &h, &ref, NULL, 1, &r, NULL), BW_OK);
    CHECK_INT_EQ(r.mismatches, 1);
    CHECK_STR_EQ(compare_reason_text(r.first[0].reason), "not equal");
    CHECK(r.first[0].rounded == 0.333251953125);
    /* exact: a reference beyond fp16's range rounds to inf, so inf is right */
    double big = 70000;
    h = 0x7C00;
    CHECK_INT_EQ(compare_output(&s, &h, &big, NULL, 1, &r, NULL), BW_OK);
    CHECK(compare_passed(&r));
    h = 0x7BFF;
    CHECK_INT_EQ(compare_output(&s, &h, &big, NULL, 1, &r, NULL), BW_OK);
    CHECK_STR_EQ(compare_reason_text(r.first[0].reason), "expected +inf");
    /* bf16 with its default tolerance: 1.6e-2 relative */
    struct compare_spec sb = {.dtype = DTYPE_BF16, .ref_dtype = DTYPE_FP64};
    dtype_default_tolerance(DTYPE_BF16, &sb.atol, &sb.rtol);
    uint16_t b[2] = {float_to_bf16(100.0f), float_to_bf16(102.0f)};
    double rb[2] = {101.5, 100};
    CHECK_INT_EQ(compare_output(&sb, b, rb, NULL, 2, &r, NULL), BW_OK);
    /* |100 - 101.5| = 1.5 <= 1e-5 + 0.016*101.5; |102 - 100| = 2 > 1e-5 + 1.6 */
    CHECK_INT_EQ(r.mismatches, 1);
    CHECK_INT_EQ(r.first[0].flat, 1);
}

TEST(compare_bf16_fails_outside)
{
    struct compare_spec sb = {.dtype = DTYPE_BF16, .ref_dtype = DTYPE_FP64};
    dtype_default_tolerance(DTYPE_BF16, &sb.atol, &sb.rtol);
    uint16_t b = float_to_bf16(104.0f);
    double rb = 100;
    struct compare_report r;
    CHECK_INT_EQ(compare_output(&sb, &b, &rb, NULL, 1, &r, NULL), BW_OK);
    CHECK_INT_EQ(r.mismatches, 1);
    CHECK(r.first[0].abs_err == 4);
}

TEST(compare_integer_outputs)
{
    int64_t ref[5] = {0, -1, 2147483647, -2147483648LL, 5};
    int32_t got[5] = {0, -1, 2147483647, (int32_t)-2147483648LL, 6};
    struct compare_spec s = {
        .dtype = DTYPE_INT32, .ref_dtype = DTYPE_INT64, .atol = 100, .rtol = 1};
    struct compare_report r;
    CHECK_INT_EQ(compare_output(&s, got, ref, NULL, 5, &r, NULL), BW_OK);
    CHECK_INT_EQ(r.mismatches, 1); /* integers are exact whatever the tolerance says */
    CHECK(r.exact);
    CHECK_INT_EQ(r.first[0].expected.i, 5);
    CHECK_INT_EQ(r.first[0].got.i, 6);
    CHECK(r.first[0].abs_err == 1);
    /* int64 beyond 2^53: still exact */
    int64_t big_ref = (1LL << 60) + 1, big_got = (1LL << 60);
    s.dtype = DTYPE_INT64;
    CHECK_INT_EQ(compare_output(&s, &big_got, &big_ref, NULL, 1, &r, NULL), BW_OK);
    CHECK_INT_EQ(r.mismatches, 1);
    CHECK(r.first[0].abs_err == 1);
    /* uint64 against the long long reference's bits */
    uint64_t ug = UINT64_MAX;
    int64_t uref = -1;
    s.dtype = DTYPE_UINT64;
    CHECK_INT_EQ(compare_output(&s, &ug, &uref, NULL, 1, &r, NULL), BW_OK);
    CHECK(compare_passed(&r));
    ug = UINT64_MAX - 1;
    CHECK_INT_EQ(compare_output(&s, &ug, &uref, NULL, 1, &r, NULL), BW_OK);
    CHECK_INT_EQ(r.mismatches, 1);
    CHECK(r.first[0].got.kind == CMP_VALUE_UINT && r.first[0].got.u == UINT64_MAX - 1);
    CHECK(r.first[0].abs_err == 1); /* not 0, as the doubles 2^64 and 2^64 would say */
    /* uint8 and int8 */
    uint8_t u8[3] = {0, 255, 7};
    int64_t r8[3] = {0, 255, 8};
    s.dtype = DTYPE_UINT8;
    CHECK_INT_EQ(compare_output(&s, u8, r8, NULL, 3, &r, NULL), BW_OK);
    CHECK_INT_EQ(r.mismatches, 1);
    CHECK_INT_EQ(r.first[0].flat, 2);
    int8_t i8 = -128;
    int64_t ri8 = -128;
    s.dtype = DTYPE_INT8;
    CHECK_INT_EQ(compare_output(&s, &i8, &ri8, NULL, 1, &r, NULL), BW_OK);
    CHECK(compare_passed(&r));
    /* an integer output against an fp64 reference */
    double rd[2] = {3, 3.5};
    int32_t gd[2] = {3, 3};
    s.dtype = DTYPE_INT32;
    s.ref_dtype = DTYPE_FP64;
    CHECK_INT_EQ(compare_output(&s, gd, rd, NULL, 2, &r, NULL), BW_OK);
    CHECK_INT_EQ(r.mismatches, 1);
    CHECK_INT_EQ(r.first[0].flat, 1);
}

TEST(compare_acc_term)
{
    /* bound = atol + rtol*|r| + acc*S: with S large, a large error passes */
    double ref[3] = {1, 1, 1};
    double scale[3] = {0, 1000, 1000};
    float got[3] = {1.05f, 1.05f, 1.2f};
    struct compare_spec s = fp32_spec(1e-5, 1e-5);
    s.acc = 1e-4; /* acc*S = 0.1 */
    struct compare_report r;
    CHECK_INT_EQ(compare_output(&s, got, ref, scale, 3, &r, NULL), BW_OK);
    CHECK_INT_EQ(r.mismatches, 2);
    CHECK_INT_EQ(r.first[0].flat, 0);
    CHECK_INT_EQ(r.first[1].flat, 2);
    /* acc without a scale, a NaN scale: judge errors, not mismatches */
    char *cause = NULL;
    CHECK_INT_EQ(compare_output(&s, got, ref, NULL, 3, &r, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "scale");
    free(cause);
    cause = NULL;
    scale[1] = NAN;
    CHECK_INT_EQ(compare_output(&s, got, ref, scale, 3, &r, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "element 1");
    free(cause);
    /* a NaN scale for a NaN reference is not used */
    ref[1] = NAN;
    got[1] = NAN;
    CHECK_INT_EQ(compare_output(&s, got, ref, scale, 3, &r, NULL), BW_OK);
}

TEST(compare_multi_dim_index)
{
    int64_t dims[3] = {2, 3, 4};
    float got[24];
    double ref[24];
    for (int i = 0; i < 24; i++) {
        got[i] = (float)i;
        ref[i] = i;
    }
    got[23] = 100; /* [1, 2, 3] */
    got[6] = -1;   /* [0, 1, 2] */
    struct compare_spec s = fp32_spec(0, 0);
    s.dims = dims;
    s.ndim = 3;
    struct compare_report r;
    CHECK_INT_EQ(compare_output(&s, got, ref, NULL, 24, &r, NULL), BW_OK);
    CHECK_INT_EQ(r.mismatches, 2);
    CHECK_INT_EQ(r.first[0].ndim, 3);
    CHECK(r.first[0].index[0] == 0 && r.first[0].index[1] == 1 && r.first[0].index[2] == 2);
    CHECK(r.first[1].index[0] == 1 && r.first[1].index[1] == 2 && r.first[1].index[2] == 3);
    CHECK_INT_EQ(r.max_abs_at, 23);
    CHECK(r.max_abs_err == 77);
    CHECK_INT_EQ(r.max_rel_at, 23); /* 77/23 beats 7/6 */
    CHECK(r.max_rel_err == 77.0 / 23.0);
    got[23] = 23;
    CHECK_INT_EQ(compare_output(&s, got, ref, NULL, 24, &r, NULL), BW_OK);
    CHECK_INT_EQ(r.max_rel_at, 6);
    CHECK(r.max_rel_err == 7.0 / 6.0);
    CHECK_INT_EQ(r.max_abs_at, 6);
    /* the shape must match the count */
    char *cause = NULL;
    CHECK_INT_EQ(compare_output(&s, got, ref, NULL, 23, &r, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "24 elements");
    free(cause);
    dims[1] = 0;
    CHECK_INT_EQ(compare_output(&s, got, ref, NULL, 0, &r, NULL), BW_ERR_INVALID);
}

TEST(compare_many_elements_and_chunks)
{
    enum { N = 1000003 };
    float *got = malloc(sizeof(float) * N);
    double *ref = malloc(sizeof(double) * N);
    CHECK(got && ref);
    if (!got || !ref) {
        free(got);
        free(ref);
        return;
    }
    for (int i = 0; i < N; i++) {
        ref[i] = sin(i * 0.001) * 10;
        got[i] = (float)ref[i];
        if (i % 1000 == 999)
            got[i] += 1; /* 1000 bad elements */
    }
    got[500000] += 0.00001f; /* within tolerance */
    got[777777] = 50;        /* the largest error */
    struct compare_spec s = fp32_spec(1e-4, 1e-5);
    struct compare_report r;
    CHECK_INT_EQ(compare_output(&s, got, ref, NULL, N, &r, NULL), BW_OK);
    CHECK_INT_EQ(r.mismatches, 1001);
    CHECK_INT_EQ(r.checked, N);
    CHECK_INT_EQ(r.n_shown, BW_MISMATCHES_SHOWN);
    CHECK_INT_EQ(r.first[0].flat, 999);
    CHECK_INT_EQ(r.first[4].flat, 4999);
    CHECK_INT_EQ(r.max_abs_at, 777777);
    CHECK(fabs(r.max_abs_err - fabs(50 - ref[777777])) < 1e-12);
    /* the same in uneven chunks gives the same report */
    struct compare_report c;
    CHECK_INT_EQ(compare_begin(&s, N, &c, NULL), BW_OK);
    int64_t at = 0, step = 4099;
    while (at < N) {
        int64_t n = at + step > N ? N - at : step;
        CHECK_INT_EQ(compare_chunk(&s, at, n, got + at, ref + at, NULL, &c, NULL), BW_OK);
        at += n;
        step = step * 3 % 100003 + 1;
    }
    CHECK_INT_EQ(c.mismatches, r.mismatches);
    CHECK_INT_EQ(c.checked, N);
    CHECK_INT_EQ(c.max_abs_at, r.max_abs_at);
    CHECK_INT_EQ(c.max_rel_at, r.max_rel_at);
    for (int k = 0; k < BW_MISMATCHES_SHOWN; k++)
        CHECK_INT_EQ(c.first[k].flat, r.first[k].flat);
    CHECK_INT_EQ(compare_chunk(&s, N - 1, 2, got, ref, NULL, &c, NULL), BW_ERR_INVALID);
    free(got);
    free(ref);
}

TEST(compare_samples_same_rules)
{
    int64_t dims[2] = {100, 10};
    struct compare_spec s = fp32_spec(1e-5, 1e-5);
    s.dims = dims;
    s.ndim = 2;
    struct compare_sample sm[4] = {{0}};
    float v[4] = {1, 2, NAN, 4};
    double ref[4] = {1, 2.5, 3, 4};
    int64_t idx[4] = {999, 15, 420, 0};
    for (int k = 0; k < 4; k++) {
        sm[k].index = idx[k];
        memcpy(sm[k].got, &v[k], 4);
        sm[k].ref = ref[k];
    }
    poison(sm[3].got, 4);
    struct compare_report r;
    CHECK_INT_EQ(compare_samples(&s, sm, 4, 1000, &r, NULL), BW_OK);
    CHECK_INT_EQ(r.count, 1000);
    CHECK_INT_EQ(r.checked, 4);
    CHECK_INT_EQ(r.mismatches, 3);
    CHECK_INT_EQ(r.first[0].flat, 15); /* in sample order */
    CHECK(r.first[0].index[0] == 1 && r.first[0].index[1] == 5);
    CHECK_STR_EQ(compare_reason_text(r.first[1].reason), "got NaN");
    CHECK(r.first[1].index[0] == 42 && r.first[1].index[1] == 0);
    CHECK_STR_EQ(compare_reason_text(r.first[2].reason), "not written (poison)");
    struct buf b;
    buf_init(&b, 1 << 16);
    CHECK_INT_EQ(compare_report_format(&r, "out", &b), BW_OK);
    CHECK_CONTAINS(b.data, "out: 3 of 4 sampled elements differ (of 1000; fp32");
    CHECK_CONTAINS(b.data, "[42, 0]");
    buf_release(&b);
    /* integer samples and a bad index */
    struct compare_spec si = {.dtype = DTYPE_INT64, .ref_dtype = DTYPE_INT64};
    struct compare_sample is = {.index = 3, .ref_i = 42};
    int64_t g = 42;
    memcpy(is.got, &g, 8);
    CHECK_INT_EQ(compare_samples(&si, &is, 1, 10, &r, NULL), BW_OK);
    CHECK(compare_passed(&r));
    is.index = 10;
    char *cause = NULL;
    CHECK_INT_EQ(compare_samples(&si, &is, 1, 10, &r, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "sample index 10");
    free(cause);
}

TEST(compare_rejects_bad_specs)
{
    float g = 0;
    double ref = 0;
    struct compare_report r;
    struct compare_spec s = fp32_spec(-1, 0);
    CHECK_INT_EQ(compare_output(&s, &g, &ref, NULL, 1, &r, NULL), BW_ERR_INVALID);
    s = fp32_spec(NAN, 0);
    CHECK_INT_EQ(compare_output(&s, &g, &ref, NULL, 1, &r, NULL), BW_ERR_INVALID);
    s = fp32_spec(0, INFINITY);
    CHECK_INT_EQ(compare_output(&s, &g, &ref, NULL, 1, &r, NULL), BW_ERR_INVALID);
    s = fp32_spec(0, 0);
    s.ref_dtype = DTYPE_FP32;
    CHECK_INT_EQ(compare_output(&s, &g, &ref, NULL, 1, &r, NULL), BW_ERR_INVALID);
    s = fp32_spec(0, 0);
    s.dtype = DTYPE_INVALID;
    CHECK_INT_EQ(compare_output(&s, &g, &ref, NULL, 1, &r, NULL), BW_ERR_INVALID);
    s = fp32_spec(0, 0);
    s.ndim = BW_MAX_DIMS + 1;
    CHECK_INT_EQ(compare_output(&s, &g, &ref, NULL, 1, &r, NULL), BW_ERR_INVALID);
    s = fp32_spec(0, 0);
    CHECK_INT_EQ(compare_output(&s, &g, &ref, NULL, 0, &r, NULL), BW_OK);
    CHECK_INT_EQ(r.checked, 0);
    CHECK(compare_passed(&r));
}

TEST(compare_report_text)
{
    int64_t dims[2] = {2, 4};
    float got[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    double ref[8] = {1, 2, 3, 4.5, 5, 6, 7, 0.1};
    got[1] = NAN;
    struct compare_spec s = fp32_spec(1e-5, 1.3e-6);
    s.dims = dims;
    s.ndim = 2;
    struct compare_report r;
    CHECK_INT_EQ(compare_output(&s, got, ref, NULL, 8, &r, NULL), BW_OK);
    struct buf b;
    buf_init(&b, 1 << 16);
    CHECK_INT_EQ(compare_report_format(&r, "out", &b), BW_OK);
    CHECK_CONTAINS(b.data, "out: 3 of 8 elements differ (fp32, atol 1e-05 rtol 1.3e-06)");
    CHECK_CONTAINS(b.data, "[0, 1]");
    CHECK_CONTAINS(b.data, "got NaN");
    CHECK_CONTAINS(b.data, "[0, 3]");
    CHECK_CONTAINS(b.data, "4.5 ");
    CHECK_CONTAINS(b.data, "0.1 "); /* the shortest exact form of the fp64 reference */
    CHECK_CONTAINS(b.data, "max abs err 7.9 at [1, 3]");
    CHECK_CONTAINS(b.data, "max rel err 79 at [1, 3]");
    buf_release(&b);
    float ok[1] = {1};
    CHECK_INT_EQ(compare_output(&s, ok, ref, NULL, 1, &r, NULL), BW_ERR_INVALID); /* shape */
    struct compare_spec flat = fp32_spec(0, 0);
    flat.exact = true;
    CHECK_INT_EQ(compare_output(&flat, ok, ref, NULL, 1, &r, NULL), BW_OK);
    buf_init(&b, 1 << 16);
    CHECK_INT_EQ(compare_report_format(&r, NULL, &b), BW_OK);
    CHECK_CONTAINS(b.data, "output: all 1 elements match (fp32, exact)");
    buf_release(&b);
    /* exact mismatches say what the rounded reference was */
    float tenth = 0.1f + 0x1p-26f;
    double rt = 0.1;
    CHECK_INT_EQ(compare_output(&flat, &tenth, &rt, NULL, 1, &r, NULL), BW_OK);
    buf_init(&b, 1 << 16);
    CHECK_INT_EQ(compare_report_format(&r, "y", &b), BW_OK);
    CHECK_CONTAINS(b.data, " 0.10000002 "); /* the shortest form that is this float */
    CHECK_CONTAINS(b.data, "not equal (expected 0.1 after rounding to fp32)");
    buf_release(&b);
    /* a buffer too small is a limit error, not a crash */
    buf_init(&b, 10);
    CHECK_INT_EQ(compare_report_format(&r, "y", &b), BW_ERR_LIMIT);
    buf_release(&b);
}

TEST(compare_report_json_form)
{
    int64_t dims[2] = {2, 3};
    float got[6] = {1, 2, 3, 4, 5, 6};
    double ref[6] = {1, 2, NAN, -INFINITY, 5, 6.5};
    struct compare_spec s = fp32_spec(1e-5, 1.3e-6);
    s.dims = dims;
    s.ndim = 2;
    struct compare_report r;
    CHECK_INT_EQ(compare_output(&s, got, ref, NULL, 6, &r, NULL), BW_OK);
    json_t *j = compare_report_json(&r, "out");
    CHECK(j != NULL);
    if (!j)
        return;
    CHECK_STR_EQ(json_string_value(json_object_get(j, "name")), "out");
    CHECK_STR_EQ(json_string_value(json_object_get(j, "dtype")), "fp32");
    CHECK_INT_EQ(json_integer_value(json_object_get(j, "mismatches")), 3);
    CHECK_INT_EQ(json_integer_value(json_object_get(j, "count")), 6);
    CHECK_INT_EQ(json_integer_value(json_object_get(j, "checked")), 6);
    CHECK(json_real_value(json_object_get(j, "max_abs_err")) == 0.5);
    json_t *at = json_object_get(j, "max_abs_at");
    CHECK_INT_EQ(json_integer_value(json_object_get(at, "flat")), 5);
    CHECK_INT_EQ(json_integer_value(json_array_get(json_object_get(at, "index"), 0)), 1);
    CHECK_INT_EQ(json_integer_value(json_array_get(json_object_get(at, "index"), 1)), 2);
    json_t *tol = json_object_get(j, "tolerance");
    CHECK(json_real_value(json_object_get(tol, "rtol")) == 1.3e-6);
    json_t *first = json_object_get(j, "first");
    CHECK_INT_EQ(json_array_size(first), 3);
    json_t *m0 = json_array_get(first, 0), *m1 = json_array_get(first, 1);
    CHECK_STR_EQ(json_string_value(json_object_get(m0, "expected")), "nan");
    CHECK(json_real_value(json_object_get(m0, "got")) == 3);
    CHECK_STR_EQ(json_string_value(json_object_get(m0, "abs_err")), "nan");
    CHECK_STR_EQ(json_string_value(json_object_get(m0, "reason")), "expected NaN");
    CHECK_STR_EQ(json_string_value(json_object_get(m1, "expected")), "-inf");
    CHECK_STR_EQ(json_string_value(json_object_get(m1, "abs_err")), "inf");
    CHECK_STR_EQ(json_string_value(json_object_get(m1, "reason")), "expected -inf");
    CHECK_INT_EQ(json_integer_value(json_object_get(m1, "flat")), 3);
    CHECK_INT_EQ(json_integer_value(json_array_get(json_object_get(m1, "index"), 0)), 1);
    CHECK(json_object_get(m1, "rounded") == NULL);
    char *text = json_dumps(j, JSON_COMPACT);
    CHECK(text != NULL);
    free(text);
    json_decref(j);
    /* integers as JSON integers, a huge uint64 as a string, exact floats with "rounded" */
    struct compare_spec su = {.dtype = DTYPE_UINT64, .ref_dtype = DTYPE_INT64};
    uint64_t ug = UINT64_MAX;
    int64_t uref = 5;
    CHECK_INT_EQ(compare_output(&su, &ug, &uref, NULL, 1, &r, NULL), BW_OK);
    j = compare_report_json(&r, NULL);
    CHECK(j && json_object_get(j, "name") == NULL);
    json_t *m = json_array_get(json_object_get(j, "first"), 0);
    CHECK_STR_EQ(json_string_value(json_object_get(m, "got")), "18446744073709551615");
    CHECK_INT_EQ(json_integer_value(json_object_get(m, "expected")), 5);
    CHECK(json_is_true(json_object_get(json_object_get(j, "tolerance"), "exact")));
    json_decref(j);
    struct compare_spec se = fp32_spec(0, 0);
    se.exact = true;
    float g = 0.2f;
    double rr = 0.1;
    CHECK_INT_EQ(compare_output(&se, &g, &rr, NULL, 1, &r, NULL), BW_OK);
    j = compare_report_json(&r, "y");
    m = json_array_get(json_object_get(j, "first"), 0);
    CHECK(json_real_value(json_object_get(m, "rounded")) == (double)0.1f);
    CHECK(json_real_value(json_object_get(m, "expected")) == 0.1);
    CHECK(json_is_null(json_object_get(j, "max_rel_at")) == false);
    json_decref(j);
}

TEST(default_tolerances_torch_table)
{
    double atol, rtol;
    dtype_default_tolerance(DTYPE_FP32, &atol, &rtol);
    CHECK(atol == 1e-5 && rtol == 1.3e-6);
    dtype_default_tolerance(DTYPE_FP16, &atol, &rtol);
    CHECK(atol == 1e-5 && rtol == 1e-3);
    dtype_default_tolerance(DTYPE_BF16, &atol, &rtol);
    CHECK(atol == 1e-5 && rtol == 1.6e-2);
    dtype_default_tolerance(DTYPE_FP64, &atol, &rtol);
    CHECK(atol == 1e-7 && rtol == 1e-7);
    enum dtype ints[] = {DTYPE_INT8,   DTYPE_UINT8, DTYPE_INT32,
                         DTYPE_UINT32, DTYPE_INT64, DTYPE_UINT64};
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        atol = rtol = 1;
        dtype_default_tolerance(ints[i], &atol, &rtol);
        CHECK(atol == 0 && rtol == 0);
    }
}

/* xorshift64*: deterministic test data without libc's rand() */
static uint64_t next_u64(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * 0x2545F4914F6CDD1DULL;
}

static bool same_double(double a, double b)
{
    return memcmp(&a, &b, sizeof(a)) == 0;
}

static void check_same_report(const struct compare_report *a, const struct compare_report *b)
{
    CHECK_INT_EQ(a->checked, b->checked);
    CHECK_INT_EQ(a->mismatches, b->mismatches);
    CHECK_INT_EQ(a->unwritten, b->unwritten);
    CHECK_INT_EQ(a->n_shown, b->n_shown);
    for (int i = 0; i < a->n_shown && i < b->n_shown; i++) {
        CHECK_INT_EQ(a->first[i].flat, b->first[i].flat);
        CHECK_INT_EQ(a->first[i].reason, b->first[i].reason);
        CHECK(same_double(a->first[i].abs_err, b->first[i].abs_err));
    }
    CHECK_INT_EQ(a->max_abs_at, b->max_abs_at);
    CHECK_INT_EQ(a->max_rel_at, b->max_rel_at);
    CHECK(same_double(a->max_abs_err, b->max_abs_err));
    CHECK(same_double(a->max_rel_err, b->max_rel_err));
}

/*
 * compare_chunk has a fast path for float outputs with a tolerance;
 * compare_samples over every index in order runs the rule element by element.
 * On data with every kind of element (close, outside the bound, NaN, +-inf,
 * poison, zero references, acc scales, exact outputs) and chunks across the
 * fast path's blocks, both must produce the same report bit for bit; so must
 * compare_output_threads, which splits the tensor and merges the parts.
 */
TEST(compare_fast_path_and_threads_match_the_element_rule)
{
    static const enum dtype types[] = {DTYPE_FP32, DTYPE_FP64, DTYPE_FP16, DTYPE_BF16};
    const int64_t n = 5000;
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    unsigned char *got = malloc((size_t)n * 8);
    double *ref = malloc((size_t)n * sizeof(double)), *scale = malloc((size_t)n * sizeof(double));
    struct compare_sample *samples = malloc((size_t)n * sizeof(*samples));

    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
        /* mode 0: atol + rtol, 1: with acc, 2: exact */
        for (int mode = 0; mode < 3; mode++) {
            bool acc = mode == 1, exact = mode == 2;
            struct compare_spec s = {.dtype = types[t],
                                     .ref_dtype = DTYPE_FP64,
                                     .exact = exact,
                                     .atol = exact ? 0 : 1e-3,
                                     .rtol = exact ? 0 : 1e-2,
                                     .acc = acc ? 1e-3 : 0};
            size_t size = dtype_size(s.dtype);
            /* few misses, so the maxima come from the fast path too */
            for (int64_t k = 0; k < n; k++) {
                uint64_t u = next_u64(&x);
                double r = (double)(int64_t)(u >> 11) / (double)(1LL << 52) - 0.5;
                double g = exact ? dtype_round(s.dtype, r)
                                 : r * (1 + 1e-3 * ((double)(u & 0xFF) / 255 - 0.5));
                switch (u % 97) {
                case 0:
                    r = NAN;
                    break;
                case 1:
                    r = INFINITY;
                    break;
                case 2:
                    g = -INFINITY;
                    break;
                case 3:
                    r = 0;
                    g = 1e-4;
                    break;
                case 4:
                    g = r + 0.5;
                    break; /* a miss */
                case 5:
                    r = 0;
                    break;
                default:
                    break;
                }
                ref[k] = r;
                scale[k] = fabs(r) * 3;
                dtype_store(s.dtype, got + (size_t)k * size, g);
                if (u % 97 == 6)
                    memset(got + (size_t)k * size, 0xFF, size);
                samples[k].index = k;
                memcpy(samples[k].got, got + (size_t)k * size, size);
                samples[k].ref = ref[k];
                samples[k].scale = scale[k];
            }
            struct compare_report fast, slow;
            CHECK_INT_EQ(compare_begin(&s, n, &fast, NULL), BW_OK);
            /* chunks of 1, 1023, 1025 and the rest: across FAST_BLOCK edges */
            int64_t cuts[] = {0, 1, 1024, 2049, n};
            for (int c = 0; c < 4; c++)
                CHECK_INT_EQ(compare_chunk(&s, cuts[c], cuts[c + 1] - cuts[c],
                                           got + (size_t)cuts[c] * size, ref + cuts[c],
                                           acc ? scale + cuts[c] : NULL, &fast, NULL),
                             BW_OK);
            CHECK_INT_EQ(compare_samples(&s, samples, (size_t)n, n, &slow, NULL), BW_OK);
            CHECK(fast.mismatches > 0);
            check_same_report(&fast, &slow);
            /* split across threads and merged: the same report again */
            for (int threads = 2; threads <= COMPARE_MAX_THREADS + 1; threads += 3) {
                struct compare_report par;
                CHECK_INT_EQ(compare_output_threads(&s, got, ref, acc ? scale : NULL, n, threads,
                                                    &par, NULL),
                             BW_OK);
                check_same_report(&par, &slow);
            }
        }
    }
    free(got);
    free(ref);
    free(scale);
    free(samples);
}
