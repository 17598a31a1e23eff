/*
 * --json: one JSON object per snapshot and line (JSON Lines), with every
 * field of every page, the process states, the rates and the timeline
 * events gp-top has gathered.  Rates not known yet are null.
 */
#include "gp_top.h"

#include <stdio.h>

/* Strings on the page come from gethostname and the job id: escape anyway. */
static void json_string(const char *text, size_t max)
{
    putchar('"');
    for (size_t i = 0; i < max && text[i] != '\0'; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void json_rate(const char *name, double rate)
{
    if (rate < 0)
        printf(",\"%s\":null", name);
    else
        printf(",\"%s\":%.3f", name, rate);
}

static void json_peers(const struct gp_stats_page *pg, uint32_t nodes)
{
    printf(",\"peers\":[");
    for (uint32_t p = 0; p < nodes; p++) {
        const struct gp_stats_peer *c = &pg->peer[p];
        printf("%s{\"peer\":%u,\"send_credits\":%u,\"send_inuse\":%u,\"send_max\":%u,"
               "\"send_stalls\":%u,\"send_revoked\":%u,\"loan_credits\":%u,"
               "\"loan_requested\":%u,\"loan_given\":%u,\"flags\":%u}",
               p ? "," : "", p, c->send_credits, c->send_inuse, c->send_max, c->send_stalls,
               c->send_revoked, c->loan_credits, c->loan_requested, c->loan_given, c->flags);
    }
    printf("]");
}

static void json_rank(const struct top_sample *s, uint32_t r)
{
    const struct top_rank *rk = &s->rank[r];
    const struct gp_stats_page *pg = rk->page;
    printf("{\"rank\":%u,\"state\":\"%s\"", r, rank_state_name(rk->state));
    if (!rk->seen) {
        printf("}");
        return;
    }
    printf(",\"host\":");
    json_string(pg->host, sizeof pg->host);
    printf(",\"pid\":%u,\"mirror\":%s,\"banked_credits\":%lld,\"lent\":%llu,\"epochs\":%llu,"
           "\"stalls\":%llu,\"extra_requested\":%llu,\"extra_granted\":%llu,"
           "\"revokes_sent\":%llu,\"revokes_received\":%llu,\"credits_returned\":%llu,"
           "\"credits_recovered\":%llu,\"zero_replies\":%llu",
           pg->pid, rk->mirror ? "true" : "false", (long long)pg->banked_credits,
           (unsigned long long)rank_lent(s, r), (unsigned long long)pg->epochs,
           (unsigned long long)pg->stalls, (unsigned long long)pg->extra_requested,
           (unsigned long long)pg->extra_granted, (unsigned long long)pg->revokes_sent,
           (unsigned long long)pg->revokes_received, (unsigned long long)pg->credits_returned,
           (unsigned long long)pg->credits_recovered, (unsigned long long)pg->zero_replies);
    printf(",\"send_tickets\":{\"in_use\":%lld,\"limit\":%lld}"
           ",\"tmpmd_tickets\":{\"in_use\":%lld,\"limit\":%lld}"
           ",\"reqsb\":{\"free\":%u,\"total\":%u},\"rplsb\":{\"free\":%u,\"total\":%u}"
           ",\"reqrb\":{\"in_use\":%u,\"buffers\":%u},\"cb_hits\":%llu"
           ",\"am_events\":%llu,\"safe_events\":%llu,\"sys_events\":%llu",
           (long long)(pg->send_tickets_limit - pg->send_tickets_free),
           (long long)pg->send_tickets_limit,
           (long long)(pg->tmpmd_tickets_limit - pg->tmpmd_tickets_free),
           (long long)pg->tmpmd_tickets_limit, pg->reqsb_free, pg->reqsb_total, pg->rplsb_free,
           pg->rplsb_total, pg->reqrb_waiting, pg->reqrb_buffers,
           (unsigned long long)pg->cb_hits, (unsigned long long)pg->am_events,
           (unsigned long long)pg->safe_events, (unsigned long long)pg->sys_events);
    json_rate("am_per_s", rk->am_rate);
    json_rate("safe_per_s", rk->safe_rate);
    json_rate("sys_per_s", rk->sys_rate);
    json_rate("stalls_per_s", rk->stall_rate);
    json_peers(pg, s->nodes < pg->nodes ? s->nodes : pg->nodes);
    printf("}");
}

void json_snapshot(const struct top_sample *s, long index)
{
    const struct gp_stats_page *any = NULL;
    for (uint32_t r = 0; r < s->nodes && any == NULL; r++)
        if (s->rank[r].seen)
            any = s->rank[r].page;
    printf("{\"job\":");
    json_string(s->jobid, sizeof s->jobid);
    printf(",\"snapshot\":%ld,\"time\":%lld.%03ld,\"nodes\":%u,\"live\":%u,\"ended\":%s", index,
           (long long)s->sampled_wall.tv_sec, s->sampled_wall.tv_nsec / 1000000, s->nodes, s->live,
           s->ended ? "true" : "false");
    if (any != NULL)
        printf(",\"credits_per_node\":%u,\"max_per_node\":%u,\"banked_start\":%u,\"dynamic\":%s",
               any->credits_per_node, any->max_per_node, any->banked_start,
               any->dynamic ? "true" : "false");
    printf(",\"ranks\":[");
    for (uint32_t r = 0; r < s->nodes; r++) {
        printf("%s", r ? "," : "");
        json_rank(s, r);
    }
    printf("],\"events\":[");
    for (size_t i = 0; i < s->timeline_len; i++) {
        const struct top_event *e = &s->timeline[i];
        char when[32];
        format_event_time(s, e->when_ns, when, sizeof when);
        printf("%s{\"time\":\"%s\",\"rank\":%u,\"event\":\"%s\",\"count\":%u,\"credits\":%u,"
               "\"banked\":%lld}",
               i ? "," : "", when, e->rank, event_name(e->ev.kind), e->ev.count, e->ev.credits,
               (long long)e->ev.banked);
    }
    printf("]}\n");
}
