/* sgguard.cpp - a SimGrid exception that escapes an actor becomes a failed job (sgguard.h). */
#include "sgguard.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

static const char *guard_path = "dmlsim";
static int guard_line;

/* The escaped exception's message, its first line only. */
static std::string escaped_what()
{
    std::string what = "an exception that is not a std::exception";
    if (std::exception_ptr e = std::current_exception()) {
        try {
            std::rethrow_exception(e);
        } catch (const std::exception &x) {
            what = x.what();
        } catch (...) {
        }
    } else {
        what = "std::terminate without an exception";
    }
    size_t nl = what.find('\n');
    return nl == std::string::npos ? what : what.substr(0, nl);
}

[[noreturn]] static void on_terminate()
{
    std::string what = escaped_what();
    std::fflush(stdout);
    std::fprintf(stderr,
                 "%s:%d: the simulated job failed: SimGrid raised \"%s\" (a case dmlsim does not "
                 "handle yet: please report it with this scenario)\n",
                 guard_path, guard_line, what.c_str());
    std::fflush(stderr);
    std::_Exit(4);
}

extern "C" void sgguard_install(const char *path, int line)
{
    guard_path = path;
    guard_line = line;
    std::set_terminate(on_terminate);
}
