/*
 * Logging and fatal errors.
 *
 * Every message names its subsystem and, once the bootstrap has told us,
 * the node that printed it.  The level test happens before the arguments
 * are evaluated, so a disabled debug line costs one compare.  errno is
 * preserved across a log call so that a caller can log and then still
 * report the system error it saw.
 *
 * gp_fatal() prints the one-line form the architecture page fixes:
 *   gp: FATAL ERROR on node N/M: what happened (hint: which knob)
 * and then runs the fatal hook, which starts the graceful exit (until the
 * conduit installs one, the default hook tells the launcher and exits).
 */
#ifndef GP_UTIL_LOG_H
#define GP_UTIL_LOG_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>

enum gp_log_level {
    GP_LOG_ERROR = 0,
    GP_LOG_WARN  = 1,
    GP_LOG_INFO  = 2,
    GP_LOG_DEBUG = 3,
    GP_LOG_TRACE = 4
};

extern int gp_log_threshold;

/* Set once the node's identity is known: messages then say "node N/M". */
void gp_log_set_identity(long rank, long nodes);
/* Parse GP_LOG_LEVEL-style names ("error".."trace") or digits; -1 if unknown. */
int gp_log_level_parse(const char *text);

void gp_log_emit(int level, const char *subsys, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void gp_log_vemit(int level, const char *subsys, const char *fmt, va_list ap);

#define gp_log(level, subsys, ...)                                  \
    do {                                                            \
        if ((level) <= gp_log_threshold) {                          \
            int gp_log_saved_errno_ = errno;                        \
            gp_log_emit((level), (subsys), __VA_ARGS__);            \
            errno = gp_log_saved_errno_;                            \
        }                                                           \
    } while (0)

#define gp_error(subsys, ...) gp_log(GP_LOG_ERROR, subsys, __VA_ARGS__)
#define gp_warn(subsys, ...)  gp_log(GP_LOG_WARN, subsys, __VA_ARGS__)
#define gp_info(subsys, ...)  gp_log(GP_LOG_INFO, subsys, __VA_ARGS__)
#define gp_debug(subsys, ...) gp_log(GP_LOG_DEBUG, subsys, __VA_ARGS__)

/* A warning printed at most once per call site. */
#define gp_warn_once(subsys, ...)                                   \
    do {                                                            \
        static int gp_warned_once_;                                 \
        if (!gp_warned_once_) {                                     \
            gp_warned_once_ = 1;                                    \
            gp_warn(subsys, __VA_ARGS__);                           \
        }                                                           \
    } while (0)

/* Prints the fatal line and starts the graceful exit; never returns. */
_Noreturn void gp_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The fatal hook is what "start the graceful exit" means at a given stage:
 * the bootstrap installs one that tells the launcher, the conduit later
 * installs one that runs its exit protocol.  It must not return.
 */
typedef void (*gp_fatal_hook_fn)(int exit_code);
void gp_set_fatal_hook(gp_fatal_hook_fn hook);

/*
 * The fatal report: what a developer asked to see when the process ends
 * badly (GASNET_BACKTRACE, GASNET_FREEZE_ON_ERROR; tools/freeze.c).  It
 * runs after the fatal line and before the hook, from gp_fatal (sig 0) and
 * from the fatal-signal handler (sig > 0), so it must be async-signal-safe.
 */
typedef void (*gp_fatal_report_fn)(int sig);
void gp_set_fatal_report(gp_fatal_report_fn report);
/* Runs the report once, if one is installed; 1 if one is. */
int gp_fatal_report_run(int sig);

/*
 * Async-signal-safe output for signal handlers: a line built in a caller's
 * buffer from text and decimal numbers (no printf), written with write(2).
 * Each append returns the new length, never more than size - 1.
 */
size_t gp_sigsafe_append(char *buf, size_t len, size_t size, const char *text);
size_t gp_sigsafe_append_uint(char *buf, size_t len, size_t size, unsigned long value);
void gp_sigsafe_write(int fd, const char *buf, size_t len);

#endif
