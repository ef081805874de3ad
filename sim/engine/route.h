/* route.h - the link classes a route crosses, from link names "<where>.<class>" (platform.h). */
#ifndef DMLSIM_ROUTE_H
#define DMLSIM_ROUTE_H

#include <simgrid/forward.h>

#include <stddef.h>

/* The class of a link from its name ("node0.gpu1.nvlink4_UP" -> "nvlink4"), into buf. */
const char *route_link_class(const char *link_name, char *buf, size_t len);

/* The classes along the route from a to b, consecutive repeats merged, joined by '>'
 * ("pcie-gen5>ib-ndr>pcie-gen5"); "local" for an empty route. Returns buf. */
const char *route_classes(sg_host_t a, sg_host_t b, char *buf, size_t len);

#endif
