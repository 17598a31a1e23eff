/*
 * Mirror pages: gp-top on gp-run's host sees the ranks of other hosts.
 *
 * Each process publishes its statistics page in its own host's /dev/shm
 * (conduit/core/stats_page.h).  With the ssh spawner, each host's agent reads
 * its ranks' pages every RUN_STATS_PERIOD_S and sends them up the link
 * (LINK_STATS); gp-run writes each into a page of the same name and layout
 * on its own host, with the seqlock protocol of the original, and
 * updated_ns restamped with this host's clock when the copy arrived (the
 * remote clock means nothing here).  The page's host field still names the
 * remote host, which is how gp-top tells a mirror from a local page
 * (doc/gp-top.md).
 *
 * A page that already exists under that name is not ours to write -- a
 * rank on this very host, or a host sharing this /dev/shm -- and is left
 * alone.  Mirrors go with the job's other objects (shm_cleanup).
 */
#include "gp_run.h"

#include "conduit/core/stats_page.h"
#include "util/fence.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct mirror {
    int state;            /* 0 untried, 1 ours (mapped), -1 not ours */
    void *page;
    size_t bytes;
};

static struct mirror *mirrors;
static int mirror_count;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int open_mirror(struct mirror *m, const char *jobid, int rank, size_t bytes)
{
    char name[96];
    snprintf(name, sizeof name, "/gp-%s-stats-%d", jobid, rank);
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) {
        m->state = -1; /* a real page, or another mirror: not ours */
        return -1;
    }
    void *page = MAP_FAILED;
    if (ftruncate(fd, (off_t)bytes) == 0)
        page = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (page == MAP_FAILED) {
        shm_unlink(name);
        m->state = -1;
        return -1;
    }
    m->page = page;
    m->bytes = bytes;
    m->state = 1;
    return 0;
}

void mirror_write(const struct run_job *job, int rank, const uint8_t *bytes, size_t len)
{
    if (rank < 0 || rank >= job->nprocs || len < sizeof(struct gp_stats_page))
        return;
    if (mirrors == NULL) {
        mirrors = calloc((size_t)job->nprocs, sizeof *mirrors);
        if (mirrors == NULL)
            return;
        mirror_count = job->nprocs;
    }
    struct mirror *m = &mirrors[rank];
    /* The bytes sit at any alignment in the link's buffer: read the header by copy. */
    struct gp_stats_page copy;
    memcpy(&copy, bytes, sizeof copy);
    if (copy.magic != GP_STATS_MAGIC || copy.rank != (uint32_t)rank ||
        gp_stats_page_bytes(copy.nodes) != len)
        return; /* not a page of this version: gp-top would not read it either */
    if (m->state == 0)
        open_mirror(m, job->jobid, rank, len);
    if (m->state != 1 || m->bytes != len)
        return;
    struct gp_stats_page *page = m->page;
    uint64_t seq = page->seq;
    __atomic_store_n(&page->seq, seq + 1, __ATOMIC_RELAXED);
    /* The odd seq before the copy's stores, as in the library's gpc_stats_publish: pairs with
     * the reader's fence after its copy (gp_stats_read). */
    gp_fence_release();
    size_t head = offsetof(struct gp_stats_page, seq);
    size_t after = head + sizeof page->seq;
    memcpy(page, bytes, head);
    memcpy((uint8_t *)page + after, bytes + after, len - after);
    page->updated_ns = now_ns();
    __atomic_store_n(&page->seq, seq + 2, __ATOMIC_RELEASE);
}

void mirror_close_all(void)
{
    for (int r = 0; r < mirror_count; r++)
        if (mirrors[r].state == 1)
            munmap(mirrors[r].page, mirrors[r].bytes);
    free(mirrors);
    mirrors = NULL;
    mirror_count = 0;
}
