/*
 * What the files of libcore/tools share among themselves.  Everything a
 * client sees is in include/gasnet_tools.h; nothing here is exported.
 */
#ifndef GP_TOOLS_TOOLS_H
#define GP_TOOLS_TOOLS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The parser behind gasnett_parse_int and gasnett_getenv_int_withdefault.
 * Returns GASNET_OK, or GASNET_ERR_BAD_ARG leaving *out untouched.
 */
int gp_tools_parse_int(const char *text, uint64_t mem_size_multiplier, int64_t *out);
/* The accepted form, for the error sentence: "an integer (...)" or "a memory size (...)". */
void gp_tools_int_form(uint64_t mem_size_multiplier, char *buf, size_t len);

/*
 * A backtrace of the calling thread on fd: a header naming the process,
 * then one line per frame.  Async-signal-safe once the unwinder is loaded
 * (gasnett_backtrace_init).  0, or -1 when no frame could be read.
 */
int gp_backtrace_write(int fd);

/*
 * Reads GASNET_FREEZE, GASNET_FREEZE_ON_ERROR and GASNET_BACKTRACE from the
 * loaded configuration (tools/freeze.c): installs the fatal report they
 * ask for, and freezes now under GASNET_FREEZE.  Called once by
 * gasnet_init, with the node's rank and the job size for the messages.
 */
void gp_debug_setup(long rank, long nodes);
/* Whether gp_debug_setup has run (the fatal report then has the settings). */
int gp_debug_active(void);

#endif
