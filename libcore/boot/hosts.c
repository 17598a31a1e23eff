/*
 * The job's hosts, numbered once for every layer above: one allgather of
 * the host identities (locality.c), and each rank's host numbered 0, 1,
 * ... in the order of each host's lowest rank.  gasnet_getNodeInfo, the
 * per-host sizing and the hybrid transport's choice of shm or a network
 * all read this one numbering, so they cannot disagree about who shares a
 * host, and a job makes the exchange once.
 *
 * Numbering sorts the ranks by identity (O(N log N)): a job of 20,000
 * ranks compares strings about 300,000 times, not 200 million.
 */
#include "boot/bootint.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/log.h"

static int *host_of_rank;   /* host_of_rank[rank] */
static int host_count;
/* Ranks on this rank's kernel (equal boot ids): pretended hosts (GP_HOST_ID) and containers of
 * one node share its cores though each is a host of its own.  0 when the boot id is unknown. */
static int machine_ranks;

/* What each rank gives the allgather: its host identity, its kernel's boot id, then where its
 * process can be looked for: its pid and its pid namespace (the device and inode of
 * /proc/self/ns/pid), so that a pid is only ever read in the namespace that gave it. */
#define MACHINE_ID_LEN 40
#define PROCESS_LEN 24
#define RECORD_LEN (GP_BOOT_HOST_ID_LEN + MACHINE_ID_LEN + PROCESS_LEN)
struct process_record {
    uint64_t pid;
    uint64_t pid_ns_dev;
    uint64_t pid_ns_ino;
};
_Static_assert(sizeof(struct process_record) == PROCESS_LEN, "the record's process part");
/* The pid of each rank whose process this one can see (same kernel, same pid namespace), 0 for
 * the others: gp_boot_rank_ended looks for it. */
static pid_t *visible_pid;
/* What an error line calls each host: its name, from the identity of its lowest rank. */
static char (*host_names)[GP_BOOT_HOST_ID_LEN];

/* "node7" from "node7/<boot id>", "pmix:node7#3" or "id:rack2" (GP_HOST_ID, kept as said). */
static void host_display_name(const char *identity, char *out, size_t len)
{
    if (strncmp(identity, "id:", 3) == 0) {
        snprintf(out, len, "%s", identity + 3);
        return;
    }
    if (strncmp(identity, "pmix:", 5) == 0)
        identity += 5;
    size_t name_len = strcspn(identity, "/#");
    snprintf(out, len, "%.*s", (int)name_len, identity);
}

static int by_identity_then_rank(const void *a, const void *b, void *identities)
{
    int ra = *(const int *)a, rb = *(const int *)b;
    const char *all = identities;
    int order = strcmp(all + (size_t)ra * RECORD_LEN, all + (size_t)rb * RECORD_LEN);
    return order != 0 ? order : (ra > rb) - (ra < rb);
}

/*
 * Groups equal identities (one sort), then numbers the groups as the ranks
 * meet them in rank order, so host 0 holds rank 0 and a host's number
 * follows its lowest rank.  Returns the number of hosts, -1 without memory.
 */
static int number_hosts(const char *all, int size, int *out)
{
    int *order = malloc((size_t)size * sizeof *order);
    int *group_of = malloc((size_t)size * sizeof *group_of);
    int *number_of_group = malloc((size_t)size * sizeof *number_of_group);
    if (order == NULL || group_of == NULL || number_of_group == NULL) {
        free(order), free(group_of), free(number_of_group);
        return -1;
    }
    for (int rank = 0; rank < size; rank++)
        order[rank] = rank;
    qsort_r(order, (size_t)size, sizeof *order, by_identity_then_rank, (void *)all);
    int groups = 0;
    for (int i = 0; i < size; i++) {
        if (i == 0 || strcmp(all + (size_t)order[i] * RECORD_LEN,
                             all + (size_t)order[i - 1] * RECORD_LEN) != 0)
            number_of_group[groups++] = -1;
        group_of[order[i]] = groups - 1;
    }
    int hosts = 0;
    for (int rank = 0; rank < size; rank++) {
        int *number = &number_of_group[group_of[rank]];
        if (*number < 0)
            *number = hosts++;
        out[rank] = *number;
    }
    free(order), free(group_of), free(number_of_group);
    return hosts;
}

