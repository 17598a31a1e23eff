/*
 * The node table: one row per rank, the same columns on the screen and in
 * batch output.  Each column formats its cell and gives the number it
 * sorts on, so any column can be the sort key.
 */
#include "gp_top.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE(s, r) ((s)->rank[r].page)
#define KNOWN(s, r) ((s)->rank[r].seen)

void format_rate(double rate, char *buf, size_t len)
{
    if (rate < 0)
        snprintf(buf, len, "-");
    else if (rate < 10)
        snprintf(buf, len, "%.1f", rate);
    else if (rate < 1e6)
        snprintf(buf, len, "%.0f", rate);
    else
        snprintf(buf, len, "%.1fM", rate / 1e6);
}

static void cell_rank(const struct top_sample *s, uint32_t r, char *b, size_t n)
{
    (void)s;
    snprintf(b, n, "%u", r);
}
static void cell_host(const struct top_sample *s, uint32_t r, char *b, size_t n)
{
    snprintf(b, n, "%s", KNOWN(s, r) ? PAGE(s, r)->host : "");
}
static void cell_state(const struct top_sample *s, uint32_t r, char *b, size_t n)
{
    snprintf(b, n, "%s", rank_state_name(s->rank[r].state));
}
static void cell_bank(const struct top_sample *s, uint32_t r, char *b, size_t n)
{
    if (KNOWN(s, r))
        snprintf(b, n, "%lld", (long long)PAGE(s, r)->banked_credits);
    else
        snprintf(b, n, "-");
}
static void cell_lent(const struct top_sample *s, uint32_t r, char *b, size_t n)
{
    if (KNOWN(s, r))
        snprintf(b, n, "%llu", (unsigned long long)rank_lent(s, r));
    else
        snprintf(b, n, "-");
}
/* "used/total" for a pool the page gives as free and total. */
static void used_of(const struct top_sample *s, uint32_t r, int64_t free_now, int64_t total,
                    char *b, size_t n)
{
    if (KNOWN(s, r))
        snprintf(b, n, "%lld/%lld", (long long)(total - free_now), (long long)total);
    else
        snprintf(b, n, "-");
}
static void cell_send(const struct top_sample *s, uint32_t r, char *b, size_t n)
{
    used_of(s, r, PAGE(s, r)->send_tickets_free, PAGE(s, r)->send_tickets_limit, b, n);
}
static void cell_tmpmd(const struct top_sample *s, uint32_t r, char *b, size_t n)
{
    used_of(s, r, PAGE(s, r)->tmpmd_tickets_free, PAGE(s, r)->tmpmd_tickets_limit, b, n);
}
static void free_of(const struct top_sample *s, uint32_t r, uint32_t free_now, uint32_t total,
                    char *b, size_t n)
{
    if (KNOWN(s, r))
        snprintf(b, n, "%u/%u", free_now, total);
    else
        snprintf(b, n, "-");
}
static void cell_reqsb(const struct top_sample *s, uint32_t r, char *b, size_t n)
{
    free_of(s, r, PAGE(s, r)->reqsb_free, PAGE(s, r)->reqsb_total, b, n);
}
static void cell_rplsb(const struct top_sample *s, uint32_t r, char *b, size_t n)
{
    free_of(s, r, PAGE(s, r)->rplsb_free, PAGE(s, r)->rplsb_total, b, n);
}
static void cell_reqrb(const struct top_sample *s, uint32_t r, char *b, size_t n)
{
    /* in use: unlinked by the portal when full, waiting for their requests to be handled */
    free_of(s, r, PAGE(s, r)->reqrb_waiting, PAGE(s, r)->reqrb_buffers, b, n);
}
static void cell_am(const struct top_sample *s, uint32_t r, char *b, size_t n)
{
    format_rate(s->rank[r].am_rate, b, n);
}
static void cell_safe(const struct top_sample *s, uint32_t r, char *b, size_t n)
{
    format_rate(s->rank[r].safe_rate, b, n);
}
static void cell_sys(const struct top_sample *s, uint32_t r, char *b, size_t n)
{
    format_rate(s->rank[r].sys_rate, b, n);
}
static void cell_stalls(const struct top_sample *s, uint32_t r, char *b, size_t n)
{
    format_rate(s->rank[r].stall_rate, b, n);
}
static void cell_cbhits(const struct top_sample *s, uint32_t r, char *b, size_t n)
{
    if (KNOWN(s, r))
        snprintf(b, n, "%llu", (unsigned long long)PAGE(s, r)->cb_hits);
    else
        snprintf(b, n, "-");
}

