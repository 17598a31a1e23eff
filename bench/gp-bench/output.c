/*
 * What node 0 writes: a human table on stdout, JSON lines (--json) and CSV
 * (--csv), and a progress bar on stderr when stderr is a terminal.  Each
 * point is written as soon as it is measured, so a long run shows its
 * figures as it goes and a killed run keeps what it had.
 *
 * The table is left out when stdout carries JSON or CSV, so a pipe gets
 * clean records; PASS/FAIL lines then go to stderr.  JSON and CSV carry the
 * same fields: latency fields for latency tests, bandwidth fields (bw_MBps,
 * 10^6 bytes per second, and msg_rate, messages per second) for bandwidth
 * tests; the table shows MiB/s (2^20) beside MB/s, labelled.  Rate tests
 * (am-rate-*) carry the bandwidth fields and, in JSON and the table, the ns
 * one initiator spends per message (ns_per_msg, 10^9 x pairs / msg_rate);
 * CSV keeps its 12 columns, ns/msg being 10^9 x pairs / msg_rate.
 */
#include "bench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BAR_WIDTH 30

struct output {
    FILE *json, *csv, *table, *verdicts;
    int bar;
    int last_kind;
    unsigned nodes, pairs;
    const char *transport;
    size_t npoints;
};

static FILE *open_sink(const char *path, const char *opt)
{
    if (strcmp(path, "-") == 0)
        return stdout;
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "gp-bench: %s '%s': cannot write: %s\n", opt, path, strerror(errno));
    return f;
}

struct output *output_open(const struct bench_opts *o, unsigned nodes, unsigned pairs,
                           const char *transport, size_t npoints)
{
    struct output *out = calloc(1, sizeof *out);
    if (!out)
        return NULL;
    out->nodes = nodes;
    out->pairs = pairs;
    out->transport = transport;
    out->npoints = npoints;
    out->last_kind = -1;
    if ((o->json_path && !(out->json = open_sink(o->json_path, "--json"))) ||
        (o->csv_path && !(out->csv = open_sink(o->csv_path, "--csv")))) {
        output_close(out);
        return NULL;
    }
    int stdout_taken = out->json == stdout || out->csv == stdout;
    out->table = stdout_taken ? NULL : stdout;
    out->verdicts = stdout_taken ? stderr : stdout;
    out->bar = o->progress && isatty(STDERR_FILENO);
    if (out->csv)
        fprintf(out->csv, "test,size,nodes,pairs,transport,lat_us_min,lat_us_median,"
                          "lat_us_p99,lat_us_max,bw_MBps,msg_rate,iters\n");
    if (out->table)
        fprintf(out->table, "# gp-bench: %u node%s over %s, %u pair%s (node i <-> i+N/2), "
                            "local buffer %s, %s, %s calls\n", nodes, nodes == 1 ? "" : "s",
                transport, pairs, pairs == 1 ? "" : "s",
                o->out_of_segment ? "out of segment" : "in segment",
                o->bind ? "bound to CPUs" : "not bound", o->ex ? "gex_" : "GASNet-1");
    return out;
}

static void clear_bar(struct output *out)
{
    if (out->bar)
        fputs("\r\033[K", stderr);
}

/* Per initiator: the pairs send at once, so their rates add up. */
static double ns_per_msg(const struct point_result *r)
{
    return r->all.msg_rate > 0 ? 1e9 * r->pairs / r->all.msg_rate : 0;
}

static void table_header(struct output *out, enum bench_kind kind)
{
    if (kind == KIND_RATE)
        fprintf(out->table, "\n%-19s %6s %9s %10s %10s %11s\n", "test", "size", "iters",
                "Mmsg/s", "ns/msg", "MB/s");
    else if (kind == KIND_LATENCY)
        fprintf(out->table, "\n%-19s %6s %9s %10s %10s %10s %10s\n", "test", "size", "iters",
                "min us", "median us", "p99 us", "max us");
    else
        fprintf(out->table, "\n%-19s %6s %9s %11s %11s %10s%s\n", "test", "size", "iters",
                "MB/s", "MiB/s", "Mmsg/s", out->pairs > 1 ? "  MB/s/pair" : "");
}

