/* sha256.c - SHA-256 (sha256.h), from FIPS 180-4. */
#include "sha256.h"

#include "mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* §4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
static const uint32_t K[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2};

static uint32_t rotr(uint32_t x, int n)
{
    return (x >> n) | (x << (32 - n));
}

/* §6.2.2: one 64-byte block into the hash value h. */
static void compress(uint32_t h[8], const unsigned char *b)
{
    uint32_t w[64], v[8];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)b[4 * t] << 24 | (uint32_t)b[4 * t + 1] << 16 |
               (uint32_t)b[4 * t + 2] << 8 | b[4 * t + 3];
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    memcpy(v, h, sizeof v);
    for (int t = 0; t < 64; t++) {
        uint32_t S1 = rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25);
        uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
        uint32_t t1 = v[7] + S1 + ch + K[t] + w[t];
        uint32_t S0 = rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22);
        uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
        memmove(v + 1, v, 7 * sizeof *v);
        v[4] += t1;
        v[0] = t1 + S0 + maj;
    }
    for (int i = 0; i < 8; i++)
        h[i] += v[i];
}

void sha256_hex(const void *data, size_t n, char hex[SHA256_HEX])
{
    /* §5.3.3: the initial hash value */
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    const unsigned char *p = data;
    size_t i = 0;
    for (; n - i >= 64; i += 64)
        compress(h, p + i);
    /* §5.1.1: a 1 bit, zeros, then the length in bits as 64 bits big-endian */
    unsigned char last[128] = {0};
    size_t r = n - i, len = r + 9 <= 64 ? 64 : 128;
    memcpy(last, p + i, r);
    last[r] = 0x80;
    uint64_t bits = (uint64_t)n * 8;
    for (int k = 0; k < 8; k++)
        last[len - 1 - k] = (unsigned char)(bits >> (8 * k));
    for (size_t k = 0; k < len; k += 64)
        compress(h, last + k);
    for (int k = 0; k < 8; k++)
        snprintf(hex + 8 * k, SHA256_HEX - 8 * k, "%08x", (unsigned)h[k]);
}

bool sha256_file_hex(const char *path, char hex[SHA256_HEX])
{
    hex[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (f == NULL) return false;
    size_t cap = 1 << 16, n = 0, got;
    unsigned char *buf = mem_alloc(cap);
    while ((got = fread(buf + n, 1, cap - n, f)) > 0)
        if ((n += got) == cap) buf = mem_realloc(buf, cap *= 2);
    bool ok = !ferror(f);
    fclose(f);
    if (ok) sha256_hex(buf, n, hex);
    free(buf);
    return ok;
}
