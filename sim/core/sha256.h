/* sha256.h - SHA-256 of a byte string (FIPS 180-4), for the outputs' provenance.
 *
 * A run's JSON and CSV name the scenario they came from by the SHA-256 of its file's bytes, so
 * that `sha256sum FILE.xml` tells whether a result is from that file. Written from the standard's
 * text (FIPS 180-4 §4.1.2, §4.2.2, §5.1.1, §6.2); one call hashes a whole buffer.
 */
#ifndef DMLSIM_SHA256_H
#define DMLSIM_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHA256_HEX 65 /* 64 lowercase hex digits and the NUL */

/* The digest of data[0..n) as 64 lowercase hex digits into hex. */
void sha256_hex(const void *data, size_t n, char hex[SHA256_HEX]);

/* The digest of the file at path into hex; false (hex "") if it cannot be read. */
bool sha256_file_hex(const char *path, char hex[SHA256_HEX]);

#endif
