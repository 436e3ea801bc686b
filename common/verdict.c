#include "verdict.h"

#include <strings.h>

#include "banned.h"

static const struct {
    const char *name, *code;
} verdicts[] = {
    [VERDICT_NONE] = {"Not judged", "NJ"},
    [VERDICT_ACCEPTED] = {"Accepted", "AC"},
    [VERDICT_WRONG_ANSWER] = {"Wrong Answer", "WA"},
    [VERDICT_COMPILE_ERROR] = {"Compile Error", "CE"},
    [VERDICT_RUNTIME_ERROR] = {"Runtime Error", "RE"},
    [VERDICT_TIME_LIMIT] = {"Time Limit", "TLE"},
    [VERDICT_MEMORY_VIOLATION] = {"Memory Violation", "MV"},
    [VERDICT_INPUT_MODIFIED] = {"Input Modified", "IM"},
    [VERDICT_JUDGE_ERROR] = {"Judge Error", "JE"},
};

#define N_VERDICTS (sizeof(verdicts) / sizeof(verdicts[0]))

const char *verdict_name(enum verdict v)
{
    return (unsigned)v < N_VERDICTS ? verdicts[v].name : "Unknown";
}

const char *verdict_code(enum verdict v)
{
    return (unsigned)v < N_VERDICTS ? verdicts[v].code : "??";
}

enum verdict verdict_parse(const char *s)
{
    for (unsigned i = 1; i < N_VERDICTS; i++)
        if (strcasecmp(s, verdicts[i].name) == 0 || strcasecmp(s, verdicts[i].code) == 0)
            return (enum verdict)i;
    return VERDICT_NONE;
}
