/*
 * nvrtc_compile.c - compiles one problem .cu file with NVRTC, as the judge will.
 *
 *   nvrtc_compile FILE.cu [OPTION ...]
 *
 * Options are passed to NVRTC unchanged after the judge's defaults
 * (--gpu-architecture=sm_90a, -I<cuda>/include, -I<cuda>/include/cccl, where
 * <cuda> is $CUDA_HOME or /usr/local/cuda); tests/cpu/problems-compile.sh adds
 * -DNAME=VALUE for each @const and the @flags options. Produces a cubin
 * (discarded), prints NVRTC's log, and exits 0 on success, 1 on a compile
 * error, 2 on a usage or I/O error. A test tool: the product's compile path
 * is judge/, which sandboxes NVRTC.
 */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OPTIONS 64
#define MAX_SOURCE  (1 << 20)

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(MAX_SOURCE + 1);
    size_t n = buf ? fread(buf, 1, MAX_SOURCE, f) : 0;
    int bad = !buf || ferror(f) || !feof(f);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc - 2 > MAX_OPTIONS - 3) {
        fprintf(stderr, "usage: %s FILE.cu [OPTION ...]\n", argv[0]);
        return 2;
    }
    char *src = read_file(argv[1]);
    if (!src) {
        fprintf(stderr, "%s: cannot read (or larger than %d bytes)\n", argv[1], MAX_SOURCE);
        return 2;
    }
    const char *home = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
    char inc[4096], inc_cccl[4096];
    snprintf(inc, sizeof(inc), "-I%s/include", home);
    snprintf(inc_cccl, sizeof(inc_cccl), "-I%s/include/cccl", home);
    const char *opts[MAX_OPTIONS];
    int n_opts = 0;
    opts[n_opts++] = "--gpu-architecture=sm_90a";
    opts[n_opts++] = inc;
    opts[n_opts++] = inc_cccl;
    for (int i = 2; i < argc; i++)
        opts[n_opts++] = argv[i];

    int rc = 1;
    nvrtcProgram prog;
    if (nvrtcCreateProgram(&prog, src, argv[1], 0, NULL, NULL) != NVRTC_SUCCESS) {
        fprintf(stderr, "%s: nvrtcCreateProgram failed\n", argv[1]);
        rc = 2;
        goto free_src;
    }
    nvrtcResult res = nvrtcCompileProgram(prog, n_opts, opts);
    size_t log_size = 0;
    if (nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
        char *log = malloc(log_size);
        if (log && nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS)
            fputs(log, stdout);
        free(log);
    }
    if (res == NVRTC_SUCCESS) {
        size_t cubin_size = 0;
        if (nvrtcGetCUBINSize(prog, &cubin_size) == NVRTC_SUCCESS && cubin_size > 0)
            rc = 0;
        else
            fprintf(stderr, "%s: no cubin produced\n", argv[1]);
    } else {
        fprintf(stderr, "%s: %s\n", argv[1], nvrtcGetErrorString(res));
    }
    nvrtcDestroyProgram(&prog);
free_src:
    free(src);
    return rc;
}