static double val_rank(const struct top_sample *s, uint32_t r) { (void)s; return r; }
static double val_host(const struct top_sample *s, uint32_t r) { (void)s; return r; } /* see order */
static double val_state(const struct top_sample *s, uint32_t r) { return s->rank[r].state; }
static double val_bank(const struct top_sample *s, uint32_t r)
{
    return KNOWN(s, r) ? (double)PAGE(s, r)->banked_credits : -1;
}
static double val_lent(const struct top_sample *s, uint32_t r)
{
    return KNOWN(s, r) ? (double)rank_lent(s, r) : -1;
}
static double val_send(const struct top_sample *s, uint32_t r)
{
    return KNOWN(s, r) ? (double)(PAGE(s, r)->send_tickets_limit - PAGE(s, r)->send_tickets_free) : -1;
}
static double val_tmpmd(const struct top_sample *s, uint32_t r)
{
    return KNOWN(s, r) ? (double)(PAGE(s, r)->tmpmd_tickets_limit - PAGE(s, r)->tmpmd_tickets_free)
                       : -1;
}
static double val_reqsb(const struct top_sample *s, uint32_t r)
{
    return KNOWN(s, r) ? (double)PAGE(s, r)->reqsb_free : -1;
}
static double val_rplsb(const struct top_sample *s, uint32_t r)
{
    return KNOWN(s, r) ? (double)PAGE(s, r)->rplsb_free : -1;
}
static double val_reqrb(const struct top_sample *s, uint32_t r)
{
    return KNOWN(s, r) ? (double)PAGE(s, r)->reqrb_waiting : -1;
}
static double val_am(const struct top_sample *s, uint32_t r) { return s->rank[r].am_rate; }
static double val_safe(const struct top_sample *s, uint32_t r) { return s->rank[r].safe_rate; }
static double val_sys(const struct top_sample *s, uint32_t r) { return s->rank[r].sys_rate; }
static double val_stalls(const struct top_sample *s, uint32_t r) { return s->rank[r].stall_rate; }
static double val_cbhits(const struct top_sample *s, uint32_t r)
{
    return KNOWN(s, r) ? (double)PAGE(s, r)->cb_hits : -1;
}

const struct column top_columns[COL_COUNT] = {
    { "RANK", "rank", 5, 0, cell_rank, val_rank },
    { "HOST", "host", 12, 1, cell_host, val_host },
    { "STATE", "state", 5, 1, cell_state, val_state },
    { "BANK", "bank", 7, 0, cell_bank, val_bank },
    { "LENT", "lent", 7, 0, cell_lent, val_lent },
    { "SENDTK", "send", 9, 0, cell_send, val_send },
    { "TMPMD", "tmpmd", 9, 0, cell_tmpmd, val_tmpmd },
    { "REQSB", "reqsb", 11, 0, cell_reqsb, val_reqsb },
    { "RPLSB", "rplsb", 11, 0, cell_rplsb, val_rplsb },
    { "REQRB", "reqrb", 6, 0, cell_reqrb, val_reqrb },
    { "AM/s", "am", 8, 0, cell_am, val_am },
    { "SAFE/s", "safe", 7, 0, cell_safe, val_safe },
    { "SYS/s", "sys", 7, 0, cell_sys, val_sys },
    { "STALL/s", "stalls", 7, 0, cell_stalls, val_stalls },
    { "CBHITS", "cbhits", 7, 0, cell_cbhits, val_cbhits },
};

int column_by_key(const char *key)
{
    for (int c = 0; c < COL_COUNT; c++)
        if (strcmp(top_columns[c].key, key) == 0)
            return c;
    return -1;
}

/* qsort has no context argument: the comparison reads these while sorting. */
static const struct top_sample *sort_sample;
static int sort_column, sort_reverse;

static int compare_ranks(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int order = 0;
    if (sort_column == 1) { /* host: by name */
        order = strcmp(KNOWN(sort_sample, x) ? PAGE(sort_sample, x)->host : "",
                       KNOWN(sort_sample, y) ? PAGE(sort_sample, y)->host : "");
    } else {
        double vx = top_columns[sort_column].value(sort_sample, x);
        double vy = top_columns[sort_column].value(sort_sample, y);
        order = vx < vy ? -1 : vx > vy;
        /* the rank and names ascend by default; quantities show the biggest first */
        if (sort_column > 2)
            order = -order;
    }
    if (sort_reverse)
        order = -order;
    return order != 0 ? order : (x < y ? -1 : x > y); /* ties stay in rank order */
}

void columns_order(const struct top_sample *s, int sort, int reverse, uint32_t *order)
{
    for (uint32_t r = 0; r < s->nodes; r++)
        order[r] = r;
    sort_sample = s;
    sort_column = sort;
    sort_reverse = reverse;
    qsort(order, s->nodes, sizeof *order, compare_ranks);
}

static size_t put_cell(char *buf, size_t len, size_t used, const struct column *col,
                       const char *text)
{
    if (used >= len)
        return used;
    int n = snprintf(buf + used, len - used, "%s%*.*s", used ? " " : "",
                     col->left ? -col->width : col->width, col->width, text);
    return n > 0 ? used + (size_t)n : used;
}

void columns_header(int sort, int reverse, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int c = 0; c < COL_COUNT; c++) {
        char name[32];
        /* the sort column is marked: '*' in its usual order, '^' reversed */
        snprintf(name, sizeof name, "%s%s", c == sort ? (reverse ? "^" : "*") : "",
                 top_columns[c].name);
        used = put_cell(buf, len, used, &top_columns[c], name);
    }
}

void columns_row(const struct top_sample *s, uint32_t rank, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int c = 0; c < COL_COUNT; c++) {
        char cell[64];
        top_columns[c].cell(s, rank, cell, sizeof cell);
        used = put_cell(buf, len, used, &top_columns[c], cell);
    }
}
