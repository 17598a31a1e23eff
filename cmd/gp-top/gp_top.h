/*
 * gp-top: a live view of a running gp job's credits, tickets and buffers.
 *
 * Every process of a job publishes a statistics page in shared memory,
 * /dev/shm/gp-JOBID-stats-RANK (libcore/conduit/core/stats_page.h), rewritten
 * under a sequence counter from its poll loop.  gp-top only reads those
 * pages: the job takes no lock and makes no system call for it.
 *
 * The pieces:
 *   options.c    the command line
 *   jobs.c       finding the current user's jobs on this host
 *   sample.c     reading a job's pages, process states, rates, the timeline
 *   columns.c    the node table's columns and sort keys (screen and batch)
 *   rows.c       the other views' text rows (screen and batch)
 *   view_*.c     the interactive views, drawn with ncurses (screen.h)
 *   screen.c     the interactive loop: keys, refresh, resize
 *   batch.c      plain-text snapshots (-b); json.c the --json form
 *   say.c        gp-top's own messages
 */
#ifndef GP_TOP_H
#define GP_TOP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "conduit/core/stats_page.h"

#define TOP_SHM_DIR "/dev/shm"
#define TOP_JOBID_MAX 24
#define TOP_TIMELINE_KEEP 2000 /* events kept in memory, job-wide */

enum top_view { VIEW_NODES, VIEW_MATRIX, VIEW_PEER, VIEW_TIMELINE, VIEW_JOBS, VIEW_HELP,
                VIEW_COUNT };

/* Exit status of option parsing when gp-top should stop (help, version, a mistake). */
#define TOP_CONTINUE (-1)

struct top_opts {
    const char *job;           /* --job: NULL picks the newest */
    double delay;              /* -d: seconds between refreshes */
    int batch;                 /* -b */
    long count;                /* -n: snapshots; 0 means until the job ends (or q) */
    int json;                  /* --json */
    unsigned views;            /* batch: a bit (1u << VIEW_*) per view printed */
    enum top_view first_view;  /* interactive: the view shown first */
    int sort;                  /* node table column (columns.c) */
    int reverse;               /* sort the other way round */
    uint32_t peer_rank;        /* the peer view's rank */
};

int top_parse_options(int argc, const char **argv, struct top_opts *opts);

/* say.c: "gp-top: ..." on stderr */
void top_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* jobs.c */
struct top_job {
    char jobid[TOP_JOBID_MAX];
    uint32_t pages;            /* pages of the job found */
    uint32_t nodes;            /* the job's size, from its pages */
    time_t started;            /* when its newest page appeared */
    pid_t pid;                 /* lowest rank's process */
    char host[64];
    char program[64];          /* the lowest rank's command name */
};

/* The current user's jobs on this host, newest first; *foreign counts pages of others. */
int jobs_find(struct top_job **jobs, size_t *count, size_t *foreign);
/* Who owns the pages of jobid: 0 mine, 1 another user's (named in who), -1 none found. */
int jobs_owner(const char *jobid, char *who, size_t wholen);
/* Is name "gp-JOBID-stats-RANK"?  Fills jobid and rank when it is. */
int jobs_parse_name(const char *name, char *jobid, uint32_t *rank);

/* sample.c */
enum rank_state {
    RANK_WAITING,              /* no page seen yet */
    RANK_LIVE,                 /* page there, owner running */
    RANK_IDLE,                 /* owner running but not polling: its page is not being rewritten */
    RANK_STALE,                /* a mirror page (another host) that stopped being relayed */
    RANK_DEAD,                 /* page there, owner gone without removing it */
    RANK_GONE,                 /* page removed: the process exited */
};

struct top_rank {
    struct gp_stats_page *page; /* the last copy read (room for every peer) */
    int seen;
    enum rank_state state;
    int mirror;                /* the page describes a process on another host */
    double am_rate, safe_rate, sys_rate, stall_rate; /* per second; < 0 not known yet */
    uint64_t prev_am, prev_safe, prev_sys, prev_stalls, prev_ns;
    int have_prev;
    uint64_t events_seen;      /* the page's events already merged into the timeline */
};

