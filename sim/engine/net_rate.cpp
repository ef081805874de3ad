/* net_rate.cpp - SimGrid's rate-bounded sends behind a C function (see net_rate.h). */
#include "net_rate.h"

#include <simgrid/mailbox.h>
#include <simgrid/s4u/Comm.hpp>

sg_comm_t net_rate_put_start(sg_mailbox_t mb, void *payload, long size_B, double rate_Bps)
{
    sg_comm_t c = sg_mailbox_put_init(mb, payload, size_B); /* the caller's reference */
    c->set_rate(rate_Bps);
    c->start();
    return c;
}
