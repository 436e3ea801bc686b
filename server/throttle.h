/*
 * throttle.h - failed sign-ins counted per account name and per client
 * address, and the lockouts that follow them (429 with Retry-After).
 *
 * Policy (struct throttle_policy, from the config's signin_* keys): a name
 * may fail `account_failures` times, an address `address_failures` times;
 * the failure that reaches the count locks that name (or address) out for
 * `lockout_s`, and every further failure doubles the lockout, up to
 * `window_s`. Failures are forgotten `window_s` after the last one; a right
 * password clears its name's failures (not its address's, so that signing
 * in to one's own account does not buy more guesses at another). Names are
 * counted whether or not such an account exists, so a 429 tells nothing
 * about which names are real. An attempt is reserved before its password is
 * checked, so a burst of parallel guesses cannot run past the count.
 *
 * The state is in memory, in two fixed tables of BW_MAX_THROTTLE_ENTRIES
 * slots (names, addresses) keyed by a keyed SipHash of the key, so nobody
 * can aim collisions. Memory, not SQLite: a lockout only has to outlive the
 * next minutes, and a restart (which an attacker cannot cause) forgiving the
 * failures so far costs at most one more round of guesses, whereas writing
 * each failed attempt to the database would give every anonymous client a
 * write to the one database. When a table is full, the slot whose last
 * failure is oldest makes room (never one with an attempt in flight).
 *
 * Thread-safe (one mutex); `now_ms` is the caller's monotonic clock.
 */
#ifndef BW_SERVER_THROTTLE_H
#define BW_SERVER_THROTTLE_H

#include <stdbool.h>
#include <stdint.h>

struct throttle;

struct throttle_policy {
    int account_failures; /* failures of one name before a lockout; 0: names are not throttled */
    int address_failures; /* failures from one address before a lockout; 0: not throttled */
    int lockout_s;        /* the first lockout, doubled by each further failure */
    int window_s;         /* failures are forgotten this long after the last; the longest lockout */
};

enum throttle_scope { THROTTLE_ACCOUNT, THROTTLE_ADDRESS };

#define THROTTLE_KEY_CHARS 64 /* an address key: INET6_ADDRSTRLEN and a "/64" */

/* A new throttle (policy copied), or NULL when out of memory. */
struct throttle *throttle_new(const struct throttle_policy *p);
/* NULL is a no-op. */
void throttle_free(struct throttle *t);

/* Before a password is checked: returns 0 and reserves the attempt, which
 * must then end with exactly one throttle_end(); or returns the seconds to
 * wait (> 0, rounded up), reserving nothing, with *scope saying whose lockout
 * it is (the longer one when both are locked out). */
int throttle_begin(struct throttle *t, const char *name, const char *address, int64_t now_ms,
                   enum throttle_scope *scope);
enum throttle_outcome {
    THROTTLE_RIGHT,     /* the password was right: the name's failures are cleared */
    THROTTLE_WRONG,     /* a failure, for the name and the address */
    THROTTLE_UNCHECKED, /* no password was checked (the database was busy): not counted */
};

/* Ends a reserved attempt. Returns the seconds of the lockout this failure
 * started (0: none), with *scope saying whose (the longer one). */
int throttle_end(struct throttle *t, const char *name, const char *address,
                 enum throttle_outcome outcome, int64_t now_ms, enum throttle_scope *scope);

/* The key an address is counted under: IPv4 as is, an IPv4-mapped IPv6
 * address as its IPv4, other IPv6 by its /64 (one host's usual share);
 * anything else as is, truncated. Exposed for tests. */
void throttle_address_key(const char *address, char out[THROTTLE_KEY_CHARS]);

#endif
