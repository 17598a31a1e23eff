/*
 * Reading a job: one refresh copies every rank's page (gp_stats_read: a
 * seqlocked copy, no lock in the job), decides what became of each process,
 * turns counters into rates over the time between refreshes, and merges
 * the pages' event rings into one job-wide timeline.
 *
 * A page of this host is alive while its owner pid is; a page that names
 * another host is a mirror kept by gp-run (doc/gp-top.md) and is alive
 * while it is being rewritten.
 */
#include "gp_top.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define IDLE_AFTER_NS 2000000000ull /* a polling process rewrites its page every 5 ms */

uint64_t top_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const char *rank_state_name(enum rank_state state)
{
    switch (state) {
    case RANK_WAITING: return "wait";
    case RANK_LIVE: return "live";
    case RANK_IDLE: return "idle";
    case RANK_STALE: return "stale";
    case RANK_DEAD: return "dead";
    case RANK_GONE: return "gone";
    }
    return "?";
}

const char *event_name(uint32_t kind)
{
    switch (kind) {
    case GP_STATS_EV_EPOCH: return "epoch end";
    case GP_STATS_EV_REVOKE_SENT: return "revoke sent";
    case GP_STATS_EV_REVOKE_RECEIVED: return "revoked";
    case GP_STATS_EV_RECOVERED: return "recovered";
    }
    return "?";
}

void format_flags(uint32_t flags, char *buf, size_t len)
{
    snprintf(buf, len, "%c%c%c%c", (flags & 0x02u) ? 'I' : '-', (flags & 0x04u) ? 'Z' : '-',
             (flags & 0x08u) ? 'E' : '-', (flags & 0x10u) ? 'S' : '-');
}

uint64_t rank_lent(const struct top_sample *s, uint32_t rank)
{
    const struct gp_stats_page *page = s->rank[rank].page;
    uint64_t lent = 0;
    for (uint32_t peer = 0; peer < s->nodes && peer < page->nodes; peer++)
        if (peer != rank)
            lent += page->peer[peer].loan_credits;
    return lent;
}

void format_event_time(const struct top_sample *s, uint64_t when_ns, char *buf, size_t len)
{
    uint64_t ago = s->sampled_ns > when_ns ? s->sampled_ns - when_ns : 0;
    int64_t wall = (int64_t)s->sampled_wall.tv_sec * 1000000000ll + s->sampled_wall.tv_nsec -
                   (int64_t)ago;
    time_t secs = (time_t)(wall / 1000000000ll);
    struct tm tm;
    localtime_r(&secs, &tm);
    snprintf(buf, len, "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min, tm.tm_sec,
             (int)(wall % 1000000000ll / 1000000));
}

int sample_open(struct top_sample *s, const char *jobid, double delay, char *why, size_t len)
{
    memset(s, 0, sizeof *s);
    snprintf(s->jobid, sizeof s->jobid, "%s", jobid);
    s->delay = delay;
    gethostname(s->local_host, sizeof s->local_host - 1);
    struct top_job *jobs;
    size_t count, foreign;
    if (jobs_find(&jobs, &count, &foreign) != 0) {
        snprintf(why, len, "cannot list %s: %s", TOP_SHM_DIR, strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < count; i++)
        if (strcmp(jobs[i].jobid, jobid) == 0)
            s->nodes = jobs[i].nodes ? jobs[i].nodes : UINT32_MAX;
    free(jobs);
    char who[64] = "";
    if (s->nodes == 0 && jobs_owner(jobid, who, sizeof who) == 1) {
        snprintf(why, len, "job %s belongs to %s; gp-top shows only your own jobs", jobid, who);
        return -1;
    }
    if (s->nodes == 0) {
        snprintf(why, len, "no job %s of yours on this host (no %s/gp-%s-stats-* pages)", jobid,
                 TOP_SHM_DIR, jobid);
        return -1;
    }
    if (s->nodes == UINT32_MAX) {
        snprintf(why, len, "job %s: its statistics pages cannot be read (another gp version?)",
                 jobid);
        return -1;
    }
    s->rank = calloc(s->nodes, sizeof *s->rank);
    for (uint32_t r = 0; s->rank != NULL && r < s->nodes; r++) {
        s->rank[r].page = calloc(1, gp_stats_page_bytes(s->nodes));
        if (s->rank[r].page == NULL)
            break;
        s->rank[r].am_rate = s->rank[r].safe_rate = s->rank[r].sys_rate = -1;
        s->rank[r].stall_rate = -1;
    }
    if (s->rank == NULL || s->rank[s->nodes - 1].page == NULL) {
        snprintf(why, len, "job %s: no memory for %u pages", jobid, s->nodes);
        sample_close(s);
        return -1;
    }
    sample_refresh(s);
    if (s->present == 0 && s->version_mismatch) {
        snprintf(why, len, "job %s: its statistics pages cannot be read (another gp version?)",
                 jobid);
        sample_close(s);
        return -1;
    }
    return 0;
}

void sample_close(struct top_sample *s)
{
    for (uint32_t r = 0; s->rank != NULL && r < s->nodes; r++)
        free(s->rank[r].page);
    free(s->rank);
    free(s->timeline);
    memset(s, 0, sizeof *s);
}

/* 1: read into copy; 0: no page (or not ours); -1: there but unreadable just now. */
static int read_page(struct top_sample *s, uint32_t rank, struct gp_stats_page *copy)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/gp-%s-stats-%u", TOP_SHM_DIR, s->jobid, rank);
    if (stat(path, &st) != 0 || st.st_uid != getuid())
        return 0;
    if ((size_t)st.st_size < gp_stats_page_bytes(s->nodes)) {
        s->version_mismatch = 1; /* too small for its job: another layout, not a busy writer */
        return 0;
    }
    if (gp_stats_read(s->jobid, rank, copy, s->nodes) != 0) {
        /* EINVAL: smaller than the page gp-top knows -- an older layout */
        s->version_mismatch |= errno == EINVAL;
        return errno == ENOENT || errno == EINVAL ? 0 : -1;
    }
    if (copy->version != GP_STATS_VERSION) {
        s->version_mismatch = 1;
        return 0;
    }
    return 1;
}

