/* traffic.h - what the simulated messages carried: messages and bytes in total and per link class.
 *
 * A message of S bytes from host a to host b adds S to every distinct link class on the route
 * a -> b (a GPU-to-GPU message across nodes counts once for pcie-gen5 and once for ib-ndr). The
 * classes of each route are looked up once and cached by host pair, so accounting stays cheap
 * at millions of messages. Classes come from link names (route_link_class).
 */
#ifndef DMLSIM_TRAFFIC_H
#define DMLSIM_TRAFFIC_H

#include <simgrid/forward.h>

#include <stddef.h>

struct traffic;

/* Returns a new, empty account owned by the caller (traffic_free). */
struct traffic *traffic_new(void);
void traffic_free(struct traffic *t);

/* Records one message of size_B bytes from a to b. */
void traffic_add(struct traffic *t, sg_host_t a, sg_host_t b, double size_B);

double traffic_messages(const struct traffic *t);
double traffic_bytes(const struct traffic *t);

/* Adds src's messages, bytes and classes to dst. */
void traffic_merge(struct traffic *dst, const struct traffic *src);

/* Link classes seen so far, in order of first use: name and bytes of class i < count. */
size_t traffic_nclasses(const struct traffic *t);
const char *traffic_class(const struct traffic *t, size_t i, double *bytes);

#endif
