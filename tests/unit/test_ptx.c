/* Tests of judge/ptx: kernel signatures from PTX, on canned text and on real NVRTC output. */
#include "tests/test.h"

#include <nvrtc.h>
#include <stdlib.h>

#include "common/error.h"
#include "judge/worker/ptx.h"
#include "common/banned.h"

static const char canned[] =
    "//\n.version 9.0\n.target sm_90a\n"
    ".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .f32 k_param_1,\n"
    "\t.param .align 8 .b8 k_param_2[16],\n\t.param .u16 k_param_3\n)\n{\n ret;\n}\n"
    ".visible .entry _Z7mangledPf(\n\t.param .u64 _Z7mangledPf_param_0\n)\n{ ret; }\n"
    ".visible .entry empty()\n{ ret; }\n";

TEST(ptx_parses_params_by_kind_and_size)
{
    struct ptx_entries e;
    char *cause = NULL;
    const struct ptx_entry *k;

    CHECK_INT_EQ(ptx_parse_entries(canned, &e, &cause), BW_OK);
    CHECK_INT_EQ(e.n, 3);
    k = ptx_find(&e, "k");
    CHECK(k != NULL);
    if (k) {
        CHECK_INT_EQ(k->n_params, 4);
        CHECK(k->params[0].kind == PTX_PARAM_INT && k->params[0].size == 8);
        CHECK(k->params[1].kind == PTX_PARAM_FLOAT && k->params[1].size == 4);
        CHECK(k->params[2].kind == PTX_PARAM_BYTES && k->params[2].size == 16);
        CHECK(k->params[3].kind == PTX_PARAM_INT && k->params[3].size == 2);
    }
    CHECK(ptx_find(&e, "mangled") == NULL);
    CHECK(ptx_find_mangled(&e, "mangled") != NULL);
    k = ptx_find(&e, "empty");
    CHECK(k && k->n_params == 0);
    ptx_entries_release(&e);
    free(cause);
}

TEST(ptx_rejects_garbage_params)
{
    struct ptx_entries e;
    char *cause = NULL;
    CHECK_INT_EQ(ptx_parse_entries(".entry k(\n .param garbage\n)\n", &e, &cause), BW_ERR_INVALID);
    CHECK_CONTAINS(cause, "unreadable PTX parameter");
    free(cause);
}

TEST(ptx_from_real_nvrtc)
{
    const char *src =
        "extern \"C\" __global__ void add(const float *x, long long n, float eps, int m) {}\n";
    nvrtcProgram prog;
    const char *opts[] = {"--gpu-architecture=sm_90a"};
    size_t size = 0;
    char *ptx, *cause = NULL;
    struct ptx_entries e;
    const struct ptx_entry *k;

    CHECK_INT_EQ(nvrtcCreateProgram(&prog, src, "t.cu", 0, NULL, NULL), NVRTC_SUCCESS);
    CHECK_INT_EQ(nvrtcCompileProgram(prog, 1, opts), NVRTC_SUCCESS);
    nvrtcGetPTXSize(prog, &size);
    ptx = malloc(size);
    nvrtcGetPTX(prog, ptx);
    nvrtcDestroyProgram(&prog);
    CHECK_INT_EQ(ptx_parse_entries(ptx, &e, &cause), BW_OK);
    k = ptx_find(&e, "add");
    CHECK(k != NULL);
    if (k) {
        CHECK_INT_EQ(k->n_params, 4);
        CHECK_INT_EQ(k->params[0].size, 8);
        CHECK_INT_EQ(k->params[1].size, 8);
        CHECK(k->params[2].kind == PTX_PARAM_FLOAT && k->params[2].size == 4);
        CHECK(k->params[3].kind == PTX_PARAM_INT && k->params[3].size == 4);
    }
    ptx_entries_release(&e);
    free(ptx);
    free(cause);
}
