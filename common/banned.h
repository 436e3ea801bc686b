/*
 * banned.h - functions Blockwise never calls, made into compile errors.
 *
 * Included last by every .c file of the project (after system headers), the
 * way git does: each banned name is redefined to an undeclared identifier so
 * a use fails to compile and names the reason. Use the replacements:
 *   strcpy/strcat/sprintf/vsprintf -> snprintf, struct buf (buf.h)
 *   strncpy/strncat                -> snprintf, memcpy with a checked length
 *   strtok                         -> strtok_r or an explicit scanner
 *   atoi/atol/atoll                -> parse_i64() (util.h): atoi hides errors
 *   gets                           -> fgets
 *   localtime/gmtime/ctime/asctime -> the _r variants (not thread-safe)
 */
#ifndef BW_BANNED_H
#define BW_BANNED_H

#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef atoi
#define atoi(x) BANNED(atoi)
#undef atol
#define atol(x) BANNED(atol)
#undef atoll
#define atoll(x) BANNED(atoll)
#undef gets
#define gets(x) BANNED(gets)
#undef gmtime
#define gmtime(t) BANNED(gmtime)
#undef localtime
#define localtime(t) BANNED(localtime)
#undef ctime
#define ctime(t) BANNED(ctime)
#undef asctime
#define asctime(t) BANNED(asctime)

#endif
