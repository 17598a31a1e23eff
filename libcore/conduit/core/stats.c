/*
 * Publishing the statistics page (stats_page.h) and reading it back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "boot/boot.h"
#include "conduit/am/chunks.h"
#include "conduit/credits/credit_flow.h"
#include "conduit/core/state.h"
#include "conduit/core/stats.h"
#include "conduit/core/stats_page.h"
#include "util/counter.h"
#include "util/fence.h"
#include "util/log.h"
#include "util/thread.h"

#define PUBLISH_INTERVAL_NS 5000000ull /* 5 ms: fresh enough for a monitor */

static struct gp_stats_page *page;
static size_t page_bytes;
static char page_name[96];
static char page_file[112];   /* page_name under /dev/shm, for a signal handler's unlink */
static uint64_t next_publish_ns;
/* The seqlock has one writer at a time: in PAR builds every polling thread
 * may publish, and two interleaved writers would leave the count even while
 * the page is half written. */
static gp_mutex_t publish_lock = GP_MUTEX_INITIALIZER;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void page_path(char *buf, size_t len, const char *jobid, uint32_t rank)
{
    snprintf(buf, len, "/gp-%s-stats-%u", jobid, rank);
}

void gpc_stats_setup(void)
{
    page_path(page_name, sizeof page_name, gp_boot_jobid(), gpc.rank);
    page_bytes = gp_stats_page_bytes(gpc.nodes);
    int fd = shm_open(page_name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)page_bytes) != 0) {
        gp_warn("stats", "no statistics page (%s): %m; gp-top will not see this process",
                page_name);
        if (fd >= 0)
            close(fd);
        return;
    }
    void *mapped = mmap(NULL, page_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (mapped == MAP_FAILED) {
        gp_warn("stats", "cannot map the statistics page %s: %m", page_name);
        shm_unlink(page_name);
        return;
    }
    page = mapped;
    snprintf(page_file, sizeof page_file, "/dev/shm%s", page_name); /* where glibc's shm_open puts it */
    page->version = GP_STATS_VERSION;
    page->rank = gpc.rank;
    page->nodes = gpc.nodes;
    page->pid = (uint32_t)getpid();
    snprintf(page->jobid, sizeof page->jobid, "%s", gp_boot_jobid());
    gethostname(page->host, sizeof page->host - 1);
    page->credits_per_node = gpc.credit_plan.credits_per_node;
    page->max_per_node = gpc.credit_node.limits.max_per_node;
    page->banked_start = gpc.credit_plan.banked_credits;
    page->dynamic = gpc.credit_node.limits.dynamic != 0;
    gpc_stats_publish(1);
    __atomic_store_n(&page->magic, GP_STATS_MAGIC, __ATOMIC_RELEASE);
}

static void add_event(uint64_t now, uint32_t kind, uint64_t count, uint64_t credits,
                      int64_t banked)
{
    struct gp_stats_event *ev = &page->events[page->events_total % GP_STATS_EVENTS];
    *ev = (struct gp_stats_event){ now, kind, (uint32_t)count, (uint32_t)credits, 0, banked };
    page->events_total++;
}

/* The page still holds the last published counters: what moved since is news. */
static void note_events(uint64_t now, const struct credit_stats *s, int64_t banked)
{
    if (s->epochs != page->epochs)
        add_event(now, GP_STATS_EV_EPOCH, s->epochs - page->epochs, 0, banked);
    if (s->revokes_sent != page->revokes_sent)
        add_event(now, GP_STATS_EV_REVOKE_SENT, s->revokes_sent - page->revokes_sent, 0, banked);
    if (s->revokes_received != page->revokes_received)
        add_event(now, GP_STATS_EV_REVOKE_RECEIVED, s->revokes_received - page->revokes_received,
                  s->credits_returned - page->credits_returned, banked);
    if (s->credits_recovered != page->credits_recovered || s->zero_replies != page->zero_replies)
        add_event(now, GP_STATS_EV_RECOVERED, s->zero_replies - page->zero_replies,
                  s->credits_recovered - page->credits_recovered, banked);
}

