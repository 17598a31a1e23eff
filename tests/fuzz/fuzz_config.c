/*
 * libFuzzer target: the configuration parser (libcore/config/) through
 * the entry gasnet_init uses, gp_config_load, with values of any row from
 * the input -- then what reads the result: the echo of every value
 * (GASNET_VERBOSEENV, gp-check --env), the job-size derived values attach
 * sets, and the ibv rules against a device (nal/ibv/ibv_limits.c).
 *
 * An input is records: one byte choosing a row (0xff: an unknown GASNET_
 * variable instead, named by the value, for the closest-name warning), one
 * byte of length, the value (a NUL ends it, as in an environment).  What
 * must hold: no access outside what was allocated, no undefined behaviour,
 * a rejected load leaves the previous configuration as it was, and a value
 * the parser accepted lies within its row's range.
 *
 *   make fuzz && build-fuzz/fuzz_config -max_total_time=60 tests/fuzz/corpus/fuzz_config
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "nal/ibv/ibv_limits.h"
#include "util/log.h"

#define MAX_SET 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static const struct gp_cfg_row *rows;
static size_t row_count;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    gp_log_threshold = -1; /* rejected values are expected here, by the million */
    rows = gp_config_rows(&row_count);
    /* Nothing from the environment this runs in: only the input's values. */
    for (size_t i = 0; i < row_count; i++)
        unsetenv(rows[i].name);
    char why[512];
    if (gp_config_load(why, sizeof why) != 0)
        abort(); /* the defaults must load */
    return 0;
}

/* A number the row accepted lies in [min, max] (or is the row's "unset" marker). */
static void check_in_range(const struct gp_cfg_row *row)
{
    if (row->offset == GP_CFG_NO_FIELD || gp_config_source(row) != GP_CFG_FROM_ENV)
        return;
    const char *base = gp_config_value_of(row);
    double value;
    switch (row->type) {
    case GP_CFG_INT: value = (double)*(const int64_t *)(const void *)base; break;
    case GP_CFG_SIZE: value = (double)*(const uint64_t *)(const void *)base; break;
    case GP_CFG_DOUBLE: value = *(const double *)(const void *)base; break;
    default: return;
    }
    if (row->min == row->max)
        return; /* no range */
    if (value < row->min || value > row->max) {
        if ((row->flags & GP_CFG_F_ZERO_OK) && value == 0)
            return;
        fprintf(stderr, "%s accepted %g outside [%g, %g]\n", row->name, value, row->min, row->max);
        abort();
    }
}

/* Every stored value's bytes (a string's pointer), wherever its layer keeps it. */
static void snapshot(uint64_t *out)
{
    for (size_t i = 0; i < row_count; i++) {
        const void *value = gp_config_value_of(&rows[i]);
        out[i] = 0;
        if (value != NULL)
            memcpy(&out[i], value, rows[i].type == GP_CFG_BOOL ? sizeof(int) : sizeof(uint64_t));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char names[MAX_SET][96];
    int set = 0;
    size_t at = 0;
    while (at + 2 <= size && set < MAX_SET) {
        unsigned choice = data[at], len = data[at + 1];
        at += 2;
        if (len > size - at)
            len = (unsigned)(size - at);
        char value[256];
        memcpy(value, data + at, len);
        value[len] = '\0';
        at += len;
        if (choice == 0xff) {
            /* An unknown variable: GASNET_ and the value's name characters. */
            size_t n = (size_t)snprintf(names[set], sizeof names[set], "GASNET_");
            for (size_t i = 0; value[i] != '\0' && n + 1 < sizeof names[set]; i++)
                if ((value[i] >= 'A' && value[i] <= 'Z') || value[i] == '_')
                    names[set][n++] = value[i];
            names[set][n] = '\0';
            setenv(names[set], "1", 1);
        } else {
            snprintf(names[set], sizeof names[set], "%s", rows[choice % row_count].name);
            setenv(names[set], value, 1);
        }
        set++;
    }
    static uint64_t before[512], after[512];
    snapshot(before);
    char why[512];
    if (gp_config_load(why, sizeof why) != 0) {
        snapshot(after);
        if (why[0] == '\0' || memcmp(before, after, row_count * sizeof before[0]) != 0)
            abort(); /* a rejection says why and changes nothing */
    } else {
        for (size_t i = 0; i < row_count; i++) {
            char text[512];
            gp_config_format_value(&rows[i], text, sizeof text);
            check_in_range(&rows[i]);
        }
        /* What attach derives from the job's size, then the ibv rules against a device. */
        uint64_t nodes = 1 + (size ? data[0] : 0) * 37u;
        gp_config_set_derived("GASNET_PORTAL_CRED_PER_NODE", (int64_t)(nodes % 200) + 1);
        struct gp_ibv_caps caps = { .nodes = nodes, .ports = 1 + nodes % 3, .max_qp_wr = 16384,
                                    .max_cqe = 1 + nodes * 97, .max_qp_rd_atom = 16,
                                    .max_inline = 220, .max_mr_size = UINT64_MAX,
                                    .pinnable_bytes = nodes % 2 ? 0 : (1ull << 32),
                                    .pinned_elsewhere = 1ull << 30 };
        struct gp_ibv_limits lim;
        gp_config_ibv_limits(&ibv_cfg, &firehose_cfg, &caps, &lim);
        if (lim.networkdepth_total < 1 || lim.am_credits_pp > lim.networkdepth_pp ||
            lim.bbuf_count > lim.networkdepth_total)
            abort(); /* seed 003's "trimmed to" rules */
    }
    for (int i = 0; i < set; i++)
        unsetenv(names[i]);
    return 0;
}
