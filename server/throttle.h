/*
 * throttle.h - failed sign-ins counted per account name and per client
 * address, and the lockouts that follow them (429 with Retry-After).
 *
 * Policy (struct throttle_policy, from the config's signin_* keys): a name
 * may fail `account_failures` times, an address `address_failures` times;
 * the failure that reaches the count locks that name (or address) out for
 * `lockout_s`, and every further failure doubles the lockout, up to
 * `window_s`. Failures are forgotten `window_s` after the last one; a right
 * password clears its name's failures and its own failures from that
 * address (not the address's others, so that signing in to one's own
 * account does not buy more guesses at another). Names are
 * counted whether or not such an account exists, so a 429 tells nothing
 * about which names are real. An attempt is reserved before its password is
 * checked, so a burst of parallel guesses at a name cannot run past its
 * count; from one address, up to BW_SIGNIN_ADDRESS_BURST may run at once
 * before its first lockout (a class behind one NAT signing in together; a
 * burst of guesses gets that many at most), and one at a time after it.
 *
 * Those lockouts are for unknown devices. A sign-in from a known device (a
 * browser that signed in as that name before, device.h) meets only its
 * device's own count (`account_failures`, by the cookie's nonce): a guesser
 * who locks out the admin's name, or a classroom's NAT address, does not
 * lock out the admin's own browser nor the learners'. A device locked out by
 * its own failures is an unknown device until its lockout ends.
 *
 * One server (SQLite): the state is in memory, in fixed tables of
 * BW_MAX_THROTTLE_ENTRIES slots (names, addresses, name-from-address pairs,
 * devices) keyed by a keyed SipHash of the key, so nobody can aim
 * collisions. Memory, not the database: a lockout only has to outlive the
 * next minutes, and a restart (which an attacker cannot cause) forgiving the
 * failures so far costs at most one more round of guesses, whereas writing
 * each failed attempt to the database would give every anonymous client a
 * write to the one database. When a table is full, the slot whose last
 * failure is oldest makes room (never one with an attempt in flight).
 *
 * Several servers (PostgreSQL, throttle_new_shared): a guesser sent to each
 * server in turn must meet one count, so the slots are rows of the store's
 * throttles table, keyed by the same SipHash under a key the servers share
 * (server_keys), each operation one transaction over the rows of its keys,
 * running the same code as in memory; forgotten rows are deleted by
 * throttle_prune. The write per failed attempt is the price of sharing;
 * nginx's limit_req in front (deploy/nginx.conf) caps its rate. An attempt
 * reserved by a server that died is given up after BW_THROTTLE_PENDING_S.
 *
 * Thread-safe; `now_ms` is throttle_clock_ms(): the monotonic clock in
 * memory, the wall clock (which servers share) when shared.
 *
 * Sign-ups are limited per client address with a token bucket (struct
 * rate_limit): `burst` at once (a class behind one NAT signing up together),
 * then one more every window/burst seconds. Each sign-up makes an account
 * with its own quotas, so an unlimited sign-up multiplies them. The buckets
 * live in a table like the one above; a full bucket is the same as none, so
 * when the table is full the fullest makes room.
 */
#ifndef BW_SERVER_THROTTLE_H
#define BW_SERVER_THROTTLE_H

#include <stdbool.h>
#include <stdint.h>

struct throttle;
struct store;

struct throttle_policy {
    int account_failures; /* failures of one name before a lockout; 0: names are not throttled */
    int address_failures; /* failures from one address before a lockout; 0: not throttled */
    int lockout_s;        /* the first lockout, doubled by each further failure */
    int window_s;         /* failures are forgotten this long after the last; the longest lockout */
};

enum throttle_scope {
    THROTTLE_ACCOUNT, /* a user name, from unknown devices */
    THROTTLE_ADDRESS, /* a client address, from unknown devices */
    THROTTLE_DEVICE,  /* a known device (device.h), by its cookie's nonce */
};

