/* roff.h - text for the manual pages (dmlsim(1), dmlsim-scenario(5)) in roff. */
#ifndef DMLSIM_ROFF_H
#define DMLSIM_ROFF_H

#include <stddef.h>
#include <stdio.h>

/* s[0..n) as roff text, without a newline: whitespace runs collapsed to one space (leading ones
 * dropped), backslashes and dashes escaped (a name or option copied from the page types back as
 * written), and a leading dot or quote kept from reading as a request. */
void roff_put(FILE *out, const char *s, size_t n);

#endif