static int pid_alive(uint32_t pid)
{
    return pid != 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

static enum rank_state state_of(const struct top_sample *s, struct top_rank *r, uint64_t now)
{
    const struct gp_stats_page *page = r->page;
    uint64_t age = now > page->updated_ns ? now - page->updated_ns : 0;
    r->mirror = strncmp(page->host, s->local_host, sizeof page->host) != 0;
    if (r->mirror) {
        double limit = s->delay * 3 > 5 ? s->delay * 3 : 5;
        return (double)age / 1e9 < limit ? RANK_LIVE : RANK_STALE;
    }
    if (!pid_alive(page->pid))
        return RANK_DEAD;
    return age > IDLE_AFTER_NS ? RANK_IDLE : RANK_LIVE;
}

static double rate(uint64_t now, uint64_t before, double seconds)
{
    return now >= before ? (double)(now - before) / seconds : 0;
}

static void update_rates(struct top_rank *r, uint64_t now)
{
    const struct gp_stats_page *page = r->page;
    if (r->have_prev && now > r->prev_ns) {
        double seconds = (double)(now - r->prev_ns) / 1e9;
        r->am_rate = rate(page->am_events, r->prev_am, seconds);
        r->safe_rate = rate(page->safe_events, r->prev_safe, seconds);
        r->sys_rate = rate(page->sys_events, r->prev_sys, seconds);
        r->stall_rate = rate(page->stalls, r->prev_stalls, seconds);
    }
    r->prev_am = page->am_events;
    r->prev_safe = page->safe_events;
    r->prev_sys = page->sys_events;
    r->prev_stalls = page->stalls;
    r->prev_ns = now;
    r->have_prev = 1;
}

static int by_time(const void *a, const void *b)
{
    const struct top_event *x = a, *y = b;
    if (x->when_ns != y->when_ns)
        return x->when_ns < y->when_ns ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Appends the events rank published since the last refresh; 1 if any. */
static int merge_events(struct top_sample *s, uint32_t rank)
{
    struct top_rank *r = &s->rank[rank];
    uint64_t total = r->page->events_total, from = r->events_seen;
    if (total < from) /* cannot happen with one writer; start over rather than loop */
        from = 0;
    if (total - from > GP_STATS_EVENTS) {
        s->timeline_dropped += total - from - GP_STATS_EVENTS;
        from = total - GP_STATS_EVENTS;
    }
    r->events_seen = total;
    if (from == total)
        return 0;
    size_t room = s->timeline_len + (size_t)(total - from);
    struct top_event *grown = realloc(s->timeline, room * sizeof *grown);
    if (grown == NULL)
        return 0;
    s->timeline = grown;
    for (uint64_t i = from; i < total; i++) {
        const struct gp_stats_event *ev = &r->page->events[i % GP_STATS_EVENTS];
        s->timeline[s->timeline_len++] = (struct top_event){ ev->when_ns, rank, *ev };
    }
    return 1;
}

static void trim_timeline(struct top_sample *s)
{
    qsort(s->timeline, s->timeline_len, sizeof *s->timeline, by_time);
    if (s->timeline_len > TOP_TIMELINE_KEEP) {
        size_t drop = s->timeline_len - TOP_TIMELINE_KEEP;
        memmove(s->timeline, s->timeline + drop, TOP_TIMELINE_KEEP * sizeof *s->timeline);
        s->timeline_len = TOP_TIMELINE_KEEP;
    }
}

void sample_refresh(struct top_sample *s)
{
    struct gp_stats_page *copy = malloc(gp_stats_page_bytes(s->nodes));
    if (copy == NULL)
        return;
    uint64_t now = top_now_ns();
    int merged = 0, any_seen = 0;
    s->live = s->present = 0;
    for (uint32_t rank = 0; rank < s->nodes; rank++) {
        struct top_rank *r = &s->rank[rank];
        int got = read_page(s, rank, copy);
        if (got > 0) {
            /* keep the fresh copy, recycle the old buffer for the next rank */
            struct gp_stats_page *old = r->page;
            r->page = copy;
            copy = old;
            r->seen = 1;
            r->state = state_of(s, r, now);
            update_rates(r, now);
            merged |= merge_events(s, rank);
        } else if (got == 0) {
            r->state = r->seen ? RANK_GONE : RANK_WAITING;
            r->have_prev = 0;
        } /* got < 0: the writer was busy all along; keep the last copy and state */
        s->present += r->state != RANK_WAITING && r->state != RANK_GONE;
        s->live += r->state == RANK_LIVE || r->state == RANK_IDLE;
        any_seen |= r->seen;
    }
    free(copy);
    if (merged)
        trim_timeline(s);
    s->ended = any_seen && s->live == 0;
    /* A process that went while the job runs has no rate; when the whole job
     * has ended, its last rates stay, with the rest of its last state. */
    for (uint32_t rank = 0; rank < s->nodes && !s->ended; rank++) {
        struct top_rank *r = &s->rank[rank];
        if (r->state == RANK_GONE || r->state == RANK_WAITING || r->state == RANK_DEAD)
            r->am_rate = r->safe_rate = r->sys_rate = r->stall_rate = -1;
    }
    s->sampled_ns = now;
    clock_gettime(CLOCK_REALTIME, &s->sampled_wall);
    s->samples++;
}
