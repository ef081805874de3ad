/* roff.c - text for the manual pages (see roff.h). */
#include "roff.h"

#include <ctype.h>
#include <stdbool.h>

void roff_put(FILE *out, const char *s, size_t n)
{
    bool space = false, start = true;
    for (size_t i = 0; i < n; i++) {
        if (isspace((unsigned char)s[i])) {
            space = !start;
            continue;
        }
        if (space) fputc(' ', out);
        space = false;
        if (start && (s[i] == '.' || s[i] == '\'')) fputs("\\&", out);
        start = false;
        if (s[i] == '\\')
            fputs("\\e", out);
        else if (s[i] == '-')
            fputs("\\-", out);
        else
            fputc(s[i], out);
    }
}
