/* fuzz_sim.c - libFuzzer harness past loading and into the simulation (issue 28: "every run
 * ends, every failure is reported"). An input the loader accepts that describes a tiny training
 * (a generated cluster of at most FUZZ_SIM_MAX_GPUS GPUs, at most FUZZ_SIM_MAX_STEPS steps, a
 * small model, few messages a step, a short fault plan, no real training) is run as `dmlsim run
 * FILE --json /dev/null` in a child process forked for it: SimGrid's engine can be set up once
 * per process, and a crash after loading must be a crash of this harness. The child runs the CLI's
 * own code (sim/cli/main.c compiled in with main renamed dmlsim_main) under a wall-clock alarm and
 * a CPU limit of FUZZ_SIM_LIMIT_S; the parent waits for it and
 *   - accepts exit 0 (the job completed), 1 (refused by the strategy's check), 3 (an <expect>
 *     failed) and 4 (the simulated job failed);
 *   - re-raises a crash signal the child died of (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT: a
 *     sanitizer report ends in abort) after copying the child's stderr to its own, so libFuzzer
 *     records the input as a crash;
 *   - aborts on anything else: another exit status, or the child stopped by its limits (a run
 *     that does not end within seconds).
 * Coverage: libFuzzer sees only what the parent runs (loading, the model, the fault plan); the
 * child's counters stay in its own copy of the memory. Inputs past the limits are loaded only. */
#include "fault.h"
#include "fuzz_common.h"
#include "level.h"
#include "model.h"
#include "platform.h"
#include "scenario.h"

#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#define FUZZ_SIM_MAX_GPUS 8        /* workers of a tiny cluster */
#define FUZZ_SIM_MAX_STEPS 8       /* steps simulated */
#define FUZZ_SIM_MAX_LAYERS 64     /* layers of the model built */
#define FUZZ_SIM_MAX_MESSAGES 2e4  /* level_step_messages: the bound on a step's messages */
#define FUZZ_SIM_MAX_EVENTS 32     /* events of the fault plan */
#define FUZZ_SIM_MAX_SAMPLES 1e4   /* <data samples> */
#define FUZZ_SIM_LIMIT_S 5         /* the child's wall-clock alarm and CPU limit (seconds; the
                                      environment's FUZZ_SIM_LIMIT_S overrides it) */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int dmlsim_main(int argc, char **argv); /* sim/cli/main.c, compiled with -Dmain=dmlsim_main */

static int in_child;
static long inputs, simulated; /* printed at exit: how much of the fuzzing reached a run */

static void print_counts(void)
{
    if (!in_child) fprintf(stderr, "fuzz_sim: %ld of %ld inputs simulated\n", simulated, inputs);
}

static unsigned limit_s(void)
{
    const char *e = getenv("FUZZ_SIM_LIMIT_S");
    int v = e ? atoi(e) : 0;
    return v > 0 ? (unsigned)v : FUZZ_SIM_LIMIT_S;
}

/* LeakSanitizer's hook: the child ends with _exit, or with exit inside the CLI (SimGrid keeps
 * its engine to the end), so its leak check at exit is off; the parent's stays on. */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
    return in_child;
}

/* Whether sc is a training small enough to simulate within the limit (sizes from the scenario
 * alone: no model built for an oversized transformer). */
static bool tiny_scenario(const struct scenario *sc)
{
    const struct train_spec *t = &sc->train;
    if (!sc->has_cluster || t->strategy == STRAT_NONE || sc->bench.kind != BENCH_NONE) return false;
    const struct cluster_spec *c = &sc->cluster;
    if (c->nodes > FUZZ_SIM_MAX_GPUS || c->nodes * c->gpus_per_node > FUZZ_SIM_MAX_GPUS)
        return false;
    if (c->ps_nodes > 2 || t->steps > FUZZ_SIM_MAX_STEPS || t->batch > 1024) return false;
    if (t->numerics.present) return false; /* real training: the dataset's read and the MLP */
    if (t->data.present && t->data.samples > FUZZ_SIM_MAX_SAMPLES) return false;
    if (t->strategy == STRAT_HYBRID && t->par.microbatches > 8) return false;
    if (sc->model.present && sc->model.preset != NULL) {
        const struct gpt_config *g = &sc->model.gpt;
        if (g->layers > 16 || g->seq > 4096 || g->experts > 8) return false;
    }
    if (sc->model.present && sc->model.preset == NULL &&
        sc->model.explicit_.nlayers > FUZZ_SIM_MAX_LAYERS)
        return false;
    return true;
}