static void table_row(struct output *out, const struct point_result *r)
{
    const struct test_info *t = &bench_tests[r->point.test];
    const struct pair_result *a = &r->all;
    char size[16];
    if ((int)t->kind != out->last_kind)
        table_header(out, t->kind);
    out->last_kind = (int)t->kind;
    size_str(r->point.size, size, sizeof size);
    if (t->kind == KIND_LATENCY) {
        fprintf(out->table, "%-19s %6s %9llu %10.3f %10.3f %10.3f %10.3f", t->name, size,
                (unsigned long long)a->iters, a->lat.min, a->lat.median, a->lat.p99, a->lat.max);
        if (r->pairs > 1)
            fprintf(out->table, "  (pair medians %.3f..%.3f)", r->median_spread[0],
                    r->median_spread[1]);
        fputc('\n', out->table);
    } else if (t->kind == KIND_RATE) {
        fprintf(out->table, "%-19s %6s %9llu %10.3f %10.1f %11.1f\n", t->name, size,
                (unsigned long long)a->iters, a->msg_rate / 1e6, ns_per_msg(r), a->bw_MBps);
    } else {
        fprintf(out->table, "%-19s %6s %9llu %11.1f %11.1f %10.3f", t->name, size,
                (unsigned long long)a->iters, a->bw_MBps, a->bw_MBps * 1e6 / 1048576.0,
                a->msg_rate / 1e6);
        if (out->pairs > 1)
            fprintf(out->table, "  %10.1f", a->bw_MBps / r->pairs);
        fputc('\n', out->table);
    }
    fflush(out->table);
}

static void json_row(struct output *out, const struct point_result *r)
{
    const struct test_info *t = &bench_tests[r->point.test];
    const struct pair_result *a = &r->all;
    fprintf(out->json, "{\"test\":\"%s\",\"size\":%zu,\"nodes\":%u,\"pairs\":%u,"
                       "\"transport\":\"%s\",", t->name, r->point.size, out->nodes, r->pairs,
            out->transport);
    if (t->kind == KIND_LATENCY)
        fprintf(out->json, "\"lat_us_min\":%.6g,\"lat_us_median\":%.6g,\"lat_us_p99\":%.6g,"
                           "\"lat_us_max\":%.6g,", a->lat.min, a->lat.median, a->lat.p99,
                a->lat.max);
    else
        fprintf(out->json, "\"bw_MBps\":%.6g,\"msg_rate\":%.6g,", a->bw_MBps, a->msg_rate);
    if (t->kind == KIND_RATE)
        fprintf(out->json, "\"ns_per_msg\":%.6g,", ns_per_msg(r));
    fprintf(out->json, "\"iters\":%llu}\n", (unsigned long long)a->iters);
    fflush(out->json);
}

static void csv_row(struct output *out, const struct point_result *r)
{
    const struct test_info *t = &bench_tests[r->point.test];
    const struct pair_result *a = &r->all;
    fprintf(out->csv, "%s,%zu,%u,%u,%s,", t->name, r->point.size, out->nodes, r->pairs,
            out->transport);
    if (t->kind == KIND_LATENCY)
        fprintf(out->csv, "%.6g,%.6g,%.6g,%.6g,,,", a->lat.min, a->lat.median, a->lat.p99,
                a->lat.max);
    else
        fprintf(out->csv, ",,,,%.6g,%.6g,", a->bw_MBps, a->msg_rate);
    fprintf(out->csv, "%llu\n", (unsigned long long)a->iters);
    fflush(out->csv);
}

void output_point(struct output *out, const struct point_result *r)
{
    clear_bar(out);
    if (out->table)
        table_row(out, r);
    if (out->json)
        json_row(out, r);
    if (out->csv)
        csv_row(out, r);
}

void output_progress(struct output *out, size_t done, const struct bench_point *next)
{
    if (!out->bar || out->npoints == 0)
        return;
    char bar[BAR_WIDTH + 1], size[16];
    size_t fill = done * BAR_WIDTH / out->npoints;
    for (size_t i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[BAR_WIDTH] = '\0';
    fprintf(stderr, "\r[%s] %zu/%zu %s %s\033[K", bar, done, out->npoints,
            next ? bench_tests[next->test].name : "done",
            next ? size_str(next->size, size, sizeof size) : "");
    fflush(stderr);
}

FILE *output_verdict_stream(struct output *out)
{
    clear_bar(out);
    return out->verdicts;
}

/* Returns -1 if a file could not be written in full. */
int output_close(struct output *out)
{
    int rc = 0;
    clear_bar(out);
    if (out->json && out->json != stdout && fclose(out->json))
        rc = -1;
    if (out->csv && out->csv != stdout && fclose(out->csv))
        rc = -1;
    free(out);
    return rc;
}
