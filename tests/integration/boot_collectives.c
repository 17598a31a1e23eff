/*
 * The bootstrap collectives, end to end: run under gp-run, under a PMIx
 * launcher (mpirun, srun --mpi=pmix) or alone, as a singleton, with the
 * job size it should find.
 *
 *   boot_collectives EXPECTED_SIZE
 *
 * Checks rank, size and job id against the environment; allgathers
 * rank-derived bytes (a small and a 64 KiB contribution, so gp-run's
 * writes exceed a socket buffer) and checks every byte; broadcasts from
 * every root; runs 100 barriers; ends with fini.  Any mismatch prints what
 * was expected and exits 1.
 */
#include "boot/boot.h"
#include "gasnet.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int my_rank = -1;

static _Noreturn void fail(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "boot_collectives: rank %d: ", my_rank);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static uint8_t pattern(int rank, size_t i, int salt)
{
    return (uint8_t)(rank * 31 + (int)(i * 7) + salt * 13 + (int)(i >> 8));
}

static void check_identity(int expected_size)
{
    const char *env_rank = getenv("GP_RANK");
    const char *jobid = gp_boot_jobid();
    int size = gp_boot_size();
    if (size != expected_size)
        fail("size %d, expected %d", size, expected_size);
    if (my_rank < 0 || my_rank >= size)
        fail("rank %d outside [0, %d)", my_rank, size);
    if (env_rank != NULL && atoi(env_rank) != my_rank)
        fail("rank %d but GP_RANK=%s", my_rank, env_rank);
    /* Launched: by gp-run (GP_BOOT_ADDR) or, without it, by a PMIx server. */
    const char *pmix_rank = getenv("GP_BOOT_ADDR") == NULL ? getenv("PMIX_RANK") : NULL;
    int launched = getenv("GP_BOOT_ADDR") != NULL || pmix_rank != NULL;
    if (gp_boot_is_singleton() != !launched)
        fail("singleton %d, but GP_BOOT_ADDR is %s and PMIX_RANK is %s", gp_boot_is_singleton(),
             getenv("GP_BOOT_ADDR") ? "set" : "unset", getenv("PMIX_RANK") ? "set" : "unset");
    if (pmix_rank != NULL && atoi(pmix_rank) != my_rank)
        fail("rank %d but PMIX_RANK=%s", my_rank, pmix_rank);
    if (strlen(jobid) != GP_BOOT_JOBID_LEN ||
        strspn(jobid, "0123456789abcdef") != GP_BOOT_JOBID_LEN)
        fail("job id '%s' is not %d lowercase hex digits", jobid, GP_BOOT_JOBID_LEN);
    if (getenv("GP_JOBID") != NULL && strcmp(getenv("GP_JOBID"), jobid) != 0)
        fail("job id %s but GP_JOBID=%s", jobid, getenv("GP_JOBID"));
}

static void check_allgather(size_t len, int salt)
{
    int size = gp_boot_size();
    uint8_t *mine = malloc(len + 1), *all = malloc(len * (size_t)size + 1);
    if (mine == NULL || all == NULL)
        fail("out of memory");
    for (size_t i = 0; i < len; i++)
        mine[i] = pattern(my_rank, i, salt);
    memset(all, 0xee, len * (size_t)size);
    if (gp_boot_allgather(mine, all, len) != GASNET_OK)
        fail("allgather of %zu bytes failed", len);
    for (int rank = 0; rank < size; rank++)
        for (size_t i = 0; i < len; i++)
            if (all[(size_t)rank * len + i] != pattern(rank, i, salt))
                fail("allgather of %zu: byte %zu of rank %d is %u, expected %u", len, i, rank,
                     all[(size_t)rank * len + i], pattern(rank, i, salt));
    free(mine);
    free(all);
}

/* Every rank holds the same job id and key (under PMIx rank 0 hands the key out). */
static void check_same_job(void)
{
    struct { char jobid[GP_BOOT_JOBID_LEN + 1]; uint8_t key[GP_BOOT_KEY_LEN]; } mine, *all;
    int size = gp_boot_size();
    memset(&mine, 0, sizeof mine);
    memcpy(mine.jobid, gp_boot_jobid(), GP_BOOT_JOBID_LEN);
    memcpy(mine.key, gp_boot_key(), GP_BOOT_KEY_LEN);
    all = calloc((size_t)size, sizeof *all);
    if (all == NULL || gp_boot_allgather(&mine, all, sizeof mine) != GASNET_OK)
        fail("allgather of the job id and key failed");
    for (int rank = 0; rank < size; rank++) {
        if (strcmp(all[rank].jobid, mine.jobid) != 0)
            fail("rank %d has job id %s, this rank %s", rank, all[rank].jobid, mine.jobid);
        if (memcmp(all[rank].key, mine.key, GP_BOOT_KEY_LEN) != 0)
            fail("rank %d holds a different job key", rank);
    }
    free(all);
}

static void check_broadcasts(void)
{
    uint8_t buf[100];
    for (int root = 0; root < gp_boot_size(); root++) {
        for (size_t i = 0; i < sizeof buf; i++)
            buf[i] = my_rank == root ? pattern(root, i, 5) : 0xee;
        if (gp_boot_broadcast(buf, sizeof buf, root) != GASNET_OK)
            fail("broadcast from root %d failed", root);
        for (size_t i = 0; i < sizeof buf; i++)
            if (buf[i] != pattern(root, i, 5))
                fail("broadcast from %d: byte %zu is %u, expected %u", root, i, buf[i],
                     pattern(root, i, 5));
    }
}

int main(int argc, char **argv)
{
    if (argc != 2 || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: boot_collectives EXPECTED_SIZE\n");
        return 2;
    }
    if (gp_boot_init() != GASNET_OK)
        fail("gp_boot_init failed");
    my_rank = gp_boot_rank();
    check_identity(atoi(argv[1]));
    check_allgather(37, 1);
    check_allgather(0, 2);
    check_allgather(64 * 1024, 3);
    check_same_job();
    check_broadcasts();
    for (int i = 0; i < 100; i++)
        if (gp_boot_barrier() != GASNET_OK)
            fail("barrier %d failed", i);
    if (gp_boot_fini(0) != GASNET_OK)
        fail("fini failed");
    return 0;
}
