/*
 * Bootstrap: how a process learns its job.
 *
 * Under gp-run a process finds, in its environment, the address of gp-run's
 * control channel (GP_BOOT_ADDR), its rank and the job size (GP_RANK,
 * GP_SIZE), the job id (GP_JOBID) and the number of an inherited file
 * descriptor from which it reads the job key (GP_BOOT_KEY_FD).  The key never
 * appears on a command line or in the environment.  Before anything else the
 * process and gp-run prove to each other that they hold the key (an HMAC
 * over fresh nonces), so a stranger can't join the job or impersonate it.
 *
 * Without GP_BOOT_ADDR the process is a singleton: a 1-node job whose
 * collectives are local no-ops.
 *
 * The collectives are what the seed's cnos_barrier / cnos_get_nidpid_map did
 * on the Cray: they run over gp-run's channel, not over the transports, and
 * are meant for start-up and shutdown only.
 */
#ifndef GP_BOOT_BOOT_H
#define GP_BOOT_BOOT_H

#include <stddef.h>
#include <stdint.h>

/* What the calls below return (0 or one of the failures); the conduit
 * answers its own callers with GASNet's codes. */
#define GP_BOOT_OK           0
#define GP_BOOT_ERR_RESOURCE 1   /* the launcher or the channel failed; a line said why */
#define GP_BOOT_ERR_NOT_INIT 2   /* called before gp_boot_init, or after gp_boot_fini */
#define GP_BOOT_ERR_BAD_ARG  3   /* a collective's arguments do not fit the channel */

/* Length of a job id string, without the terminating NUL. */
#define GP_BOOT_JOBID_LEN 16

/*
 * Learns rank, size and job id; connects to the launcher.  Returns
 * GP_BOOT_OK, or GP_BOOT_ERR_RESOURCE after printing one line that says why
 * (launcher unreachable, key refused, malformed GP_* variable).
 */
int gp_boot_init(void);

int gp_boot_rank(void);
int gp_boot_size(void);
/* True when started without a launcher (a 1-node job). */
int gp_boot_is_singleton(void);
/* The job's id: GP_BOOT_JOBID_LEN lowercase hex digits; also used to name
 * shared-memory objects.  A singleton makes one up. */
const char *gp_boot_jobid(void);

/* Length of the job key in bytes. */
#define GP_BOOT_KEY_LEN 32

/*
 * The job key, for transports that prove it on their own connections (see
 * boot/keyproof.h).  Valid after gp_boot_init; a singleton makes one up.
 */
const uint8_t *gp_boot_key(void);

/*
 * The IPv4 address (network byte order) this process reaches gp-run from:
 * the interface facing the launcher.  Loopback for a singleton or when
 * gp-run is on this host.
 */
void gp_boot_local_ipv4(uint32_t *ipv4);

/* Bytes of a host identity, with its terminating NUL. */
#define GP_BOOT_HOST_ID_LEN 128
/*
 * Processes with equal identities can map each other's shared memory:
 * GP_HOST_ID when set, else hostname and kernel boot id (boot/locality.c).
 */
void gp_boot_host_identity(char *out, size_t len);

/*
 * Collective, once per job after the configuration is loaded (GP_HOST_ID):
 * numbers the hosts 0, 1, ... in the order of each host's lowest rank
 * (boot/hosts.c).  GP_BOOT_OK, or a failure after a line saying why.  Then
 * gp_boot_host_of(rank) is the host of rank (-1, logged, for a bad rank or
 * before the numbering) and gp_boot_host_count() the number of hosts.
 */
int gp_boot_hosts_init(void);
int gp_boot_host_of(int rank);
int gp_boot_host_count(void);
/* The name of rank's host for an error line (hostname, or GP_HOST_ID as set); never NULL. */
const char *gp_boot_host_name(int rank);
/* The ranks of the job on this process's kernel (equal boot ids), which share its cores even
 * where host identities differ (GP_HOST_ID, containers); 0 when the boot id is unknown. */
int gp_boot_machine_ranks(void);
/* Whether rank's process is known to have ended: it ran on this kernel, in this process's pid
 * namespace, and no process has its pid any more.  0 while it runs, and wherever this process
 * cannot tell (another host or container, before gp_boot_hosts_init).  A system call: for
 * waits that already last (the exit's), not for any fast path. */
int gp_boot_rank_ended(int rank);
/* This kernel's boot id ("" when it cannot be read). */
void gp_boot_machine_id(char *out, size_t len);

/*
 * hook(arg) runs over and over while a collective waits for gp-run's answer
 * (the ptl layer makes transport progress there); NULL removes it.
 */
void gp_boot_set_wait_hook(void (*hook)(void *arg), void *arg);

/* Each rank contributes len bytes; all receives size*len bytes, rank order. */
int gp_boot_allgather(const void *mine, void *all, size_t len);
int gp_boot_barrier(void);
/* root's len bytes reach every rank's buf. */
int gp_boot_broadcast(void *buf, size_t len, int root);

/*
 * Tells the launcher that this job must end now with exit_code (the launcher
 * kills the other processes), then exits this process.  Safe to call from
 * any state, including before gp_boot_init completed.
 */
_Noreturn void gp_boot_abort(int exit_code, const char *why);

/*
 * Tells the launcher this process is ending normally with exit_code and
 * closes the channel.  After this the collectives are unavailable.
 */
int gp_boot_fini(int exit_code);

#endif
