/* ps_coord.h - the version coordinator (optional, on shard 0's host; internal to ps*.c).
 *
 * Every shard reports each version it reaches; the coordinator tracks the global version (the
 * minimum) and costs one message per advance. With coordinator="enforce" it also answers the
 * workers' questions for the global version, once it has reached the version they need, and
 * pins it in the shards' histories until their pull is done.
 */
#ifndef DMLSIM_PS_COORD_H
#define DMLSIM_PS_COORD_H

#include "ps_state.h"

/* The coordinator's unanswered questions, forgotten (its host restarted, or the run is over). */
void ps_coord_drop_requests(struct ps_ctx *c);

/* Starts the coordinator on c->coord_host (a daemon: it serves as long as the shards run); again
 * when its host restarts, once the caller has zeroed c->coord_ver and dropped the requests. */
void ps_coord_start(struct ps_ctx *c);

#endif
