/* cli_sets.c - --set options into scenario overrides (cli_sets.h). */
#include "cli_sets.h"

#include <xbt/str.h>
#include <xbt/sysdep.h>

#include <stdlib.h>
#include <string.h>

int cli_sets_parse(const struct cli_args *a, struct scenario_override **ov, char ***keys,
                   const char ***sets, int *n)
{
    *ov = xbt_new0(struct scenario_override, a->nhits + 1);
    *keys = xbt_new0(char *, a->nhits + 1);
    *sets = xbt_new0(const char *, a->nhits + 1);
    *n = 0;
    for (int i = 0; i < a->nhits; i++) {
        const char *set = a->hits[i].value, *eq = set ? strchr(set, '=') : NULL;
        if (a->hits[i].key != CLI_SET) continue;
        if (eq == NULL) return cli_error(a->cmd, "--set expects ELEM.ATTR=VALUE"); /* as run */
        (*keys)[*n] = bprintf("%.*s", (int)(eq - set), set);
        (*ov)[*n] = (struct scenario_override){(*keys)[*n], eq + 1};
        (*sets)[(*n)++] = set;
    }
    return 0;
}

void cli_sets_free(struct scenario_override *ov, char **keys, const char **sets, int n)
{
    for (int i = 0; keys && i < n; i++)
        free(keys[i]);
    free(keys);
    free(ov);
    free(sets);
}