#define THROTTLE_KEY_CHARS 64 /* an address key: INET6_ADDRSTRLEN and a "/64" */

/* A new throttle (policy copied), or NULL when out of memory. */
struct throttle *throttle_new(const struct throttle_policy *p);
/* One whose state is shared in `st` (borrowed): NULL with *cause when the
 * store cannot give the servers' hash key. */
struct throttle *throttle_new_shared(const struct throttle_policy *p, struct store *st,
                                     char **cause);
/* The clock a throttle's now_ms is read from (see above). */
int64_t throttle_clock_ms(const struct throttle *t);
/* Deletes the shared rows whose failures are forgotten (nothing in memory). */
int throttle_prune(struct throttle *t, int64_t now_ms, char **cause);
/* NULL is a no-op. */
void throttle_free(struct throttle *t);

/* Before a password is checked. `device` is the nonce of a valid known-device
 * cookie for `name` (device.h), or NULL. Returns 0 and reserves the attempt,
 * which must then end with exactly one throttle_end(), given `device` if
 * *trusted and NULL otherwise; or returns the seconds to wait (> 0, rounded
 * up), reserving nothing, with *scope saying whose lockout it is (the longer
 * one when both are locked out). *trusted: the attempt comes from a known
 * device that is not locked out, and only the device's own failures count;
 * a locked-out device is an unknown one. */
int throttle_begin(struct throttle *t, const char *name, const char *address, const char *device,
                   int64_t now_ms, enum throttle_scope *scope, bool *trusted);
enum throttle_outcome {
    THROTTLE_RIGHT,     /* the password was right: the name's failures are cleared */
    THROTTLE_WRONG,     /* a failure, for the name and the address (or the device) */
    THROTTLE_UNCHECKED, /* no password was checked (the database was busy): not counted */
};

/* Ends a reserved attempt. Returns the seconds of the lockout this failure
 * started (0: none), with *scope saying whose (the longer one). A right
 * password from an unknown device also takes its name's own failures from
 * this address off the address's count: a class behind one NAT address
 * mistyping passwords is not a guesser, while a guesser never gets a
 * password right to take its failures back. */
int throttle_end(struct throttle *t, const char *name, const char *address, const char *device,
                 enum throttle_outcome outcome, int64_t now_ms, enum throttle_scope *scope);

/* Clears the failures and lockout of a user name (THROTTLE_ACCOUNT) or a
 * client address (THROTTLE_ADDRESS; its key, as throttle_address_key), for an
 * admin. True if there were any. */
bool throttle_unlock(struct throttle *t, enum throttle_scope scope, const char *key);

struct rate_limit;

/* Token buckets per client address: `burst` tokens, refilled at burst per
 * window_s seconds. NULL when out of memory. */
struct rate_limit *rate_new(int burst, int window_s);
/* Buckets shared in `st` (a full bucket is no row); NULL with *cause. */
struct rate_limit *rate_new_shared(int burst, int window_s, struct store *st, char **cause);
int64_t rate_clock_ms(const struct rate_limit *r);
/* Deletes the shared buckets that are full again (nothing in memory). */
int rate_prune(struct rate_limit *r, int64_t now_ms, char **cause);
/* NULL is a no-op. */
void rate_free(struct rate_limit *r);
/* Takes a token for `address`: 0, or (nothing taken) the seconds until one
 * is there, rounded up. A burst of 0 takes nothing and always returns 0. */
int rate_take(struct rate_limit *r, const char *address, int64_t now_ms);
/* Gives back a token taken for an attempt that made nothing (a name taken,
 * the database busy). */
void rate_give_back(struct rate_limit *r, const char *address, int64_t now_ms);

/* The key an address is counted under: IPv4 as is, an IPv4-mapped IPv6
 * address as its IPv4, other IPv6 by its /64 (one host's usual share);
 * anything else as is, truncated. Exposed for tests. */
void throttle_address_key(const char *address, char out[THROTTLE_KEY_CHARS]);

#endif