/* Whether the built model and fault plan stay small (as `dmlsim run` builds them). */
static bool tiny_run(struct scenario *sc, const char *path)
{
    struct model m = {0};
    scenario_build_model(sc, &m);
    int P = sc->train.gpus > 0 ? sc->train.gpus
                               : sc->cluster.nodes * sc->cluster.gpus_per_node;
    bool ok = m.nlayers <= FUZZ_SIM_MAX_LAYERS &&
              (sc->train.level == COLL_FLOW ||
               level_step_messages(sc, &m, P) <= FUZZ_SIM_MAX_MESSAGES);
    model_release(&m);
    if (!ok) return false;
    struct platform_doc *doc = NULL;
    struct fault_names names;
    struct fault_plan plan;
    struct dmlsim_error err = {0};
    (void)path;
    enum dmlsim_err rc = platform_open(sc, &doc, &names, &err);
    if (rc == DMLSIM_OK) rc = fault_plan_build(sc, &names, &plan, &err);
    if (rc == DMLSIM_OK) {
        ok = plan.n <= FUZZ_SIM_MAX_EVENTS;
        fault_plan_release(&plan);
    } else {
        ok = false; /* refused: fuzz_plan checks its message */
    }
    platform_names_release(&names);
    platform_close(doc);
    return ok;
}

/* The child's crash handler: the signal and a backtrace on stderr, then death by the signal, so
 * the parent sees it (ASan's own SEGV report can spin for seconds on a SimGrid actor's stack). */
static void child_crash(int sig)
{
    static const char msg[] = "fuzz_sim: the simulation's process crashed; backtrace:\n";
    if (write(2, msg, sizeof msg - 1) < 0) _exit(99);
    void *pc[64];
    backtrace_symbols_fd(pc, backtrace(pc, 64), 2);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* The child: `dmlsim run PATH --json /dev/null`, stdout discarded, stderr into errfd. */
static void run_child(const char *path, int errfd)
{
    in_child = 1;
    static const int dfl[] = {SIGABRT, SIGALRM, SIGXCPU, SIGINT, SIGTERM, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof dfl / sizeof dfl[0]; i++)
        signal(dfl[i], SIG_DFL); /* libFuzzer's handlers belong to the parent */
    void *warm[1];
    backtrace(warm, 1); /* loads libgcc's unwinder now, not in the handler */
    static char altstack[1 << 16];
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
    sigaltstack(&ss, NULL);
    struct sigaction sa = {.sa_handler = child_crash, .sa_flags = SA_ONSTACK | SA_NODEFER};
    static const int crash[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof crash / sizeof crash[0]; i++)
        sigaction(crash[i], &sa, NULL);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 1);
    dup2(errfd, 2);
    struct rlimit cpu = {limit_s(), limit_s() + 1};
    setrlimit(RLIMIT_CPU, &cpu);
    alarm(limit_s());
    char *argv[] = {"dmlsim", "run", (char *)path, "--json", "/dev/null", NULL};
    int st = dmlsim_main(5, argv);
    fflush(NULL);
    _exit(st);
}

/* The child's stderr (its last 16 KiB) onto the parent's. */
static void copy_stderr(int errfd)
{
    char buf[16384];
    off_t end = lseek(errfd, 0, SEEK_END);
    if (end < 0) return;
    off_t from = end > (off_t)sizeof buf ? end - (off_t)sizeof buf : 0;
    ssize_t n = pread(errfd, buf, sizeof buf, from);
    if (n > 0) fwrite(buf, 1, (size_t)n, stderr);
}

static void simulate(const char *path)
{
    static int errfd = -1;
    if (errfd < 0) {
        char name[64];
        snprintf(name, sizeof name, "/tmp/dmlsim-fuzz-sim-%d.err", (int)getpid());
        errfd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
        if (errfd < 0) abort();
        unlink(name);
    }
    if (ftruncate(errfd, 0) != 0) abort();
    lseek(errfd, 0, SEEK_SET);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) abort();
    if (pid == 0) run_child(path, errfd);
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR) abort();
    if (WIFEXITED(ws)) {
        int st = WEXITSTATUS(ws);
        if (st == 0 || st == 1 || st == 3 || st == 4) return;
        copy_stderr(errfd);
        fprintf(stderr, "fuzz_sim: dmlsim run exited %d (expected 0, 1, 3 or 4)\n", st);
        abort();
    }
    int sig = WIFSIGNALED(ws) ? WTERMSIG(ws) : 0;
    copy_stderr(errfd);
    if (sig == SIGALRM || sig == SIGXCPU || sig == SIGKILL) {
        fprintf(stderr, "fuzz_sim: dmlsim run did not end within %u s (signal %d)\n", limit_s(),
                sig);
        abort();
    }
    fprintf(stderr, "fuzz_sim: dmlsim run died of signal %d (%s)\n", sig, strsignal(sig));
    if (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGABRT)
        raise(sig);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (inputs++ == 0) atexit(print_counts);
    const char *path = fuzz_input_file(data, size);
    struct scenario sc;
    struct dmlsim_error err = {0};
    if (scenario_load(path, &sc, &err) != DMLSIM_OK) {
        fuzz_check_error(&err);
        return 0;
    }
    bool run = tiny_scenario(&sc) && tiny_run(&sc, path);
    scenario_release(&sc);
    if (run) {
        simulated++;
        simulate(path);
    }
    return 0;
}
