#include "language.h"

#include <string.h>

#include "banned.h"

static const struct {
    const char *name, *title, *extension, *comment;
} languages[LANG_COUNT] = {
    [LANG_CUDA] = {"cuda", "CUDA", ".cu", "//"},
    [LANG_TRITON] = {"triton", "Triton", ".py", "#"},
};

const char *language_name(enum language l)
{
    return languages[l].name;
}

const char *language_title(enum language l)
{
    return languages[l].title;
}

const char *language_extension(enum language l)
{
    return languages[l].extension;
}

const char *language_comment(enum language l)
{
    return languages[l].comment;
}

bool language_from_name(const char *name, enum language *out)
{
    for (int l = 0; l < LANG_COUNT; l++)
        if (name && strcmp(name, languages[l].name) == 0) {
            *out = (enum language)l;
            return true;
        }
    return false;
}

bool language_of_file(const char *path, enum language *out)
{
    size_t n = path ? strlen(path) : 0;

    for (int l = 0; l < LANG_COUNT; l++) {
        size_t e = strlen(languages[l].extension);
        if (n > e && strcmp(path + n - e, languages[l].extension) == 0) {
            *out = (enum language)l;
            return true;
        }
    }
    return false;
}