int gp_boot_hosts_init(void)
{
    if (host_of_rank != NULL)
        return GP_BOOT_OK;
    int size = gp_boot.size;
    char mine[RECORD_LEN];
    memset(mine, 0, sizeof mine);
    gp_boot_host_identity(mine, GP_BOOT_HOST_ID_LEN);
    gp_boot_machine_id(mine + GP_BOOT_HOST_ID_LEN, MACHINE_ID_LEN);
    struct process_record me = { .pid = (uint64_t)getpid() };
    struct stat ns;
    if (stat("/proc/self/ns/pid", &ns) == 0) {
        me.pid_ns_dev = (uint64_t)ns.st_dev;
        me.pid_ns_ino = (uint64_t)ns.st_ino;
    }
    memcpy(mine + GP_BOOT_HOST_ID_LEN + MACHINE_ID_LEN, &me, sizeof me);
    char *all = calloc((size_t)size, RECORD_LEN);
    int *hosts = calloc((size_t)size, sizeof *hosts);
    /* Every rank takes part in the allgather, even after a failure of its own. */
    int rc = gp_boot_allgather(mine, all != NULL ? (void *)all : (void *)mine,
                               all != NULL ? RECORD_LEN : 0);
    if (all == NULL || hosts == NULL) {
        gp_error("boot", "no memory to number the hosts of %d ranks", size);
        rc = GP_BOOT_ERR_RESOURCE;
    }
    int count = rc == GP_BOOT_OK ? number_hosts(all, size, hosts) : -1;
    if (count >= 0) {
        /* Without memory for the names, error lines say "host N" instead. */
        host_names = calloc((size_t)count, sizeof *host_names);
        for (int rank = size - 1; host_names != NULL && rank >= 0; rank--)
            host_display_name(all + (size_t)rank * RECORD_LEN, host_names[hosts[rank]],
                              sizeof host_names[0]);
        const char *my_machine = mine + GP_BOOT_HOST_ID_LEN;
        machine_ranks = 0;
        visible_pid = calloc((size_t)size, sizeof *visible_pid); /* NULL: none is looked for */
        for (int rank = 0; my_machine[0] != '\0' && rank < size; rank++) {
            const char *record = all + (size_t)rank * RECORD_LEN;
            if (strncmp(record + GP_BOOT_HOST_ID_LEN, my_machine, MACHINE_ID_LEN) != 0)
                continue;
            machine_ranks++;
            struct process_record theirs;
            memcpy(&theirs, record + GP_BOOT_HOST_ID_LEN + MACHINE_ID_LEN, sizeof theirs);
            if (visible_pid != NULL && me.pid_ns_ino != 0 && theirs.pid_ns_ino == me.pid_ns_ino &&
                theirs.pid_ns_dev == me.pid_ns_dev)
                visible_pid[rank] = (pid_t)theirs.pid;
        }
    }
    free(all);
    if (count < 0) {
        free(hosts);
        return rc != GP_BOOT_OK ? rc : GP_BOOT_ERR_RESOURCE;
    }
    host_of_rank = hosts;
    host_count = count;
    return GP_BOOT_OK;
}

int gp_boot_host_of(int rank)
{
    if (host_of_rank == NULL || rank < 0 || rank >= gp_boot.size) {
        gp_error("boot", "gp_boot_host_of(%d) %s", rank,
                 host_of_rank == NULL ? "before gp_boot_hosts_init" : "names no rank");
        return -1;
    }
    return host_of_rank[rank];
}

int gp_boot_host_count(void)
{
    return host_count;
}

const char *gp_boot_host_name(int rank)
{
    static _Thread_local char numbered[32]; /* a transport's receive thread may fail too */
    if (host_of_rank == NULL || rank < 0 || rank >= gp_boot.size)
        return "an unknown host";
    int host = host_of_rank[rank];
    if (host_names != NULL && host_names[host][0] != '\0')
        return host_names[host];
    snprintf(numbered, sizeof numbered, "host %d", host);
    return numbered;
}

int gp_boot_machine_ranks(void)
{
    return machine_ranks;
}

/* A process that has ended but is not yet reaped (a zombie) still counts as running: its
 * launcher reaps it at once.  The kernel hands a freed pid out again only after the rest of its
 * pid space, far later than an exit waits. */
int gp_boot_rank_ended(int rank)
{
    if (visible_pid == NULL || rank < 0 || rank >= gp_boot.size || visible_pid[rank] <= 0)
        return 0;
    return kill(visible_pid[rank], 0) != 0 && errno == ESRCH;
}
