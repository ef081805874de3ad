/* net_sendto.cpp - SimGrid's host-to-host flows behind a C function (see net_sendto.h). */
#include "net_sendto.h"

#include <simgrid/s4u/Comm.hpp>

sg_comm_t net_sendto_start(sg_host_t from, sg_host_t to, long size_B)
{
    simgrid::s4u::CommPtr c = simgrid::s4u::Comm::sendto_async(from, to, (uint64_t)size_B);
    intrusive_ptr_add_ref(c.get()); /* the caller's reference, released by sg_comm_wait_for */
    return c.get();
}