struct top_event {
    uint64_t when_ns;          /* CLOCK_MONOTONIC, as the page has it */
    uint32_t rank;
    struct gp_stats_event ev;
};

struct top_sample {
    char jobid[TOP_JOBID_MAX];
    uint32_t nodes;
    struct top_rank *rank;
    uint32_t live;             /* ranks live or idle */
    uint32_t present;          /* ranks with a page */
    int ended;                 /* every process has gone */
    int version_mismatch;      /* pages of another GP_STATS_VERSION were skipped */
    uint64_t samples;
    uint64_t sampled_ns;       /* CLOCK_MONOTONIC of the last refresh */
    struct timespec sampled_wall;
    double delay;              /* the refresh interval, for freshness */
    char local_host[64];
    struct top_event *timeline; /* oldest first */
    size_t timeline_len;
    uint64_t timeline_dropped; /* events overwritten on a page before gp-top read them */
};

int sample_open(struct top_sample *s, const char *jobid, double delay, char *why, size_t len);
void sample_refresh(struct top_sample *s);
void sample_close(struct top_sample *s);
uint64_t top_now_ns(void);
const char *rank_state_name(enum rank_state state);
/* Credits rank has lent to the other ranks (its LoanCredits summed, itself left out). */
uint64_t rank_lent(const struct top_sample *s, uint32_t rank);
/* "HH:MM:SS.mmm" local time of a CLOCK_MONOTONIC instant seen at the last refresh. */
void format_event_time(const struct top_sample *s, uint64_t when_ns, char *buf, size_t len);
const char *event_name(uint32_t kind);
/* "ISZE" style letters for a conn_state's flags, '-' where clear. */
void format_flags(uint32_t flags, char *buf, size_t len);

/* columns.c: the node table */
#define COL_COUNT 15
struct column {
    const char *name;          /* header */
    const char *key;           /* the name -s takes */
    int width;
    int left;                  /* left-aligned */
    void (*cell)(const struct top_sample *s, uint32_t rank, char *buf, size_t len);
    double (*value)(const struct top_sample *s, uint32_t rank);
};
extern const struct column top_columns[COL_COUNT];
int column_by_key(const char *key);
/* The ranks in display order: sorted on column sort, reversed when asked. */
void columns_order(const struct top_sample *s, int sort, int reverse, uint32_t *order);
/* The header and one row, as plain text (mark: the sort column's header gets '*'/'^'). */
void columns_header(int sort, int reverse, char *buf, size_t len);
void columns_row(const struct top_sample *s, uint32_t rank, char *buf, size_t len);
void format_rate(double rate, char *buf, size_t len);

/* rows.c: text rows shared by the screen and batch output */
void peer_header(char *buf, size_t len);
void peer_row(const struct gp_stats_page *page, uint32_t peer, char *buf, size_t len);
void peer_summary(const struct top_sample *s, uint32_t rank, char *line1, char *line2, size_t len);
void event_header(char *buf, size_t len);
void event_row(const struct top_sample *s, const struct top_event *e, char *buf, size_t len);
void job_summary(const struct top_sample *s, char *buf, size_t len);
void jobs_header(char *buf, size_t len);
void jobs_row(const struct top_job *job, int current, char *buf, size_t len);
/* The newest job of the current user on this host, or NULL with why filled. */
int jobs_newest(char *jobid, size_t len, char *why, size_t whylen);

/* The help text shared by '?' and the man page's KEYS section. */
extern const char *const top_keys_help[];

/* screen.c / batch.c / json.c */
int screen_run(const struct top_opts *opts);
int batch_run(const struct top_opts *opts);
void json_snapshot(const struct top_sample *s, long index);
void batch_text_snapshot(const struct top_sample *s, const struct top_opts *opts, long index);

#endif
