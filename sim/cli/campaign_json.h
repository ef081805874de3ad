/* campaign_json.h - numbers read back from dmlsim's own JSON files (a run's --json, a campaign's
 * --json), which dmlsim writes as "key": value; not a general JSON parser. */
#ifndef DMLSIM_CAMPAIGN_JSON_H
#define DMLSIM_CAMPAIGN_JSON_H

/* The whole file (at most 64 MiB) as a new string (free it), or NULL when it cannot be read. */
char *campaign_json_read(const char *path);

/* The number after the first "key": at or after `from` (NULL: none), or NAN when absent. */
double campaign_json_num(const char *from, const char *key);

#endif
