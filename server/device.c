#include "device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "common/error.h"
#include "common/limits.h"
#include "common/util.h"
#include "common/banned.h"

/* The payload: "1|NAME|ISSUED|NONCE" (names are [a-z0-9_.-], no '|'). */
#define PAYLOAD_CHARS 128

int device_key_load(struct store *st, unsigned char key[DEVICE_KEY_BYTES], char **cause)
{
    unsigned char fresh[DEVICE_KEY_BYTES];
    crypto_auth_keygen(fresh);
    int rc = store_server_key(st, "device_cookie", fresh, sizeof(fresh), key, cause);
    sodium_memzero(fresh, sizeof(fresh));
    return rc;
}

void device_cookie_make(const unsigned char key[DEVICE_KEY_BYTES], const char *name, int64_t now,
                        char out[DEVICE_COOKIE_CHARS])
{
    unsigned char raw[16], mac[crypto_auth_BYTES];
    char nonce[DEVICE_NONCE_CHARS], payload[PAYLOAD_CHARS];
    randombytes_buf(raw, sizeof(raw));
    sodium_bin2hex(nonce, sizeof(nonce), raw, sizeof(raw));
    int n = snprintf(payload, sizeof(payload), "1|%s|%lld|%s", name, (long long)now, nonce);
    if (n < 0 || (size_t)n >= sizeof(payload)) {
        out[0] = '\0';
        return;
    }
    crypto_auth(mac, (const unsigned char *)payload, (unsigned long long)n, key);
    size_t used;
    sodium_bin2base64(out, DEVICE_COOKIE_CHARS, (const unsigned char *)payload, (size_t)n,
                      sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    used = strlen(out);
    out[used++] = '.';
    sodium_bin2base64(out + used, DEVICE_COOKIE_CHARS - used, mac, sizeof(mac),
                      sodium_base64_VARIANT_URLSAFE_NO_PADDING);
}

bool device_cookie_check(const unsigned char key[DEVICE_KEY_BYTES], const char *cookie,
                         const char *name, int64_t now, char nonce[DEVICE_NONCE_CHARS])
{
    unsigned char payload[PAYLOAD_CHARS], mac[crypto_auth_BYTES];
    size_t plen = 0, mlen = 0;
    const char *dot = cookie ? strchr(cookie, '.') : NULL;
    if (!dot || strlen(cookie) >= DEVICE_COOKIE_CHARS)
        return false;
    if (sodium_base642bin(payload, sizeof(payload) - 1, cookie, (size_t)(dot - cookie), NULL, &plen,
                          NULL, sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
        sodium_base642bin(mac, sizeof(mac), dot + 1, strlen(dot + 1), NULL, &mlen, NULL,
                          sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
        mlen != sizeof(mac) || crypto_auth_verify(mac, payload, plen, key) != 0)
        return false;
    payload[plen] = '\0';
    /* Signed by us: the fields are as device_cookie_make wrote them. */
    const char *p = (const char *)payload;
    size_t nlen = strlen(name);
    if (strncmp(p, "1|", 2) != 0 || strncmp(p + 2, name, nlen) != 0 || p[2 + nlen] != '|')
        return false;
    const char *issued = p + 3 + nlen;
    const char *bar = strchr(issued, '|');
    char text[24];
    int64_t at;
    if (!bar || (size_t)(bar - issued) >= sizeof(text))
        return false;
    memcpy(text, issued, (size_t)(bar - issued));
    text[bar - issued] = '\0';
    if (!parse_i64(text, &at) || at > now + 60 ||
        now - at > (int64_t)BW_DEVICE_COOKIE_DAYS * 24 * 3600)
        return false;
    if (strlen(bar + 1) != DEVICE_NONCE_CHARS - 1)
        return false;
    memcpy(nonce, bar + 1, DEVICE_NONCE_CHARS);
    return true;
}
