/* ps_port.h - port (k, r): shard k's end of worker r's connection (internal to ps*.c).
 *
 * One port actor per worker on each shard's host answers the worker's pulls (in sync mode a pull
 * for the version after the one the shard collects is held until the shard advances) and
 * receives its pushes into the shard's queue. One port per worker lets all transfers into and
 * out of a shard proceed at once and share its link, as a real server's connections do.
 */
#ifndef DMLSIM_PS_PORT_H
#define DMLSIM_PS_PORT_H

#include "ps_state.h"

/* Port p's actor (its data: p) on its shard's host, a daemon: serves its worker for as long
 * as the run lasts (async: sends each push's verdict once its shard has decided). */
void ps_port_actor(int argc, char **argv);

#endif
