/* campaign_json.c - numbers from dmlsim's own JSON files (campaign_json.h). */
#include "campaign_json.h"

#include <xbt/sysdep.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *campaign_json_read(const char *path)
{
    FILE *f = fopen(path, "r");
    long len = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (len < 0 || len > (1L << 26) || fseek(f, 0, SEEK_SET) != 0) {
        if (f) fclose(f);
        return NULL;
    }
    char *buf = xbt_malloc((size_t)len + 1);
    size_t n = fread(buf, 1, (size_t)len, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

double campaign_json_num(const char *from, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *p = from ? strstr(from, k) : NULL;
    if (p == NULL) return NAN;
    char *end;
    double v = strtod(p + strlen(k), &end);
    return end == p + strlen(k) ? NAN : v;
}
