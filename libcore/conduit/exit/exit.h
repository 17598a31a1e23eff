/*
 * exit.c: the graceful exit of seed 003 over the SYS queue: election of a
 * master, O(N) messages, timeouts, and the signals that start it.
 */
#ifndef GP_CONDUIT_EXIT_H
#define GP_CONDUIT_EXIT_H

#include <gasnet.h>
#include <signal.h>
#include <stdint.h>

#include "conduit/credits/sys.h"

_Noreturn void gpc_exit(int exit_code);
void gpc_exit_install_signals(void);
void gpc_exit_check_flag(void);   /* the shutdown flag, checked at poll time */
extern volatile sig_atomic_t gpc_shutdown_signal;
/* A shutdown message (SYS_EXIT_*) from node from. */
void gpc_exit_sys_received(gasnet_node_t from, enum gpc_sys_type type, uint32_t arg,
                           uint64_t data);

#endif
