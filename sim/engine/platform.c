/* platform.c - the loaded platform's host lookups and natural name order (see platform.h; the
 * generator is platform_gen.c, loading platform_load.c). */
#include "platform.h"

#include <simgrid/host.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int platform_name_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            char *ea, *eb;
            unsigned long long va = strtoull(a, &ea, 10), vb = strtoull(b, &eb, 10);
            if (va != vb) return va < vb ? -1 : 1;
            a = ea;
            b = eb;
            continue;
        }
        if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

void platform_free(struct platform *pf)
{
    if (pf == NULL) return;
    free(pf->gpus);
    free(pf->models);
    free(pf->ps_hosts);
    free(pf->cpu_hosts);
    free(pf->nvswitch);
    free(pf->description);
    free(pf);
}

sg_host_t platform_node_cpu(const struct platform *pf, sg_host_t gpu)
{
    const char *node = sg_host_get_property_value(gpu, "node");
    for (size_t i = 0; node && i < pf->ncpus; i++) {
        const char *n = sg_host_get_property_value(pf->cpu_hosts[i], "node");
        if (n && strcmp(n, node) == 0) return pf->cpu_hosts[i];
    }
    return NULL;
}

sg_disk_t platform_host_disk(sg_host_t h)
{
    unsigned int n = 0;
    sg_disk_t *disks = NULL;
    sg_host_get_disks(h, &n, &disks);
    sg_disk_t d = n > 0 ? disks[0] : NULL;
    free(disks);
    return d;
}
