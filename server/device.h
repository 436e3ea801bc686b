/*
 * device.h - "known device" cookies: a browser's signed proof that it signed
 * in as a user before, so that lockouts meant for password guessers spare it.
 *
 * After a right password (a sign-in or a sign-up) the server sets the cookie
 * DEVICE_COOKIE: the user name, when it was issued and a random nonce, with
 * an HMAC (libsodium's crypto_auth, HMAC-SHA-512-256) under a key kept in the
 * database (server_keys), so that cookies outlive a restart and nobody
 * without the key can make one. A sign-in that presents a valid, unexpired
 * cookie for the name it signs in as comes from a known device: the lockouts
 * of that name and of the client's address do not apply to it, only the
 * device's own (its failures are counted by its nonce, throttle.h). Anyone
 * else (a new browser, a script, a guesser) is an unknown device, throttled
 * as before. This is OWASP's "device cookie" defence: a guesser can lock the
 * admin out of new browsers, not out of the one the admin uses.
 *
 * The cookie is HttpOnly, SameSite=Strict, Path=/api/auth (only sign-in,
 * sign-up and sign-out see it) and Secure behind TLS; it is kept for
 * BW_DEVICE_COOKIE_DAYS and renewed at every sign-in. It proves nothing by
 * itself: the password is always checked.
 */
#ifndef BW_SERVER_DEVICE_H
#define BW_SERVER_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

#include <sodium.h>

struct store;

#define DEVICE_COOKIE       "bw_device"
#define DEVICE_COOKIE_CHARS 256 /* a cookie value with its NUL (about 170 used) */
#define DEVICE_NONCE_CHARS  33  /* 16 random bytes in hex, with the NUL */
#define DEVICE_KEY_BYTES    crypto_auth_KEYBYTES

/* The signing key, made (random) on the first call for a database and kept
 * there. */
int device_key_load(struct store *st, unsigned char key[DEVICE_KEY_BYTES], char **cause);

/* A new cookie value for `name`, issued at `now` (Unix seconds), into out. */
void device_cookie_make(const unsigned char key[DEVICE_KEY_BYTES], const char *name, int64_t now,
                        char out[DEVICE_COOKIE_CHARS]);

/* True if `cookie` (NULL: none) was made with `key` for `name` and is not
 * older than BW_DEVICE_COOKIE_DAYS at `now`; then nonce is its nonce. */
bool device_cookie_check(const unsigned char key[DEVICE_KEY_BYTES], const char *cookie,
                         const char *name, int64_t now, char nonce[DEVICE_NONCE_CHARS]);

#endif
