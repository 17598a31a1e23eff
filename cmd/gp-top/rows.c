/*
 * Text rows shared by the screen and batch output, so both say the same
 * thing in the same columns: the peer view's conn_state records, the
 * timeline's events, the job list, and the job summary line.
 */
#include "gp_top.h"

#include <stdio.h>
#include <string.h>

void peer_header(char *buf, size_t len)
{
    snprintf(buf, len, "%5s %11s %9s %7s %10s %11s %11s %13s %9s %5s", "PEER", "SendCredits",
             "SendInuse", "SendMax", "SendStalls", "SendRevoked", "LoanCredits", "LoanRequested",
             "LoanGiven", "FLAGS");
}

void peer_row(const struct gp_stats_page *page, uint32_t peer, char *buf, size_t len)
{
    const struct gp_stats_peer *p = &page->peer[peer];
    char flags[8];
    format_flags(p->flags, flags, sizeof flags);
    snprintf(buf, len, "%5u %11u %9u %7u %10u %11u %11u %13u %9u %5s", peer, p->send_credits,
             p->send_inuse, p->send_max, p->send_stalls, p->send_revoked, p->loan_credits,
             p->loan_requested, p->loan_given, flags);
}

/* Two lines about one rank: who it is, then its node-wide credit counters. */
void peer_summary(const struct top_sample *s, uint32_t rank, char *line1, char *line2, size_t len)
{
    const struct gp_stats_page *pg = s->rank[rank].page;
    if (!s->rank[rank].seen) {
        snprintf(line1, len, "rank %u: %s, no page read yet", rank,
                 rank_state_name(s->rank[rank].state));
        line2[0] = '\0';
        return;
    }
    snprintf(line1, len, "rank %u on %s, pid %u, %s; BankedCredits %lld (%u at start), lent %llu",
             rank, pg->host, pg->pid, rank_state_name(s->rank[rank].state),
             (long long)pg->banked_credits, pg->banked_start,
             (unsigned long long)rank_lent(s, rank));
    snprintf(line2, len, "epochs %llu  stalls %llu  extra asked %llu granted %llu  revokes sent "
             "%llu received %llu  credits recovered %llu returned %llu  zero replies %llu",
             (unsigned long long)pg->epochs, (unsigned long long)pg->stalls,
             (unsigned long long)pg->extra_requested, (unsigned long long)pg->extra_granted,
             (unsigned long long)pg->revokes_sent, (unsigned long long)pg->revokes_received,
             (unsigned long long)pg->credits_recovered, (unsigned long long)pg->credits_returned,
             (unsigned long long)pg->zero_replies);
}

void event_header(char *buf, size_t len)
{
    snprintf(buf, len, "%-12s %5s  %-11s %6s %7s %7s", "TIME", "RANK", "EVENT", "COUNT", "CREDITS",
             "BANK");
}

void event_row(const struct top_sample *s, const struct top_event *e, char *buf, size_t len)
{
    char when[32], credits[16] = "-";
    format_event_time(s, e->when_ns, when, sizeof when);
    if (e->ev.kind == GP_STATS_EV_REVOKE_RECEIVED || e->ev.kind == GP_STATS_EV_RECOVERED)
        snprintf(credits, sizeof credits, "%u", e->ev.credits);
    snprintf(buf, len, "%-12s %5u  %-11s %6u %7s %7lld", when, e->rank, event_name(e->ev.kind),
             e->ev.count, credits, (long long)e->ev.banked);
}

/* The job's credit plan and totals, from the pages read. */
void job_summary(const struct top_sample *s, char *buf, size_t len)
{
    unsigned long long epochs = 0, revokes = 0, recovered = 0, lent = 0;
    const struct gp_stats_page *any = NULL;
    for (uint32_t r = 0; r < s->nodes; r++) {
        if (!s->rank[r].seen)
            continue;
        const struct gp_stats_page *pg = s->rank[r].page;
        any = pg;
        epochs += pg->epochs;
        revokes += pg->revokes_sent;
        recovered += pg->credits_recovered;
        lent += rank_lent(s, r);
    }
    if (any == NULL) {
        snprintf(buf, len, s->version_mismatch ? "the job's statistics pages are of another gp "
                 "version (gp-top reads version %d): use the gp-top of the job's gp"
                 : "no page read yet", GP_STATS_VERSION);
        return;
    }
    snprintf(buf, len, "credits: %u per peer at start, at most %u, dynamic %s; lent %llu, "
             "epochs %llu, revokes %llu, recovered %llu", any->credits_per_node, any->max_per_node,
             any->dynamic ? "on" : "off", lent, epochs, revokes, recovered);
}

void jobs_header(char *buf, size_t len)
{
    snprintf(buf, len, "  %-23s %7s %9s  %-16s %-12s %s", "JOB", "RANKS", "STARTED", "PROGRAM",
             "HOST", "PID");
}

void jobs_row(const struct top_job *job, int current, char *buf, size_t len)
{
    char started[16] = "-", ranks[24];
    struct tm tm;
    if (job->started > 0 && localtime_r(&job->started, &tm) != NULL)
        strftime(started, sizeof started, "%H:%M:%S", &tm);
    if (job->nodes == 0) { /* its pages are of another layout: nothing more is known */
        snprintf(ranks, sizeof ranks, "%u/?", job->pages);
        snprintf(buf, len, "%c %-23s %7s %9s  %s", current ? '*' : ' ', job->jobid, ranks,
                 started, "(pages of another gp version)");
        return;
    }
    snprintf(ranks, sizeof ranks, "%u/%u", job->pages, job->nodes);
    snprintf(buf, len, "%c %-23s %7s %9s  %-16s %-12s %d", current ? '*' : ' ', job->jobid, ranks,
             started, job->program[0] ? job->program : "?", job->host, (int)job->pid);
}
