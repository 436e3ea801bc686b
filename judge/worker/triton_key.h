/*
 * triton_key.h - what one Triton build is a function of: the build cache's
 * key for it (build_cache.h), so that a learner who edits only the launch
 * recompiles nothing, and one who edits one kernel recompiles only what
 * changed.
 *
 * A build (triton_compile.h: one kernel variant) is compiled from the
 * learner's whole module, imported: its kernel and the @jit functions it
 * calls, the globals they read, whatever the module's top level did. So its
 * key covers the whole module text, not the kernel's alone: two modules that
 * differ anywhere but in their launch lines never share a build, and
 * identical code gives identical builds, whoever sent it. The launch lines
 * are what is left out: the `# @launch` / `@const` / `@tune` / `@scratch`
 * directive lines, which Python reads as comments and the judge reads for
 * the grid, the arguments and each case's variant (which the build's own part
 * of the key names in full: kernel, argument types, specialisation,
 * constexpr values, num_warps, num_stages, maxnreg). Such a line is blanked,
 * not removed, so the lines after it keep their numbers (a build carries
 * line information). Once the judge runs a learner's launcher function
 * (`solve`, recorded per case), its body is launch code too: the hook for it
 * is triton_key_blank_launcher() in triton_key.c.
 *
 * Which lines are directives is read more strictly here than by the
 * directive parser (plan/directive.c, which is lexical on purpose): a line
 * is blanked only when Python would read it as a comment, that is outside
 * every string literal (triple-quoted, continued with a backslash) and not
 * after a backslash continuation; a module whose strings this reader cannot
 * follow with certainty (a quote or a '#' inside an f-string's replacement
 * field, which Python 3.12 allows) is keyed whole.
 *
 * The rest of the key: the file name the module is imported as, the target
 * (compute capability), Triton's version, and whether the compile was
 * sandboxed. Pure functions; no I/O.
 */
#ifndef BW_TRITON_KEY_H
#define BW_TRITON_KEY_H

#include <stdbool.h>
#include <stddef.h>

#include "triton_compile.h"
#include "common/buf.h"

/*
 * The module text a build's key covers: `source` with every launch line
 * blanked (its bytes gone, its newline kept), appended to *out. *blanked
 * (may be NULL) counts the lines blanked. BW_ERR_NOMEM or BW_ERR_LIMIT
 * (out's cap) when it does not fit.
 */
int triton_key_module_text(const char *source, size_t len, struct buf *out, size_t *blanked);

/* The key of a module as a request compiles it (64 hex digits of SHA-256): its text
 * (triton_key_module_text), file name, target, Triton version (NULL: unknown) and sandboxing.
 * false when out of memory (then nothing is cached). */
bool triton_key_module(const struct triton_request *rq, const char *triton_version, char key[65]);

/* The key of one build of that module: the module's key and the variant in full. */
void triton_key_build(const char module_key[65], const struct triton_kernel_request *k,
                      char key[65]);

#endif
