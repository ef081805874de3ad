/* net.c - asynchronous transfers with deadlines (see net.h). */
#include "net.h"

#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/mailbox.h>

#include <assert.h>
#include <stddef.h>

static enum net_status status_of(sg_error_t e)
{
    switch (e) {
    case SG_OK:
        return NET_OK;
    case SG_ERROR_TIMEOUT:
        return NET_TIMEOUT;
    default:
        return NET_FAILURE;
    }
}

/* SimGrid sizes are whole bytes; round rather than truncate fractional chunk sizes. */
static long whole_bytes(double size_B)
{
    return (long)(size_B + 0.5);
}

enum net_status net_send(sg_mailbox_t mb, void *payload, double size_B, double timeout_s)
{
    assert(payload != NULL && size_B >= 0 && timeout_s > 0);
    sg_comm_t comm = sg_mailbox_put_async(mb, payload, whole_bytes(size_B));
    return status_of(sg_comm_wait_for(comm, timeout_s));
}

sg_comm_t net_isend(sg_mailbox_t mb, void *payload, double size_B)
{
    assert(payload != NULL && size_B >= 0);
    return sg_mailbox_put_async(mb, payload, whole_bytes(size_B));
}

sg_comm_t net_irecv(sg_mailbox_t mb, void **payload)
{
    return sg_mailbox_get_async(mb, payload);
}

enum net_status net_wait(sg_comm_t comm, double deadline_s)
{
    double left = deadline_s - simgrid_get_clock();
    /* A deadline already passed still gets a zero-length wait, which releases the handle. */
    return status_of(sg_comm_wait_for(comm, left > 0 ? left : 0));
}

enum net_status net_recv(sg_mailbox_t mb, void **payload, double timeout_s)
{
    assert(payload != NULL && timeout_s > 0);
    *payload = NULL;
    sg_comm_t comm = sg_mailbox_get_async(mb, payload);
    enum net_status st = status_of(sg_comm_wait_for(comm, timeout_s));
    if (st != NET_OK) *payload = NULL;
    return st;
}

const char *net_status_str(enum net_status st)
{
    switch (st) {
    case NET_OK:
        return "ok";
    case NET_TIMEOUT:
        return "timeout";
    case NET_FAILURE:
        return "failure";
    }
    return "?";
}
