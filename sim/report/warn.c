/* warn.c - a run's warnings (warn.h). */
#include "warn.h"

bool warn_detect_dominates(const struct run_record *rec)
{
    return rec->max_detect_s > 0 && rec->max_detect_s > rec->total_s - rec->max_recover_s;
}

void warn_print(const struct scenario *sc, const struct run_record *rec, FILE *out, FILE *err)
{
    if (!warn_detect_dominates(rec)) return;
    char msg[320];
    snprintf(msg, sizeof msg,
             "detection dominates: the longest fault took %.6g s to detect and %.6g s to resume "
             "training, of a %.6g s run; the collectives' watchdog is %g s (<training "
             "timeout>, by default PyTorch's NCCL process group's %g s): set <training "
             "timeout=\"...\"> to change it",
             rec->max_detect_s, rec->max_recover_s, rec->total_s, sc->train.timeout_s,
             DEFAULT_TIMEOUT_S);
    fprintf(out, "# warning  %s\n", msg);
    fflush(out);
    fprintf(err, "%s:%d: warning: %s\n", sc->path, sc->train.line, msg);
}
