/* platform_fault.h - a fault plan written into a platform document (internal to the platform
 * module; callers use platform.h).
 *
 * A plan's link faults become SimGrid state and bandwidth profiles of the links it names (a
 * SPLITDUPLEX link with a state profile is split into its two halves, which SimGrid 3.32
 * requires), its stragglers extra pstates of their hosts; nothing else in the document changes.
 * The names a plan may target are read from the same document.
 */
#ifndef DMLSIM_PLATFORM_FAULT_H
#define DMLSIM_PLATFORM_FAULT_H

#include "fault.h"

#include <libxml/tree.h>

/* A user platform's own profile files (*_file attributes) are copied next to the rewritten
 * platform, since SimGrid looks them up beside the platform file. */
struct platform_fault_copy {
    const char *from_dir; /* the folder of the user's platform file */
    const char *to_dir;   /* the run's folder */
};

/* qsort comparator of strings (char *) in natural order (platform_name_cmp). */
int platform_fault_name_cmp(const void *x, const void *y);

/* Walk callback (platform_xml_walk) with data a struct fault_names: records host n's id (and
 * among the GPUs when it has property gpu) or link n's id. */
void platform_fault_collect_names(xmlNodePtr n, void *data);

/* Walk callback with data a struct platform_fault_copy: copies each profile file n names into
 * to_dir and points the attribute at the copy. */
void platform_fault_copy_profiles(xmlNodePtr n, void *data);

/* Writes plan's link faults as profile files in dir and points the links of the document at
 * root to them; its stragglers become pstates. Only the links and hosts the plan names change
 * (each done once); the plan is only read. */
void platform_fault_write_plan(xmlNodePtr root, const char *dir,
                               const struct fault_plan *plan);

#endif