static void copy_counters(uint64_t now)
{
    const struct credit_node *node = &gpc.credit_node;
    int64_t banked = gp_count_get((gp_count_t *)&node->banked);
    note_events(now, &node->stats, banked);
    page->banked_credits = banked;
    page->epochs = node->stats.epochs;
    page->stalls = node->stats.stalls;
    page->extra_requested = node->stats.extra_requested;
    page->extra_granted = node->stats.extra_granted;
    page->revokes_sent = node->stats.revokes_sent;
    page->revokes_received = node->stats.revokes_received;
    page->credits_returned = node->stats.credits_returned;
    page->credits_recovered = node->stats.credits_recovered;
    page->zero_replies = node->stats.zero_replies;
    page->send_tickets_free = gp_count_get(&gpc.send_tickets_free);
    page->send_tickets_limit = gpc.send_tickets_limit;
    page->tmpmd_tickets_free = gp_count_get(&gpc.tmpmd_tickets_free);
    page->tmpmd_tickets_limit = gpc.tmpmd_tickets_limit;
    page->reqsb_free = gpc_chunk_free_count(&gpc.reqsb_chunks);
    page->reqsb_total = gpc.reqsb_chunks.count;
    page->rplsb_free = gpc_chunk_free_count(&gpc.rplsb_chunks);
    page->rplsb_total = gpc.rplsb_chunks.count;
    page->reqrb_buffers = gpc.reqrb.buffers;
    uint32_t waiting = 0;
    for (uint32_t i = 0; i < gpc.reqrb.buffers; i++)
        waiting += gp_count_get(&gpc.reqrb.buffer[i].unlink_count) >= 0;
    page->reqrb_waiting = waiting;
    page->cb_hits = (uint64_t)gp_count_get(&gpc.catch_basin_hits);
    page->am_events = (uint64_t)gp_count_get(&gpc.am_events_taken);
    page->safe_events = (uint64_t)gp_count_get(&gpc.safe_events_taken);
    page->sys_events = (uint64_t)gp_count_get(&gpc.sys_events_taken);
    for (uint32_t peer = 0; peer < gpc.nodes; peer++) {
        struct credit_conn snapshot;
        const struct credit_conn *c = &snapshot;
        credit_conn_snapshot(&gpc.credit_node, peer, &snapshot);
        page->peer[peer] = (struct gp_stats_peer){ c->loan_credits, c->send_credits,
                                                   c->send_inuse, c->send_max, c->send_stalls,
                                                   c->send_revoked, c->loan_requested,
                                                   c->loan_given, c->flags };
    }
}

_Thread_local unsigned gpc_stats_passes;

void gpc_stats_publish(int force)
{
    if (page == NULL)
        return;
    if (force)
        gp_mutex_lock(&publish_lock);
    else if (gp_mutex_trylock(&publish_lock) != 0)
        return; /* another thread is publishing right now: fresh enough */
    uint64_t now = now_ns();
    if (!force && now < next_publish_ns) {
        gp_mutex_unlock(&publish_lock);
        return;
    }
    next_publish_ns = now + PUBLISH_INTERVAL_NS;
    uint64_t seq = page->seq;
    __atomic_store_n(&page->seq, seq + 1, __ATOMIC_RELAXED);
    /* The odd seq before the counters' stores: a reader (gp_stats_read, gp-top in another
     * process) that copies any new counter sees the seq odd or moved on when it looks again;
     * pairs with the reader's fence after its copy.  The closing seq store is a release. */
    gp_fence_release();
    copy_counters(now);
    page->updated_ns = now;
    __atomic_store_n(&page->seq, seq + 2, __ATOMIC_RELEASE);
    gp_mutex_unlock(&publish_lock);
}

void gpc_stats_remove(void)
{
    if (page == NULL)
        return;
    shm_unlink(page_name);
}

void gpc_stats_remove_sigsafe(void)
{
    if (page_file[0] != '\0')
        unlink(page_file); /* shm_unlink is not async-signal-safe; unlink is */
}

int gp_stats_read(const char *jobid, uint32_t rank, struct gp_stats_page *out, uint32_t max_peers)
{
    char name[96];
    page_path(name, sizeof name, jobid, rank);
    int fd = shm_open(name, O_RDONLY, 0);
    if (fd < 0)
        return -1;
    struct stat st;
    void *mapped = MAP_FAILED;
    if (fstat(fd, &st) == 0 && (size_t)st.st_size >= sizeof *out)
        mapped = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (mapped == MAP_FAILED) {
        errno = EINVAL;
        return -1;
    }
    const struct gp_stats_page *live = mapped;
    int rc = -1;
    for (int attempt = 0; attempt < 1000 && rc != 0; attempt++) {
        uint64_t before = __atomic_load_n(&live->seq, __ATOMIC_ACQUIRE);
        if ((before & 1) || __atomic_load_n(&live->magic, __ATOMIC_ACQUIRE) != GP_STATS_MAGIC)
            continue;
        uint32_t peers = live->nodes < max_peers ? live->nodes : max_peers;
        if (gp_stats_page_bytes(peers) > (size_t)st.st_size)
            break;
        memcpy(out, live, gp_stats_page_bytes(peers));
        /* The copy's loads before the seq's second look, so a publish begun during the copy
         * is seen and the copy retried; pairs with gpc_stats_publish's fence after its odd seq. */
        gp_fence_load();
        if (__atomic_load_n(&live->seq, __ATOMIC_RELAXED) == before)
            rc = 0;
    }
    munmap(mapped, (size_t)st.st_size);
    if (rc != 0)
        errno = EAGAIN;
    return rc;
}
