/*
 * Batch mode (-b), like top -b: plain-text snapshots on stdout every -d
 * seconds, -n of them or until the job ends, for scripts and logs.  The
 * node table has the screen's columns; the matrix prints every number.
 */
#include "gp_top.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sleep_seconds(double seconds)
{
    struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void text_nodes(const struct top_sample *s, const struct top_opts *opts)
{
    char line[512];
    uint32_t *order = malloc(s->nodes * sizeof *order);
    if (order == NULL)
        return;
    columns_order(s, opts->sort, opts->reverse, order);
    columns_header(opts->sort, opts->reverse, line, sizeof line);
    printf("%s\n", line);
    for (uint32_t i = 0; i < s->nodes; i++) {
        columns_row(s, order[i], line, sizeof line);
        printf("%s\n", line);
    }
    free(order);
}

static void text_matrix(const struct top_sample *s)
{
    unsigned widest = 1;
    for (uint32_t r = 0; r < s->nodes; r++)
        for (uint32_t p = 0; s->rank[r].seen && p < s->nodes; p++)
            if (s->rank[r].page->peer[p].loan_credits > widest)
                widest = s->rank[r].page->peer[p].loan_credits;
    int width = snprintf(NULL, 0, "%u", widest) + 1;
    width = width < 4 ? 4 : width;
    printf("credit matrix: LoanCredits lent by each row's rank to each column's rank\n");
    printf("%6s", "lender");
    for (uint32_t p = 0; p < s->nodes; p++)
        printf("%*u", width, p);
    printf("\n");
    for (uint32_t r = 0; r < s->nodes; r++) {
        printf("%6u", r);
        for (uint32_t p = 0; p < s->nodes; p++)
            if (s->rank[r].seen)
                printf("%*u", width, s->rank[r].page->peer[p].loan_credits);
            else
                printf("%*s", width, "-");
        printf("\n");
    }
}

static void text_peer(const struct top_sample *s, uint32_t rank)
{
    char line1[512], line2[512];
    if (rank >= s->nodes) {
        printf("peer view: no rank %u in a job of %u\n", rank, s->nodes);
        return;
    }
    peer_summary(s, rank, line1, line2, sizeof line1);
    printf("%s\n%s\n", line1, line2);
    if (!s->rank[rank].seen)
        return;
    peer_header(line1, sizeof line1);
    printf("%s\n", line1);
    for (uint32_t p = 0; p < s->nodes; p++) {
        peer_row(s->rank[rank].page, p, line1, sizeof line1);
        printf("%s\n", line1);
    }
}

static void text_timeline(const struct top_sample *s)
{
    char line[256];
    printf("timeline: %zu events (newest first)%s\n", s->timeline_len,
           s->timeline_dropped ? ", some overwritten before gp-top read them" : "");
    event_header(line, sizeof line);
    printf("%s\n", line);
    for (size_t i = s->timeline_len; i-- > 0;) {
        event_row(s, &s->timeline[i], line, sizeof line);
        printf("%s\n", line);
    }
}

static void text_jobs(const struct top_sample *s)
{
    struct top_job *jobs;
    size_t count, foreign;
    char line[256];
    if (jobs_find(&jobs, &count, &foreign) != 0)
        return;
    printf("jobs: %zu of yours on this host\n", count);
    jobs_header(line, sizeof line);
    printf("%s\n", line);
    for (size_t i = 0; i < count; i++) {
        jobs_row(&jobs[i], strcmp(jobs[i].jobid, s->jobid) == 0, line, sizeof line);
        printf("%s\n", line);
    }
    free(jobs);
}

void batch_text_snapshot(const struct top_sample *s, const struct top_opts *opts, long index)
{
    char stamp[32], line[512];
    struct tm tm;
    localtime_r(&s->sampled_wall.tv_sec, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &tm);
    printf("gp-top %s - job %s - %u ranks, %u live - %s - snapshot %ld\n", GP_VERSION, s->jobid,
           s->nodes, s->live, stamp, index);
    job_summary(s, line, sizeof line);
    printf("%s\n", line);
    if (opts->views & (1u << VIEW_NODES)) {
        printf("\n");
        text_nodes(s, opts);
    }
    if (opts->views & (1u << VIEW_MATRIX)) {
        printf("\n");
        text_matrix(s);
    }
    if (opts->views & (1u << VIEW_PEER)) {
        printf("\n");
        text_peer(s, opts->peer_rank);
    }
    if (opts->views & (1u << VIEW_TIMELINE)) {
        printf("\n");
        text_timeline(s);
    }
    if (opts->views & (1u << VIEW_JOBS)) {
        printf("\n");
        text_jobs(s);
    }
    printf("\n");
}

int batch_run(const struct top_opts *opts)
{
    char jobid[TOP_JOBID_MAX], why[512];
    struct top_sample s;
    if (opts->job != NULL)
        snprintf(jobid, sizeof jobid, "%s", opts->job);
    else if (jobs_newest(jobid, sizeof jobid, why, sizeof why) != 0) {
        top_say("%s", why);
        return 1;
    }
    if (sample_open(&s, jobid, opts->delay, why, sizeof why) != 0) {
        top_say("%s", why);
        return 1;
    }
    /* A short first interval, so that the first snapshot has rates too. */
    sleep_seconds(opts->delay < 0.25 ? opts->delay : 0.25);
    sample_refresh(&s);
    for (long index = 1; opts->count == 0 || index <= opts->count; index++) {
        if (index > 1) {
            sleep_seconds(opts->delay);
            sample_refresh(&s);
        }
        if (s.ended) {
            /* ended before anything was printed: show what its pages still say */
            if (index == 1 && opts->json)
                json_snapshot(&s, index);
            else if (index == 1)
                batch_text_snapshot(&s, opts, index);
            if (opts->json)
                printf("{\"job\":\"%s\",\"ended\":true}\n", s.jobid);
            else
                printf("gp-top: job %s has ended\n", s.jobid);
            break;
        }
        if (opts->json)
            json_snapshot(&s, index);
        else
            batch_text_snapshot(&s, opts, index);
        fflush(stdout);
    }
    sample_close(&s);
    return 0;
}
