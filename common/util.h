/*
 * util.h - small helpers every part uses: strict number parsing, bounded file
 * reading, paths, monotonic time.
 */
#ifndef BW_UTIL_H
#define BW_UTIL_H

#include <stdbool.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

/* Parses a whole string as a decimal int64 (optional sign); false on junk,
 * empty input or overflow. Replaces atoi/strtol-without-checks. */
bool parse_i64(const char *s, int64_t *out);
/* A decimal uint64, digits only (no sign, no blanks), the whole range. */
bool parse_u64(const char *s, uint64_t *out);
/* As parse_i64 for a finite double (strtod syntax); false on junk or inf/nan. */
bool parse_double(const char *s, double *out);

/*
 * Reads a whole regular file of at most `max` bytes into a *new* NUL-terminated
 * buffer (*out; *len excludes the NUL). Refuses non-regular files (a FIFO
 * would block) with BW_ERR_INVALID, larger files with BW_ERR_LIMIT.
 */
int read_file(const char *path, size_t max, char **out, size_t *len, char **cause);

/*
 * Opens dir/rel for reading without following a symbolic link anywhere under
 * `dir`: rel is walked from `dir` one component at a time with O_NOFOLLOW
 * (`dir` itself may be a link: where an admin put it). The last component
 * must be a regular file, or with `directory` a directory; a FIFO, device or
 * socket is refused without blocking. Returns a new close-on-exec descriptor
 * (its fstat in *st when st is not NULL), or a negative code with a cause
 * that names the offending path: BW_ERR_NOTFOUND ("no such file"),
 * BW_ERR_INVALID (a symbolic link, not a regular file, a bad rel: absolute,
 * empty, "." or ".." components), BW_ERR_IO. Used for every file of a problem
 * directory, which must be its own (docs/problem-format.md §1).
 */
int open_in_dir(const char *dir, const char *rel, bool directory, struct stat *st, char **cause);

/* read_file of dir/rel opened with open_in_dir; messages name "dir/rel". */
int read_file_in_dir(const char *dir, const char *rel, size_t max, char **out, size_t *len,
                     char **cause);

/* Writes `len` bytes to path through a temporary file and rename(2). */
int write_file_atomic(const char *path, const void *data, size_t len, char **cause);

/* Creates directory `path` and any missing parents (mode 0755), as mkdir -p;
 * an existing directory is fine. BW_ERR_IO names the one that failed. */
int mkdirs(const char *path, char **cause);

/* Returns a *new* string "a/b" (no doubled slash); NULL if out of memory. */
char *path_join(const char *a, const char *b);

/* A *new* copy of s, or NULL when s is NULL (a caller tells that from out of
 * memory by s itself). */
char *strdup_or_null(const char *s);

/* Directory of the running executable, a *new* string; NULL on failure. */
char *exe_dir(void);

/* Monotonic clock in nanoseconds and milliseconds. */
uint64_t now_ns(void);
double now_ms(void);
/* The CLOCK_MONOTONIC time of now_ms()'s instant ms: a deadline for pthread_cond_timedwait on a
 * condition variable made with that clock. */
struct timespec monotonic_timespec(double ms);
/* Initialises c on CLOCK_MONOTONIC, so that its timed waits take monotonic_timespec deadlines
 * (a change of the wall clock moves none of them). */
void monotonic_cond_init(pthread_cond_t *c);
/* Wall-clock milliseconds since the Unix epoch (CLOCK_REALTIME): a time other
 * processes and machines agree on, unlike now_ms. */
int64_t wall_ms(void);

/* True if name is [A-Za-z_][A-Za-z0-9_]* and at most BW_MAX_NAME bytes. */
bool is_identifier(const char *name);

/* Saturating-free checked arithmetic: false on int64 overflow. */
static inline bool i64_mul(int64_t a, int64_t b, int64_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}
static inline bool i64_add(int64_t a, int64_t b, int64_t *out)
{
    return !__builtin_add_overflow(a, b, out);
}

#endif
