/* campaign_costs.c - a campaign's costs read back from its JSON (campaign_costs.h). */
#include "campaign_costs.h"

#include "campaign_json.h"

#include <xbt/sysdep.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The numbers of the array after "key": [...] into v (at most max); their count, or -1. */
static int numbers(const char *from, const char *key, double *v, int max)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\": [", key);
    const char *p = from ? strstr(from, k) : NULL;
    if (p == NULL) return -1;
    p += strlen(k);
    int n = 0;
    while (*p && *p != ']') {
        char *end;
        double x = strtod(p, &end);
        if (end == p) {
            p++;
            continue;
        }
        if (n == max) return -1;
        v[n++] = x;
        p = end;
    }
    return n;
}

static int read_shrunk(const char *costs, struct camp_costs *k)
{
    const char *p = strstr(costs, "\"shrunk\": [");
    const char *end = p ? strchr(p, ']') : NULL;
    k->nshrunk = 0;
    while (p && (p = strstr(p, "{\"dp\": ")) != NULL && p < end && k->nshrunk < CAMP_MAX_SHRUNK) {
        k->shrunk_dp[k->nshrunk] = (int)campaign_json_num(p, "dp");
        k->shrunk_step_s[k->nshrunk++] = campaign_json_num(p, "step_s");
        p++;
    }
    return 0;
}

static int refuse(const char *path, const char *what)
{
    fprintf(stderr, "%s:0: %s; expected the --json of a campaign of this scenario\n", path, what);
    return 1;
}

int campaign_costs_read(const char *path, const struct scenario *sc, const struct camp_config *cfg,
                        struct camp_costs *k)
{
    char *buf = campaign_json_read(path), name[256];
    if (buf == NULL) return refuse(path, "cannot read it");
    int st = 0;
    const char *costs = strstr(buf, "\"costs\": {");
    snprintf(name, sizeof name, "\"name\": \"%s\",", sc->name);
    memset(k, 0, sizeof *k);
    if (costs == NULL || strstr(buf, name) == NULL)
        st = refuse(path, "not this scenario's costs");
    else if (campaign_json_num(buf, "gpus") != cfg->gpus ||
             campaign_json_num(buf, "tokens_per_step") != cfg->tokens_per_step)
        st = refuse(path, "costs of another job (its GPUs or tokens a step differ)");
    if (st == 0) {
        k->step_s = campaign_json_num(costs, "step_s");
        k->ckpt_block_s = campaign_json_num(costs, "ckpt_block_s");
        k->ckpt_commit_s = campaign_json_num(costs, "ckpt_commit_s");
        k->watchdog_s = campaign_json_num(costs, "watchdog_s");
        k->restart_s = campaign_json_num(costs, "restart_s");
        k->reload_s = campaign_json_num(costs, "reload_s");
        k->busy_power_w = campaign_json_num(costs, "busy_power_w");
        read_shrunk(costs, k);
        int n = numbers(costs, "slow_step_s", k->slow_step_s, CAMP_MAX_CAUSES);
        if (n != cfg->ncauses) st = refuse(path, "costs of another failure mix");
    }
    bool bad = !(k->step_s > 0) || isnan(k->ckpt_block_s) || isnan(k->watchdog_s) ||
               isnan(k->restart_s) || isnan(k->reload_s) || isnan(k->busy_power_w);
    if (st == 0 && bad) st = refuse(path, "incomplete costs");
    if (st == 0 && cfg->policy == CAMP_SHRINK && k->nshrunk == 0)
        st = refuse(path, "no shrunk sizes simulated (it was not on-shortage=\"shrink\")");
    for (int c = 0; st == 0 && c < cfg->ncauses; c++)
        if (cfg->causes[c].kind == CAMP_SLOW && !(k->slow_step_s[c] > 0))
            st = refuse(path, "no slow step simulated for a fail-slow cause");
    free(buf);
    return st;
}
