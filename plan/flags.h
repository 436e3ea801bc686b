/*
 * flags.h - @flags: the NVRTC options a CUDA submission may pass.
 *
 * Only an allowlist gets through (docs/submission-format.md, "@flags"):
 * floating-point switches, --maxrregcount, --std, -lineinfo and a few
 * others, each in the spellings NVRTC accepts. Include paths, macros, the
 * target, debug and relocatable code stay the judge's: a macro is @const's
 * job, and the judge compiles for its own GPU. A Triton file has no @flags
 * (its options are @launch keys). The @flags parser itself is flags.c's
 * dparse_flags (directive_parser.h).
 */
#ifndef BW_FLAGS_H
#define BW_FLAGS_H

#include <stdbool.h>

/* The @flags allowlist: true if `option` (one token) may be passed to NVRTC. */
bool directive_flag_allowed(const char *option);
/* Human-readable list of allowed flags, for error messages and docs. */
const char *directive_flag_allowlist(void);

#endif
