/* net.c - asynchronous transfers with deadlines (see net.h). */
#include "net.h"

#include <simgrid/comm.h>
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

enum net_status net_send(sg_mailbox_t mb, void *payload, double size_B, double timeout_s)
{
    assert(payload != NULL && size_B >= 0 && timeout_s > 0);
    sg_comm_t comm = sg_mailbox_put_async(mb, payload, (long)size_B);
    return status_of(sg_comm_wait_for(comm, timeout_s));
}

enum net_status net_recv(sg_mailbox_t mb, void **payload, double timeout_s)
{
    assert(payload != NULL && timeout_s > 0);
    *payload = NULL;
    sg_comm_t comm = sg_mailbox_get_async(mb, payload);
    enum net_status st = status_of(sg_comm_wait_for(comm, timeout_s));
    if (st != NET_OK)
        *payload = NULL;
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
