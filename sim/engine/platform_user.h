/* platform_user.h - a user's platform file checked before SimGrid sees it (internal to the
 * platform module; callers use platform.h).
 *
 * SimGrid aborts the whole process on a second id in a namespace, a route through an undeclared
 * link or an unreadable rate; these are found here first and reported as FILE:LINE errors. What
 * the file holds is counted on the way, for the memory estimate (platform_mem.h).
 */
#ifndef DMLSIM_PLATFORM_USER_H
#define DMLSIM_PLATFORM_USER_H

#include "error.h"
#include "platform_mem.h"

/* Checks a user's platform file: well-formed, a <platform> root, no id given twice in its
 * namespace (hosts and routers, zones, links), a GPU property names a catalog GPU, speeds and
 * bandwidths > 0, latencies >= 0, every <link_ctn> names a declared link. Counts what it holds
 * into *size (zeroed first). Errors: the document's own (xmldoc_read), else DMLSIM_EPLATFORM.
 * SimGrid's own checks (its DTD) come at load, and the routes after it (platform_route.h). */
enum dmlsim_err platform_user_check(const char *path, struct pf_size *size,
                                    struct dmlsim_error *err);

#endif
