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
 * line information).
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
 *
 * A launcher program (triton_launcher.h: `def solve(...)`, recorded per case)
 * has no launch lines; its launch code is Python: solve's body, and the
 * bodies of the top-level functions only launch code calls. The rule
 * (triton_key_launcher_text), which decides what counts as launch code:
 *   - a body is launch code when it belongs to an undecorated, top-level
 *     `def NAME(...):` (not a one-liner, not async) whose NAME occurs in the
 *     module's code (outside strings and comments, as any identifier: a call,
 *     an attribute, a keyword, a local of another function) only inside
 *     bodies that are launch code themselves: the greatest such set of
 *     functions, computed as a fixed point; and the body of a top-level
 *     `if __name__ == "__main__":` (without else), which the judge never runs;
 *   - `solve` must be one of them, else nothing is (the module is keyed
 *     whole: a solve that is decorated, used at the top level, or defined
 *     twice); the module is keyed whole too when this reader cannot follow
 *     its strings (see below);
 *   - a launch-code body becomes `pass` on its first line and blank lines
 *     after (the lines keep their numbers); the `def` line itself, with its
 *     defaults and annotations (evaluated at import), is kept, as is
 *     everything else: imports, kernels, @triton.jit helpers and
 *     @triton.constexpr_function (decorated), globals, the autotune configs,
 *     module-level constants even when only solve reads them (TILE = 4096: an
 *     edit of it compiles again), classes.
 * Safety does not rest on the rule: the compile child imports exactly this
 * text (driver.py, "compile_source"), never the learner's whole file, and
 * only after every process that ran the whole file is dead (launcher.py,
 * serve_launch), so a build is a function of its key whatever the module
 * does, and two learners whose modules differ only in launch code share
 * builds that each of their modules' keyed texts would build. The rule
 * decides only how often a build is found, and how faithful the keyed text
 * is: its limits are a module that reads its own source (open(__file__),
 * inspect.getsource(solve), globals()["sol" + "ve"]) at import, which sees
 * the keyed text while it is compiled (the recording sees the whole file),
 * and a function used only through such a lookup, whose body is then `pass`
 * in the compile. Both are the learner's own doing, and harm only their own
 * build.
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

/*
 * A launcher program's module text (the rule above): `source` with the bodies of its launch
 * code made `pass` and blank lines, appended to *out. *blanked (may be NULL) counts the lines
 * blanked: 0 when the module is keyed whole. BW_ERR_NOMEM or BW_ERR_LIMIT (out's cap).
 */
int triton_key_launcher_text(const char *source, size_t len, struct buf *out, size_t *blanked);

/*
 * The key of a launcher program's module: its text as compiled (triton_key_launcher_text),
 * the file name, the target, Triton's version (NULL: unknown), sandboxing, and `device`, the
 * GPU's figures the module may read at import (torch.cuda.get_device_properties: the launcher
 * request's device fields, triton_launch_device).
 */
void triton_key_launcher_module(const char *text, size_t len, const char *filename, int cc_major,
                                int cc_minor, const char *triton_version, bool sandboxed,
                                const char *device, char key[65]);

/* The key of one build of a launcher program: its module's key and the variant's key text
 * (plan/triton_variant.h: triton_variant_key, the recorder's variant_key), which names the
 * build in full. */
void triton_key_variant(const char module_key[65], const char *variant, char key[65]);

#endif
