/* interrupt.c - SIGINT and SIGTERM end dmlsim cleanly (see interrupt.h). */
#include "interrupt.h"

#include "outfile.h"
#include "platform.h"
#include "sweep.h"

#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

/* SIGINT and SIGTERM: remove the temporary files of the outputs being written, the platform's
 * folder and a sweep's folder, stop the sweep's children, and exit with 128 + the signal
 * (async-signal-safe). */
static void on_interrupt(int sig)
{
    outfile_discard();
    platform_interrupt();
    sweep_interrupt();
    _exit(128 + sig);
}

void interrupt_catch(void)
{
    static const int sigs[] = {SIGINT, SIGTERM};
    static bool ignored[2], known;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT); /* one handler at a time */
    sigaddset(&sa.sa_mask, SIGTERM);
    for (int i = 0; i < 2; i++) {
        struct sigaction cur;
        if (!known) ignored[i] = sigaction(sigs[i], NULL, &cur) == 0 && cur.sa_handler == SIG_IGN;
        if (ignored[i])
            signal(sigs[i], SIG_IGN); /* simgrid_init does not keep it so */
        else
            sigaction(sigs[i], &sa, NULL);
    }
    known = true;
}
