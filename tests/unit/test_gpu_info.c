/* Tests of judge/gpu_info: one JSON form of a GPU's figures, written and read back. */
#include "tests/test.h"

#include <stdlib.h>
#include <string.h>

#include "judge/worker/gpu_info.h"
#include "common/banned.h"

static struct gpu_info h200(void)
{
    struct gpu_info g;

    memset(&g, 0, sizeof(g));
    snprintf(g.name, sizeof(g.name), "NVIDIA H200");
    snprintf(g.uuid, sizeof(g.uuid), "GPU-0123");
    snprintf(g.cc, sizeof(g.cc), "9.0");
    snprintf(g.driver, sizeof(g.driver), "13.0");
    snprintf(g.arch, sizeof(g.arch), "sm_90a");
    g.sm_count = 132;
    g.memory_bytes = 150754820096ull;
    g.l2_bytes = 62914560;
    g.max_clock_mhz = 1980;
    g.copy_gbps = 4240.5;
    g.fp32_tflops = 65.25;
    g.fp16_tflops = 648;
    g.bf16_tflops = 647.5;
    g.calibrated = true;
    return g;
}

TEST(gpu_info_round_trips_every_field)
{
    struct gpu_info g = h200(), back;
    json_t *j = gpu_info_json(&g);

    CHECK(json_is_object(j));
    CHECK_INT_EQ(json_object_size(j), 14);
    CHECK(gpu_info_from_json(j, &back));
    CHECK(memcmp(&g, &back, sizeof(g)) == 0);
    json_decref(j);
}

TEST(gpu_info_calibrated_is_derived_not_trusted)
{
    struct gpu_info g = h200(), back;
    json_t *j;

    g.copy_gbps = 0; /* never measured */
    j = gpu_info_json(&g);
    CHECK(gpu_info_from_json(j, &back));
    CHECK(!back.calibrated);
    json_decref(j);
}

TEST(gpu_info_no_gpu_and_bad_json)
{
    struct gpu_info none, back;
    json_t *j;

    memset(&none, 0, sizeof(none));
    j = gpu_info_json(&none);
    CHECK(json_is_null(j));
    CHECK(!gpu_info_from_json(j, &back));
    json_decref(j);
    j = json_pack("{s:s, s:s}", "name", "NVIDIA H200", "arch", "sm_90a"); /* no uuid */
    back.sm_count = 7;
    CHECK(!gpu_info_from_json(j, &back));
    CHECK_INT_EQ(back.sm_count, 0);
    json_decref(j);
    j = json_string("NVIDIA H200");
    CHECK(!gpu_info_from_json(j, &back));
    json_decref(j);
}

TEST(gpu_info_arch_is_arch_specific_from_hopper_on)
{
    char arch[16];

    gpu_info_arch_for(9, 0, arch, sizeof(arch));
    CHECK_STR_EQ(arch, "sm_90a");
    gpu_info_arch_for(8, 6, arch, sizeof(arch));
    CHECK_STR_EQ(arch, "sm_86");
    gpu_info_arch_for(10, 0, arch, sizeof(arch));
    CHECK_STR_EQ(arch, "sm_100a");
}
