/*
 * What the files of libcore/boot share: the process's view of its job and
 * the helpers that read the environment and talk to gp-run.  Nothing
 * outside libcore/boot includes this.
 */
#ifndef GP_BOOT_BOOTINT_H
#define GP_BOOT_BOOTINT_H

#include "boot/boot.h"
#include "boot/keyproof.h"

#include <stdint.h>

/* Time allowed for each step of connecting to gp-run and proving the key:
 * generous, because a loaded machine may take a while to schedule gp-run. */
#define GP_BOOT_HANDSHAKE_MS 60000
/* How long abort and fini wait for gp-run's acknowledgement. */
#define GP_BOOT_ACK_MS 5000
/* Under PMIx, how long a rank whose round failed waits for the launcher to
 * end it before it aborts the job itself (boot/pmix.c, round_failed). */
#define GP_BOOT_PMIX_GRACE_MS 3000

struct gp_boot_state {
    int initialized;
    int singleton;
    int pmix;               /* started under a PMIx server (boot/pmix.c) */
    int finished;           /* fini was called: the channel is gone */
    int rank;
    int size;
    char jobid[GP_BOOT_JOBID_LEN + 1];
    uint8_t key[GP_KEY_LEN];
    int fd;                 /* control channel to gp-run, -1 if none */
};

extern struct gp_boot_state gp_boot;

/* The launcher's variables, parsed and checked. */
struct gp_boot_env {
    char host[256];
    char port[16];
    int rank;
    int size;
    char jobid[GP_BOOT_JOBID_LEN + 1];
    uint8_t key[GP_KEY_LEN];
};

/*
 * Reads GP_BOOT_ADDR, GP_RANK, GP_SIZE, GP_JOBID and the key behind
 * GP_BOOT_KEY_FD (closing that descriptor).  Returns 1 when launched, 0 for
 * a singleton (GP_BOOT_ADDR unset), -1 after printing which variable is
 * wrong and what is accepted.
 */
int gp_boot_env_read(struct gp_boot_env *env);

/*
 * Connects to gp-run, proves the key, says hello and checks the welcome.
 * Returns the connected socket, or -1 after printing why.
 */
int gp_boot_channel_open(const struct gp_boot_env *env);

/* Sends one message, serialised against other threads in PAR builds. */
int gp_boot_channel_send(uint32_t type, const void *payload, uint32_t len);

/*
 * Send locking: one message at a time on the channel (PAR builds only; in
 * SEQ builds these do nothing).  trylock is for abort, which may run while
 * another thread is stuck.
 */
void gp_boot_send_lock(void);
int gp_boot_send_trylock(void);
void gp_boot_send_unlock(void);
/* Serialises whole collective rounds (PAR builds only). */
void gp_boot_round_lock(void);
void gp_boot_round_unlock(void);

/* The wait hook (gp_boot_set_wait_hook): whether one is set, and one run of it. */
int gp_boot_wait_hook_pending(void);
void gp_boot_wait_hook_run(void);

/*
 * PMIx mode (boot/pmix.c).  detect: 1 when the environment shows a PMIx
 * server (PMIX_NAMESPACE and PMIX_RANK).  init fills gp_boot's rank, size,
 * job id and key and sets gp_boot.pmix, or prints why not.  The
 * collectives take the arguments coll.c has checked.  abort tells the
 * launcher and returns only if it could not; host_identity returns -1 when
 * PMIx gave no locality (the caller falls back to hostname and boot id).
 */
int gp_boot_pmix_detect(void);
int gp_boot_pmix_init(void);
int gp_boot_pmix_allgather(const void *mine, void *all, size_t len);
int gp_boot_pmix_barrier(void);
int gp_boot_pmix_broadcast(void *buf, size_t len, int root);
/* PMIx_Init succeeded and PMIx_Finalize has not run: abort can reach the server. */
int gp_boot_pmix_up(void);
void gp_boot_pmix_abort(int exit_code, const char *why);
int gp_boot_pmix_fini(void);
void gp_boot_pmix_local_ipv4(uint32_t *ipv4);
int gp_boot_pmix_host_identity(char *out, size_t len);

#endif
