/*
 * Replays the request-body fuzz corpus (tests/fuzz/corpus/request/: seeds and
 * every input a fuzzer found) through the fuzz target's own body, so its
 * properties are checked by `make test` with or without clang.
 */
#include "tests/test.h"

#include <dirent.h>
#include <stdlib.h>

#include "common/error.h"
#include "common/util.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_request.c"

TEST(fuzz_replay_request_corpus)
{
    const char *dir = "tests/fuzz/corpus/request";
    DIR *d = opendir(dir);
    struct dirent *e;
    int count = 0;
    CHECK_MSG(d != NULL, "cannot open %s", dir);
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        char *path, *data = NULL, *cause = NULL;
        size_t len;
        if (e->d_name[0] == '.')
            continue;
        path = path_join(dir, e->d_name);
        if (path && read_file(path, 1 << 20, &data, &len, &cause) == BW_OK) {
            CHECK_MSG(fuzz_request_one((const uint8_t *)data, len) == 0,
                      "%s violates a fuzz property", path);
            count++;
        } else {
            CHECK_MSG(false, "cannot read %s: %s", e->d_name, cause ? cause : "?");
        }
        free(data);
        free(cause);
        free(path);
    }
    closedir(d);
    CHECK(count >= 40);
}

/* Every prefix of every seed, through every parser: the cut bodies a slow or
 * broken client sends. */
TEST(fuzz_request_prefixes)
{
    static const char *const bodies[] = {
        "{\"problem\":\"vector-add\",\"mode\":\"run\",\"source\":\"x\\u00e9\"}",
        "{\"result\":{\"verdict\":\"AC\",\"tests\":[{\"name\":\"a\",\"verdict\":\"WA\"}],"
        "\"benches\":[{\"name\":\"b\",\"median_ms\":1}]}}",
        "{\"hostname\":\"h\",\"can_execute\":true,\"gpu\":{\"name\":\"H200\"}}",
    };
    char buf[512];
    for (size_t b = 0; b < sizeof(bodies) / sizeof(bodies[0]); b++) {
        size_t n = strlen(bodies[b]);
        for (int k = 0; k < 11; k++) {
            for (size_t cut = 0; cut <= n; cut++) {
                buf[0] = (char)k;
                memcpy(buf + 1, bodies[b], cut);
                CHECK_MSG(fuzz_request_one((const uint8_t *)buf, cut + 1) == 0,
                          "parser %d, body %zu cut at %zu", k, b, cut);
            }
        }
    }
}
