/*
 * The bootstrap's and the launcher's rows: the host identity, the
 * variables gp-run sets for its processes, and GASNet's spawner variables
 * (gp-run reads some; the rest are accepted so that a GASNet job script
 * draws no unknown-variable warning).
 */
#include "config/rows.h"

static const struct gp_cfg_row boot_rows[] = {
    { .name = "GP_HOST_ID", .type = GP_CFG_STRING, .default_text = NULL, .transport = "all",
      .offset = GP_CFG_FIELD(gp_host_id), .unset_means = "hostname and kernel boot id",
      .doc = "host identity: processes with the same one share memory (shm), the others use "
             "tcp; set it per host when the default can't tell hosts apart" },

    /* ---- launcher protocol, set by gp-run for its processes ---- */
    { .name = "GP_BOOT_ADDR", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD,
      .doc = "set by gp-run: address of its control channel; unset means a singleton job" },
    { .name = "GP_RANK", .type = GP_CFG_INT, .min = 0, .max = GP_CFG_INT32_TOP - 1,
      .transport = "launcher", .offset = GP_CFG_NO_FIELD,
      .doc = "set by gp-run: this process's node number" },
    { .name = "GP_SIZE", .type = GP_CFG_INT, .min = 1, .max = GP_CFG_INT32_TOP,
      .transport = "launcher", .offset = GP_CFG_NO_FIELD,
      .doc = "set by gp-run: the number of nodes in the job" },
    { .name = "GP_JOBID", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD,
      .doc = "set by gp-run: the job id, which also names shared-memory objects" },
    { .name = "GP_BOOT_KEY_FD", .type = GP_CFG_INT, .min = 0, .max = GP_CFG_INT32_TOP,
      .transport = "launcher", .offset = GP_CFG_NO_FIELD,
      .doc = "set by gp-run: inherited descriptor to read the job key from" },

    /* ---- GASNet spawner variables (seed 003), legitimate but not read by gp ---- */
    { .name = "GASNET_SPAWNER", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD,
      .doc = "gp-run's spawner when --spawner is not given: \"local\", \"ssh\", \"pmix\" "
             "(srun inside a Slurm allocation, else mpirun or MPIRUN_CMD's command) or "
             "\"mpi\" (the same as pmix)" },
    { .name = "GASNET_IBV_SPAWNER", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD, .newer = "GASNET_SPAWNER",
      .doc = "seed 003's name for ibv-conduit (its VAPI names, with IBV for VAPI)" },
    { .name = "GASNET_VAPI_SPAWNER", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD, .newer = "GASNET_SPAWNER",
      .doc = "seed 003's name (vapi-conduit)" },
    { .name = "MPIRUN_CMD", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD,
      .unset_means = "gp-run's own mpirun command line",
      .doc = "the mpirun command line of --spawner=pmix outside Slurm, as a template of "
             "words split at white space: %N the number of processes, %P the program, %A "
             "its arguments, %C the same as \"%P %A\", %% a percent sign; it must hold %P "
             "or %C.  %A and %C stand as words of their own.  GASNet's name (seed 003), kept "
             "without the GASNET_ prefix" },
    { .name = "GASNET_SSH_NODEFILE", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD,
      .doc = "file of hosts, one per line, blank and '#' lines ignored; wins over "
             "GASNET_SSH_SERVERS" },
    { .name = "GASNET_SSH_SERVERS", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD,
      .doc = "hosts to run on, separated by commas or whitespace" },
    { .name = "GASNET_SSH_CMD", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD,
      .doc = "remote shell used to spawn (default \"ssh\", found on $PATH)" },
    { .name = "GASNET_SSH_OPTIONS", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD,
      .doc = "options placed before the host name in each remote shell command" },
    { .name = "GASNET_SSH_REMOTE_PATH", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD,
      .doc = "working directory on the compute nodes (default: the current directory)" },
    { .name = "GASNET_SSH_OUT_DEGREE", .type = GP_CFG_INT, .default_text = "32", .min = 1,
      .max = 4096, .flags = GP_CFG_F_ZERO_OK, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD,
      .doc = "fan-out of the tree of agents of an ssh job: gp-run starts at most this many "
             "over the remote shell and each agent starts at most this many for the hosts "
             "below it (gp-run(1)); 0: no limit, gp-run starts every host itself" },
    { .name = "GP_RUN_AGENT", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD, .unset_means = "gp-run's own path",
      .doc = "path of gp-run on the hosts of an ssh job, run there as its agent" },
    { .name = "GP_RUN_HOST", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD, .unset_means = "where the remote shell came from",
      .doc = "address of gp-run's host as the hosts of an ssh job reach it" },
    { .name = "GP_SSH_TIMEOUT", .type = GP_CFG_DOUBLE, .default_text = "30", .min = 1,
      .max = 3600, .transport = "launcher", .offset = GP_CFG_NO_FIELD,
      .doc = "seconds gp-run waits for each host's agent to answer over the remote shell "
             "before it calls the host unreachable" },
    { .name = "GP_BOOT_TIMEOUT", .type = GP_CFG_DOUBLE, .default_text = "300", .min = 0,
      .max = 86400, .transport = "launcher", .offset = GP_CFG_NO_FIELD,
      .doc = "seconds a bootstrap collective (allgather, barrier, broadcast) may wait for live "
             "ranks that have not joined it before gp-run ends the job naming them; 0: no "
             "limit (also the default under GASNET_FREEZE)" },
};

const struct gp_cfg_group gp_cfg_group_boot = {
    .layer = "boot", GP_CFG_GROUP_ROWS(boot_rows), GP_CFG_GROUP_VALUES(gp_cfg),
};
