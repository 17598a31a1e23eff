/*
 * The configuration table: defaults, strict parsing of every type, the
 * error sentence, unknown-variable warnings, fallbacks and derived values,
 * and the verbose echo.  Every test runs in its own process, so each starts
 * by clearing GASNET_* and GP_* from its environment and sets what it needs.
 */
#include "../harness/test.h"

#include <unistd.h>

#include <gasnet.h>

#include "config/config.h"
#include "config/rows.h"
#include "nal/firehose_config.h"
#include "nal/ibv/ibv_config.h"
#include "nal/nal.h"
#include "nal/ofi/ofi_config.h"
#include "nal/tcp/tcp_config.h"
#include "util/log.h"

/* ---- helpers ---- */

static void clear_our_environment(void)
{
    char *names[512];
    size_t count = 0;
    /* Collect first: unsetenv rearranges environ under the loop. */
    for (char **entry = environ; *entry != NULL && count < 512; entry++) {
        if (strncmp(*entry, "GASNET_", 7) != 0 && strncmp(*entry, "GP_", 3) != 0)
            continue;
        size_t len = strcspn(*entry, "=");
        names[count] = strndup(*entry, len);
        CHECK(names[count] != NULL);
        count++;
    }
    for (size_t i = 0; i < count; i++) {
        CHECK_EQ(unsetenv(names[i]), 0);
        free(names[i]);
    }
}

static void load_ok(void)
{
    char err[512] = "";
    int rc = gp_config_load(err, sizeof err);
    if (rc != GP_CFG_OK)
        gp_test_fail(__FILE__, __LINE__, "gp_config_load returned %d: %s", rc, err);
}

/* Sets name=value, loads, and expects exactly the error sentence given. */
static void expect_rejected(int line, const char *name, const char *value, const char *message)
{
    char err[512] = "";
    CHECK_EQ(setenv(name, value, 1), 0);
    int rc = gp_config_load(err, sizeof err);
    if (rc != GP_CFG_ERR_BAD_ARG)
        gp_test_fail(__FILE__, line, "%s='%s' loaded with %d, expected GP_CFG_ERR_BAD_ARG", name,
                     value, rc);
    if (strcmp(err, message) != 0)
        gp_test_fail(__FILE__, line, "message \"%s\", expected \"%s\"", err, message);
    CHECK_EQ(unsetenv(name), 0);
}

static void set_and_load(const char *name, const char *value)
{
    CHECK_EQ(setenv(name, value, 1), 0);
    load_ok();
}

/* Redirects fd 2 into a temporary file until end_capture(). */
struct capture {
    FILE *file;
    int saved_fd;
};

static struct capture begin_capture(void)
{
    struct capture cap;
    cap.file = tmpfile();
    CHECK(cap.file != NULL);
    fflush(stderr);
    cap.saved_fd = dup(STDERR_FILENO);
    CHECK(cap.saved_fd >= 0);
    CHECK(dup2(fileno(cap.file), STDERR_FILENO) >= 0);
    return cap;
}

static void end_capture(struct capture *cap, char *buf, size_t len)
{
    fflush(stderr);
    CHECK(dup2(cap->saved_fd, STDERR_FILENO) >= 0);
    close(cap->saved_fd);
    rewind(cap->file);
    size_t got = fread(buf, 1, len - 1, cap->file);
    buf[got] = '\0';
    fclose(cap->file);
}

static size_t count_occurrences(const char *haystack, const char *needle)
{
    size_t count = 0;
    for (const char *p = strstr(haystack, needle); p != NULL; p = strstr(p + 1, needle))
        count++;
    return count;
}

/* ---- defaults ---- */

static void test_defaults(void)
{
    clear_our_environment();
    load_ok();
    CHECK_EQ(gp_cfg.portal_msg_limit, 250);
    CHECK_EQ(gp_cfg.portal_num_tmpmd, 1024);
    CHECK_EQ(gp_cfg.portal_packed_long, 1);
    CHECK_EQ(gp_cfg.portal_flow_control, 1);
    CHECK_EQ(gp_cfg.portal_dynamic_credits, 1);
    CHECK_EQ(gp_cfg.portal_sb_chunks, 1024);
    CHECK_EQ(gp_cfg.portal_rpl_chunks, 1024);
    CHECK_EQ(gp_cfg.portal_safe_limit, 12);
    CHECK_EQ(gp_cfg.portal_am_limit, 8);
    CHECK_EQ(gp_cfg.portal_sys_limit, 0);
    CHECK_EQ(gp_cfg.portal_max_cred_per_node, 400);
    CHECK_EQ(gp_cfg.portal_accel, 0);
    CHECK_EQ(gp_cfg.portal_credit_stats, 0);
    CHECK_EQ(gp_cfg.portal_epoch_duration, 1024);
    CHECK_EQ(gp_cfg.portal_cred_per_node, 0);
    CHECK_EQ(gp_cfg.portal_banked_credits, -1);
    CHECK_EQ(gp_cfg.portal_amrecv_space, 0);
    CHECK_EQ(gp_cfg.portal_put_bounce_limit, 1024);
    CHECK_EQ(gp_cfg.portal_get_bounce_limit, 1024);
    CHECK_EQ(gp_cfg.portal_putget_bounce_limit, 1024);
    CHECK_EQ(gp_cfg.portal_lender_limit, 64);
    CHECK_EQ(gp_cfg.portal_revoke_limit, 64);
    CHECK_EQ(gp_cfg.portal_num_scavenge, 8);
}

static void test_defaults_standard(void)
{
    clear_our_environment();
    load_ok();
    CHECK_EQ(gp_cfg.verboseenv, 0);
    CHECK_EQ(gp_cfg.max_segsize, 4ull << 30);
    CHECK(gp_cfg.physmem_pinnable_ratio == 0.75);
    CHECK(gp_cfg.exittimeout == 0.0);
    CHECK(gp_cfg.exittimeout_max == 360.0);
    CHECK(gp_cfg.exittimeout_min == 2.0);
    CHECK(gp_cfg.exittimeout_factor == 0.25);
    CHECK_EQ(gp_cfg.backtrace, 0);
    CHECK_EQ(gp_cfg.freeze, 0);
    CHECK_EQ(gp_cfg.freeze_on_error, 0);
    CHECK(gp_cfg.tracefile == NULL);
    CHECK(gp_cfg.statsfile == NULL);
    CHECK_EQ(firehose_cfg.use_firehose, 1);
    CHECK_EQ(firehose_cfg.firehose_maxregion_size, 128 * 1024);
    CHECK_EQ(firehose_cfg.firehose_maxvictim_r, 1024);
    CHECK_EQ(firehose_cfg.firehose_maxvictim_m, 1024ull * 128 * 1024);
    CHECK_EQ(firehose_cfg.firehose_verbose, 0);
    CHECK_STR_EQ(gp_cfg.gp_log_level, "warn");
    CHECK(gp_cfg.gp_transport == NULL);
}

static void test_defaults_sources(void)
{
    size_t count;
    const struct gp_cfg_row *rows = gp_config_rows(&count);
    clear_our_environment();
    load_ok();
    for (size_t i = 0; i < count; i++)
        CHECK_EQ(gp_config_source(&rows[i]), GP_CFG_FROM_DEFAULT);
}

/* ---- the table itself ---- */

static int parses_as_type(const struct gp_cfg_row *row, const char *text)
{
    int flag;
    int64_t integer;
    uint64_t bytes;
    double real;
    switch (row->type) {
    case GP_CFG_BOOL:   return gp_config_parse_bool(text, &flag) == GP_CFG_OK;
    case GP_CFG_INT:    return gp_config_parse_int(text, &integer) == GP_CFG_OK;
    case GP_CFG_SIZE:   return gp_config_parse_size(text, &bytes) == GP_CFG_OK;
    case GP_CFG_DOUBLE: return gp_config_parse_double(text, &real) == GP_CFG_OK;
    case GP_CFG_STRING: return 1;
    }
    return 0;
}

static void test_table_rows(void)
{
    size_t count;
    const struct gp_cfg_row *rows = gp_config_rows(&count);
    size_t stored = 0;
    for (size_t i = 0; i < count; i++) {
        if (rows[i].offset == GP_CFG_NO_FIELD) {
            CHECK(gp_config_value_of(&rows[i]) == NULL);
            continue;
        }
        stored++;
        CHECK(gp_config_value_of(&rows[i]) != NULL);
        for (size_t j = i + 1; j < count; j++)
            if (gp_config_value_of(&rows[j]) == gp_config_value_of(&rows[i]))
                gp_test_fail(__FILE__, __LINE__, "%s and %s share a field", rows[i].name,
                             rows[j].name);
    }
    /* One row per field of struct gp_config and of the layers' own structs (ibv_cfg,
     * firehose_cfg, ...): 90 fields today; adding a field means a row. */
    CHECK_EQ(stored, 90);
    for (size_t i = 0; i < count; i++) {
        if (rows[i].doc == NULL || rows[i].doc[0] == '\0')
            gp_test_fail(__FILE__, __LINE__, "%s has no doc", rows[i].name);
        CHECK(rows[i].transport != NULL);
        CHECK(strstr("all shm tcp ibv ofi launcher", rows[i].transport) != NULL);
        CHECK(gp_config_find(rows[i].name) == &rows[i]);
        for (size_t j = i + 1; j < count; j++)
            if (strcmp(rows[i].name, rows[j].name) == 0)
                gp_test_fail(__FILE__, __LINE__, "%s appears twice", rows[i].name);
        if (rows[i].default_text != NULL && !parses_as_type(&rows[i], rows[i].default_text))
            gp_test_fail(__FILE__, __LINE__, "%s default '%s' does not parse", rows[i].name,
                         rows[i].default_text);
        if (strcmp(rows[i].transport, "launcher") == 0)
            CHECK_EQ(rows[i].offset, GP_CFG_NO_FIELD);
    }
    CHECK(gp_config_find("GASNET_PORTAL_MSG_LIMIT") != NULL);
    CHECK(gp_config_find("GASNET_SSH_SERVERS") != NULL);
    CHECK(gp_config_find("GP_BOOT_KEY_FD") != NULL);
    CHECK(gp_config_find("GASNET_NO_SUCH_THING") == NULL);
    CHECK(gp_config_find(NULL) == NULL);
}

static void test_launcher_rows(void)
{
    static const char *const names[] = {
        "GP_BOOT_ADDR", "GP_RANK", "GP_SIZE", "GP_JOBID", "GP_BOOT_KEY_FD",
        "GASNET_SPAWNER", "GASNET_SSH_NODEFILE", "GASNET_SSH_SERVERS", "GASNET_SSH_CMD",
        "GASNET_SSH_OPTIONS", "GASNET_SSH_REMOTE_PATH", "GASNET_SSH_OUT_DEGREE",
        "GASNET_IBV_SPAWNER", "GASNET_VAPI_SPAWNER", "MPIRUN_CMD",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const struct gp_cfg_row *row = gp_config_find(names[i]);
        if (row == NULL)
            gp_test_fail(__FILE__, __LINE__, "%s is not in the table", names[i]);
        CHECK_STR_EQ(row->transport, "launcher");
    }
    CHECK_STR_CONTAINS(gp_config_find("GP_RANK")->doc, "set by gp-run");
    CHECK_EQ(gp_config_find("GP_RANK")->type, GP_CFG_INT);
    CHECK_EQ(gp_config_find("GASNET_SSH_SERVERS")->type, GP_CFG_STRING);
    /* The tree of agents reads it (gp-run's spawn_ssh.c): no longer flagged. */
    const struct gp_cfg_row *degree = gp_config_find("GASNET_SSH_OUT_DEGREE");
    CHECK_EQ(degree->type, GP_CFG_INT);
    CHECK_EQ(degree->flags & GP_CFG_F_NO_EFFECT, 0u);
    CHECK_STR_EQ(degree->default_text, "32");
}

static void test_launcher_values(void)
{
    char value[64];
    clear_our_environment();
    expect_rejected(__LINE__, "GP_RANK", "abc",
                    "GP_RANK='abc' is not valid: expected an integer from 0 to 2147483646");
    expect_rejected(__LINE__, "GP_SIZE", "0",
                    "GP_SIZE='0' is not valid: expected an integer from 1 to 2147483647");
    setenv("GP_RANK", "3", 1);
    setenv("GASNET_SSH_SERVERS", "h1,h2", 1);
    load_ok();
    gp_config_format_value(gp_config_find("GP_RANK"), value, sizeof value);
    CHECK_STR_EQ(value, "3");
    gp_config_format_value(gp_config_find("GASNET_SSH_SERVERS"), value, sizeof value);
    CHECK_STR_EQ(value, "h1,h2");
    gp_config_format_value(gp_config_find("GP_JOBID"), value, sizeof value);
    CHECK_STR_EQ(value, "(not set)");
    CHECK_STR_EQ(gp_config_getenv("GP_RANK"), "3");
}

/* ---- booleans ---- */

static void test_bool_spellings(void)
{
    static const struct { const char *text; int value; } spellings[] = {
        { "0", 0 }, { "1", 1 }, { "y", 1 }, { "n", 0 }, { "yes", 1 }, { "no", 0 },
        { "true", 1 }, { "false", 0 }, { "Y", 1 }, { "N", 0 }, { "YES", 1 }, { "nO", 0 },
        { "True", 1 }, { "FALSE", 0 },
    };
    clear_our_environment();
    for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
        int parsed = -1;
        CHECK_EQ(gp_config_parse_bool(spellings[i].text, &parsed), GP_CFG_OK);
        CHECK_EQ(parsed, spellings[i].value);
        set_and_load("GASNET_PORTAL_PACKED_LONG", spellings[i].text);
        if (gp_cfg.portal_packed_long != spellings[i].value)
            gp_test_fail(__FILE__, __LINE__, "PACKED_LONG=%s gave %d", spellings[i].text,
                         gp_cfg.portal_packed_long);
        CHECK_EQ(gp_config_source(gp_config_find("GASNET_PORTAL_PACKED_LONG")), GP_CFG_FROM_ENV);
    }
}

static void test_bool_junk(void)
{
    static const char *const junk[] = { "2", "", "on", "off", "yes ", " 1", "truee", "ye", "-1" };
    clear_our_environment();
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        char message[256];
        int untouched = 42;
        CHECK_EQ(gp_config_parse_bool(junk[i], &untouched), GP_CFG_ERR_BAD_ARG);
        CHECK_EQ(untouched, 42);
        snprintf(message, sizeof message, "GASNET_PORTAL_FLOW_CONTROL='%s' is not valid: "
                 "expected one of 0, 1, y, n, yes, no, true, false (any case)", junk[i]);
        expect_rejected(__LINE__, "GASNET_PORTAL_FLOW_CONTROL", junk[i], message);
    }
    CHECK_EQ(gp_config_parse_bool(NULL, &(int){ 0 }), GP_CFG_ERR_BAD_ARG);
}

/* ---- integers ---- */

static void test_int_bounds(void)
{
    /* At least 2 send tickets: a request handler's reply holds 2, so 1 would hang the job. */
    const char *why = "is not valid: expected an integer from 2 to 65535";
    char message[256];
    clear_our_environment();
    snprintf(message, sizeof message, "GASNET_PORTAL_MSG_LIMIT='0' %s", why);
    expect_rejected(__LINE__, "GASNET_PORTAL_MSG_LIMIT", "0", message);
    snprintf(message, sizeof message, "GASNET_PORTAL_MSG_LIMIT='1' %s", why);
    expect_rejected(__LINE__, "GASNET_PORTAL_MSG_LIMIT", "1", message);
    set_and_load("GASNET_PORTAL_MSG_LIMIT", "2");
    CHECK_EQ(gp_cfg.portal_msg_limit, 2);
    set_and_load("GASNET_PORTAL_MSG_LIMIT", "65535");
    CHECK_EQ(gp_cfg.portal_msg_limit, 65535);
    snprintf(message, sizeof message, "GASNET_PORTAL_MSG_LIMIT='65536' %s", why);
    expect_rejected(__LINE__, "GASNET_PORTAL_MSG_LIMIT", "65536", message);
    snprintf(message, sizeof message, "GASNET_PORTAL_MSG_LIMIT='abc' %s", why);
    expect_rejected(__LINE__, "GASNET_PORTAL_MSG_LIMIT", "abc", message);
    expect_rejected(__LINE__, "GASNET_PORTAL_SYS_LIMIT", "-1", "GASNET_PORTAL_SYS_LIMIT='-1' is "
                    "not valid: expected an integer from 0 to 65535");
    set_and_load("GASNET_PORTAL_SYS_LIMIT", "0");
    CHECK_EQ(gp_cfg.portal_sys_limit, 0);
}

static void test_int_forms(void)
{
    clear_our_environment();
    set_and_load("GASNET_PORTAL_NUM_TMPMD", "0x10");
    CHECK_EQ(gp_cfg.portal_num_tmpmd, 16);
    set_and_load("GASNET_PORTAL_NUM_TMPMD", "0X1f");
    CHECK_EQ(gp_cfg.portal_num_tmpmd, 31);
    set_and_load("GASNET_PORTAL_NUM_TMPMD", "010");
    CHECK_EQ(gp_cfg.portal_num_tmpmd, 10); /* decimal, not octal */
    set_and_load("GASNET_PORTAL_NUM_TMPMD", "+7");
    CHECK_EQ(gp_cfg.portal_num_tmpmd, 7);
    static const char *const junk[] = {
        "12abc", " 12", "12 ", "", "0x", "0x0x10", "0xg", "1.5", "1e3", "--1", "+", "12K",
        "99999999999999999999",
    };
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        char message[256];
        snprintf(message, sizeof message, "GASNET_PORTAL_NUM_TMPMD='%s' is not valid: expected "
                 "an integer from 1 to 1048576", junk[i]);
        expect_rejected(__LINE__, "GASNET_PORTAL_NUM_TMPMD", junk[i], message);
    }
}

static void test_int_parser_limits(void)
{
    int64_t value = 5;
    CHECK_EQ(gp_config_parse_int("9223372036854775807", &value), GP_CFG_OK);
    CHECK(value == INT64_MAX);
    CHECK_EQ(gp_config_parse_int("-9223372036854775808", &value), GP_CFG_OK);
    CHECK(value == INT64_MIN);
    CHECK_EQ(gp_config_parse_int("-0x10", &value), GP_CFG_OK);
    CHECK_EQ(value, -16);
    value = 5;
    CHECK_EQ(gp_config_parse_int("9223372036854775808", &value), GP_CFG_ERR_BAD_ARG);
    CHECK_EQ(gp_config_parse_int("-9223372036854775809", &value), GP_CFG_ERR_BAD_ARG);
    CHECK_EQ(gp_config_parse_int("99999999999999999999", &value), GP_CFG_ERR_BAD_ARG);
    CHECK_EQ(gp_config_parse_int("0x10000000000000000", &value), GP_CFG_ERR_BAD_ARG);
    CHECK_EQ(gp_config_parse_int(NULL, &value), GP_CFG_ERR_BAD_ARG);
    CHECK_EQ(value, 5);
}

/* ---- sizes ---- */

static void test_size_parser(void)
{
    static const struct { const char *text; uint64_t bytes; } good[] = {
        { "0", 0 }, { "5", 5 }, { "1K", 1024 }, { "1k", 1024 }, { "2M", 2ull << 20 },
        { "3G", 3ull << 30 }, { "1T", 1ull << 40 }, { "1KB", 1024 }, { "1mb", 1ull << 20 },
        { "4Gb", 4ull << 30 }, { "18446744073709551615", UINT64_MAX },
        { "16777215T", 16777215ull << 40 },
    };
    static const char *const bad[] = {
        "", "K", "1P", "1KBB", "1.5G", " 1K", "1K ", "1 K", "-1", "+1", "1B", "0x10",
        "16777216T", "18446744073709551616",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint64_t bytes = 1;
        if (gp_config_parse_size(good[i].text, &bytes) != GP_CFG_OK || bytes != good[i].bytes)
            gp_test_fail(__FILE__, __LINE__, "'%s' gave %" PRIu64, good[i].text, bytes);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t bytes = 77;
        if (gp_config_parse_size(bad[i], &bytes) != GP_CFG_ERR_BAD_ARG || bytes != 77)
            gp_test_fail(__FILE__, __LINE__, "'%s' was accepted", bad[i]);
    }
}

static void test_size_rows(void)
{
    const char *why = "is not valid: expected a size from 64K to 256T: digits with an optional "
                      "K, M, G or T suffix";
    char message[256];
    clear_our_environment();
    set_and_load("GASNET_MAX_SEGSIZE", "1G");
    CHECK_EQ(gp_cfg.max_segsize, 1ull << 30);
    set_and_load("GASNET_MAX_SEGSIZE", "1048576");
    CHECK_EQ(gp_cfg.max_segsize, 1048576);
    set_and_load("GASNET_MAX_SEGSIZE", "64K");
    CHECK_EQ(gp_cfg.max_segsize, 65536);
    snprintf(message, sizeof message, "GASNET_MAX_SEGSIZE='65535' %s", why);
    expect_rejected(__LINE__, "GASNET_MAX_SEGSIZE", "65535", message);
    snprintf(message, sizeof message, "GASNET_MAX_SEGSIZE='257T' %s", why);
    expect_rejected(__LINE__, "GASNET_MAX_SEGSIZE", "257T", message);
    snprintf(message, sizeof message, "GASNET_MAX_SEGSIZE='99999999999T' %s", why);
    expect_rejected(__LINE__, "GASNET_MAX_SEGSIZE", "99999999999T", message);
    snprintf(message, sizeof message, "GASNET_MAX_SEGSIZE='2X' %s", why);
    expect_rejected(__LINE__, "GASNET_MAX_SEGSIZE", "2X", message);
}

static void test_firehose_megabytes(void)
{
    clear_our_environment();
    set_and_load("GASNET_FIREHOSE_MAXVICTIM_M", "256");
    CHECK_EQ(firehose_cfg.firehose_maxvictim_m, 256ull << 20);
    set_and_load("GASNET_FIREHOSE_MAXVICTIM_M", "2G");
    CHECK_EQ(firehose_cfg.firehose_maxvictim_m, 2ull << 30);
    set_and_load("GASNET_FIREHOSE_MAXREGION_SIZE", "1");
    CHECK_EQ(firehose_cfg.firehose_maxregion_size, 1ull << 20);
    set_and_load("GASNET_FIREHOSE_MAXREGION_SIZE", "64K");
    CHECK_EQ(firehose_cfg.firehose_maxregion_size, 65536);
    /* Other sizes keep bare numbers as bytes. */
    set_and_load("GASNET_PORTAL_AMRECV_SPACE", "1048576");
    CHECK_EQ(gp_cfg.portal_amrecv_space, 1048576);
    expect_rejected(__LINE__, "GASNET_FIREHOSE_MAXVICTIM_M", "512K",
                    "GASNET_FIREHOSE_MAXVICTIM_M='512K' is not valid: expected a size from 1M "
                    "to 1T: digits with an optional K, M, G or T suffix (a bare number means "
                    "megabytes)");
    expect_rejected(__LINE__, "GASNET_FIREHOSE_MAXREGION_SIZE", "2048",
                    "GASNET_FIREHOSE_MAXREGION_SIZE='2048' is not valid: expected a size from "
                    "4K to 1G: digits with an optional K, M, G or T suffix (a bare number means "
                    "megabytes)");
}

static void test_firehose_victim_derived(void)
{
    char value[64];
    clear_our_environment();
    setenv("GASNET_FIREHOSE_MAXVICTIM_R", "10", 1);
    set_and_load("GASNET_FIREHOSE_MAXREGION_SIZE", "1");
    CHECK_EQ(firehose_cfg.firehose_maxvictim_m, 10ull << 20);
    gp_config_format_value(gp_config_find("GASNET_FIREHOSE_MAXVICTIM_M"), value, sizeof value);
    CHECK_STR_EQ(value, "10M");
    set_and_load("GASNET_FIREHOSE_MAXVICTIM_M", "3");
    CHECK_EQ(firehose_cfg.firehose_maxvictim_m, 3ull << 20);
}

/* ---- doubles ---- */

static void test_double_rows(void)
{
    const char *why = "is not valid: expected a number greater than 0 and at most 1";
    static const char *const bad[] = { "0", "1.01", "-0.5", "0.5x", "nan", "inf", "1e400", "",
                                       " 0.5", "0.5 " };
    clear_our_environment();
    set_and_load("GASNET_PHYSMEM_PINNABLE_RATIO", "0.5");
    CHECK(gp_cfg.physmem_pinnable_ratio == 0.5);
    set_and_load("GASNET_PHYSMEM_PINNABLE_RATIO", "1");
    CHECK(gp_cfg.physmem_pinnable_ratio == 1.0);
    set_and_load("GASNET_PHYSMEM_PINNABLE_RATIO", "1e-3");
    CHECK(gp_cfg.physmem_pinnable_ratio == 0.001);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char message[256];
        snprintf(message, sizeof message, "GASNET_PHYSMEM_PINNABLE_RATIO='%s' %s", bad[i], why);
        expect_rejected(__LINE__, "GASNET_PHYSMEM_PINNABLE_RATIO", bad[i], message);
    }
    set_and_load("GASNET_EXITTIMEOUT_FACTOR", "0");
    CHECK(gp_cfg.exittimeout_factor == 0.0);
    expect_rejected(__LINE__, "GASNET_EXITTIMEOUT_FACTOR", "-1", "GASNET_EXITTIMEOUT_FACTOR='-1' "
                    "is not valid: expected a number of at least 0");
    set_and_load("GASNET_EXITTIMEOUT", "12.5");
    CHECK(gp_cfg.exittimeout == 12.5);
}

/* GASNet-1 has no upper bound; OpenSHMEM sets 2147483646 before gasnet_init for "never". */
static void test_exittimeout_unbounded(void)
{
    static const char *const huge[] = { "86401", "2147483646", "1e12", "1e300" };
    const char *why = "is not valid: expected a number greater than 0";
    char message[256];
    clear_our_environment();
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        set_and_load("GASNET_EXITTIMEOUT", huge[i]);
        double want;
        CHECK_EQ(gp_config_parse_double(huge[i], &want), GP_CFG_OK);
        CHECK(gp_cfg.exittimeout == want);
    }
    snprintf(message, sizeof message, "GASNET_EXITTIMEOUT='0' %s", why);
    expect_rejected(__LINE__, "GASNET_EXITTIMEOUT", "0", message);
    snprintf(message, sizeof message, "GASNET_EXITTIMEOUT='-1' %s", why);
    expect_rejected(__LINE__, "GASNET_EXITTIMEOUT", "-1", message);
    /* The derivation's parts are unbounded too; MIN still may not exceed MAX. */
    set_and_load("GASNET_EXITTIMEOUT_MAX", "2147483646");
    set_and_load("GASNET_EXITTIMEOUT_MIN", "1000000");
    set_and_load("GASNET_EXITTIMEOUT_FACTOR", "100000");
    CHECK(gp_cfg.exittimeout_max == 2147483646.0);
    CHECK(gp_cfg.exittimeout_min == 1e6 && gp_cfg.exittimeout_factor == 1e5);
}

static void test_exit_alarm(void)
{
    CHECK_EQ(gp_config_exit_alarm(5), 7u);
    CHECK_EQ(gp_config_exit_alarm(0.25), 3u);        /* whole seconds, rounded up */
    CHECK_EQ(gp_config_exit_alarm(360), 362u);
    CHECK_EQ(gp_config_exit_alarm(2147483644), 2147483646u);
    /* From OpenSHMEM's "never" on: no alarm, rather than an overflowed one. */
    CHECK_EQ(gp_config_exit_alarm(2147483645), 0u);
    CHECK_EQ(gp_config_exit_alarm(2147483646), 0u);
    CHECK_EQ(gp_config_exit_alarm(4294967296.0), 0u);   /* (unsigned) would wrap to 0 + 2 */
    CHECK_EQ(gp_config_exit_alarm(1e300), 0u);
}

static void test_double_parser(void)
{
    double value = 3.0;
    CHECK_EQ(gp_config_parse_double("-2.5e2", &value), GP_CFG_OK);
    CHECK(value == -250.0);
    value = 3.0;
    CHECK_EQ(gp_config_parse_double("infinity", &value), GP_CFG_ERR_BAD_ARG);
    CHECK_EQ(gp_config_parse_double("1e-400", &value), GP_CFG_ERR_BAD_ARG);
    CHECK_EQ(gp_config_parse_double("1,5", &value), GP_CFG_ERR_BAD_ARG);
    CHECK_EQ(gp_config_parse_double(NULL, &value), GP_CFG_ERR_BAD_ARG);
    CHECK(value == 3.0);
}

/* ---- strings with choices ---- */

static void test_string_choices(void)
{
    clear_our_environment();
    expect_rejected(__LINE__, "GP_TRANSPORT", "foo",
                    "GP_TRANSPORT='foo' is not valid: expected one of shm|ibv|ofi|tcp");
    expect_rejected(__LINE__, "GP_TRANSPORT", "",
                    "GP_TRANSPORT='' is not valid: expected one of shm|ibv|ofi|tcp");
    expect_rejected(__LINE__, "GP_TRANSPORT", "sh",
                    "GP_TRANSPORT='sh' is not valid: expected one of shm|ibv|ofi|tcp");
    expect_rejected(__LINE__, "GP_LOG_LEVEL", "verbose", "GP_LOG_LEVEL='verbose' is not valid: "
                    "expected one of error|warn|info|debug|trace");
    set_and_load("GP_TRANSPORT", "TCP");
    CHECK_STR_EQ(gp_cfg.gp_transport, "tcp");
    set_and_load("GP_TRANSPORT", "ibv");
    CHECK_STR_EQ(gp_cfg.gp_transport, "ibv");
    set_and_load("GP_LOG_LEVEL", "Debug");
    CHECK_STR_EQ(gp_cfg.gp_log_level, "debug");
    set_and_load("GASNET_TRACEFILE", "/tmp/trace.%");
    CHECK_STR_EQ(gp_cfg.tracefile, "/tmp/trace.%");
    /* The stored copy outlives the environment's string. */
    setenv("GASNET_TRACEFILE", "/somewhere/else/entirely", 1);
    CHECK_STR_EQ(gp_cfg.tracefile, "/tmp/trace.%");
}

/* ---- unknown variables and no-effect warnings ---- */

static void test_unknown_warning(void)
{
    char output[4096];
    clear_our_environment();
    setenv("GASNET_PORTAL_MSG_LIMT", "5", 1);
    setenv("GP_TRANSPRT", "shm", 1);
    setenv("GASNET_SSH_SERVERS", "h1 h2", 1);
    setenv("GP_RANK", "0", 1);
    setenv("GASNETX_NOT_OURS", "1", 1);
    struct capture cap = begin_capture();
    load_ok();
    load_ok(); /* a reload must not repeat the warnings */
    end_capture(&cap, output, sizeof output);
    CHECK_STR_CONTAINS(output, "unknown variable GASNET_PORTAL_MSG_LIMT; did you mean "
                               "GASNET_PORTAL_MSG_LIMIT?");
    CHECK_STR_CONTAINS(output, "unknown variable GP_TRANSPRT; did you mean GP_TRANSPORT?");
    CHECK_EQ(count_occurrences(output, "unknown variable"), 2);
    CHECK_EQ(count_occurrences(output, "GASNET_PORTAL_MSG_LIMT;"), 1);
    CHECK(strstr(output, "GASNET_SSH_SERVERS") == NULL);
    CHECK(strstr(output, "GASNETX_NOT_OURS") == NULL);
    CHECK_EQ(gp_cfg.portal_msg_limit, 250); /* the misspelt one is not read */
}

static void test_unknown_suggestions(void)
{
    char output[4096];
    clear_our_environment();
    setenv("GASNET_PORTAL_EPOCH_DURATON", "5", 1);
    setenv("GASNET_FIREHOSE_MAXVICTIMM", "5", 1);
    setenv("GASNET_EXITTIMEOUTMIN", "5", 1);
    struct capture cap = begin_capture();
    load_ok();
    end_capture(&cap, output, sizeof output);
    CHECK_STR_CONTAINS(output, "GASNET_PORTAL_EPOCH_DURATON; did you mean "
                               "GASNET_PORTAL_EPOCH_DURATION?");
    CHECK_STR_CONTAINS(output, "GASNET_FIREHOSE_MAXVICTIMM; did you mean "
                               "GASNET_FIREHOSE_MAXVICTIM_M?");
    CHECK_STR_CONTAINS(output, "GASNET_EXITTIMEOUTMIN; did you mean GASNET_EXITTIMEOUT_MIN?");
}

static void test_accel_no_effect(void)
{
    char output[4096];
    clear_our_environment();
    struct capture cap = begin_capture();
    set_and_load("GASNET_PORTAL_ACCEL", "0");
    set_and_load("GASNET_PORTAL_ACCEL", "yes");
    load_ok();
    set_and_load("GASNET_FIREHOSE_M", "3");   /* a real row now: no warning */
    end_capture(&cap, output, sizeof output);
    CHECK_EQ(gp_cfg.portal_accel, 1);
    CHECK_STR_CONTAINS(output, "GASNET_PORTAL_ACCEL=yes has no effect in gp");
    CHECK_EQ(count_occurrences(output, "GASNET_PORTAL_ACCEL="), 1);
    CHECK(strstr(output, "GASNET_FIREHOSE_M") == NULL);
    CHECK_EQ(firehose_cfg.firehose_m, 3ull << 20);
    CHECK(strstr(output, "unknown variable") == NULL);
}

/* ---- fallbacks, derived values, relations ---- */

static void test_bounce_fallback(void)
{
    clear_our_environment();
    set_and_load("GASNET_PORTAL_PUTGET_BOUNCE_LIMIT", "512");
    CHECK_EQ(gp_cfg.portal_put_bounce_limit, 512);
    CHECK_EQ(gp_cfg.portal_get_bounce_limit, 512);
    CHECK_EQ(gp_config_source(gp_config_find("GASNET_PORTAL_PUT_BOUNCE_LIMIT")),
             GP_CFG_FROM_DEFAULT);
    set_and_load("GASNET_PORTAL_PUT_BOUNCE_LIMIT", "100");
    CHECK_EQ(gp_cfg.portal_put_bounce_limit, 100);
    CHECK_EQ(gp_cfg.portal_get_bounce_limit, 512);
    set_and_load("GASNET_PORTAL_GET_BOUNCE_LIMIT", "0");
    CHECK_EQ(gp_cfg.portal_get_bounce_limit, 0);
    CHECK_EQ(gp_cfg.portal_putget_bounce_limit, 512);
    expect_rejected(__LINE__, "GASNET_PORTAL_PUT_BOUNCE_LIMIT", "1025",
                    "GASNET_PORTAL_PUT_BOUNCE_LIMIT='1025' is not valid: expected an integer "
                    "from 0 to 1024");
    CHECK_STR_CONTAINS(gp_config_find("GASNET_PORTAL_PUTGET_BOUNCE_LIMIT")->doc, "1024 bytes");
}

static void test_set_derived(void)
{
    char value[128];
    const struct gp_cfg_row *cpn = gp_config_find("GASNET_PORTAL_CRED_PER_NODE");
    clear_our_environment();
    load_ok();
    gp_config_format_value(cpn, value, sizeof value);
    CHECK_STR_EQ(value, "(from the credit table by job size)");
    gp_config_set_derived("GASNET_PORTAL_CRED_PER_NODE", 24);
    CHECK_EQ(gp_cfg.portal_cred_per_node, 24);
    CHECK_EQ(gp_config_source(cpn), GP_CFG_FROM_JOBSIZE);
    gp_config_format_value(cpn, value, sizeof value);
    CHECK_STR_EQ(value, "24");
    gp_config_set_derived("GASNET_PORTAL_AMRECV_SPACE", 3 << 20);
    CHECK_EQ(gp_cfg.portal_amrecv_space, 3u << 20);
    gp_config_set_derived("GASNET_PORTAL_BANKED_CREDITS", 20000);
    CHECK_EQ(gp_cfg.portal_banked_credits, 20000);
    gp_config_set_derived_double("GASNET_EXITTIMEOUT", 4.5);
    CHECK(gp_cfg.exittimeout == 4.5);
    gp_config_format_value(gp_config_find("GASNET_EXITTIMEOUT"), value, sizeof value);
    CHECK_STR_EQ(value, "4.5");
}

static void test_set_derived_user_wins(void)
{
    char output[2048];
    clear_our_environment();
    set_and_load("GASNET_PORTAL_CRED_PER_NODE", "10");
    gp_config_set_derived("GASNET_PORTAL_CRED_PER_NODE", 24);
    CHECK_EQ(gp_cfg.portal_cred_per_node, 10);
    CHECK_EQ(gp_config_source(gp_config_find("GASNET_PORTAL_CRED_PER_NODE")), GP_CFG_FROM_ENV);
    struct capture cap = begin_capture();
    gp_config_set_derived("GASNET_NOT_A_ROW", 1);
    gp_config_set_derived("GASNET_TRACEFILE", 1);
    end_capture(&cap, output, sizeof output);
    CHECK_STR_CONTAINS(output, "gp_config_set_derived(GASNET_NOT_A_ROW)");
    CHECK_STR_CONTAINS(output, "gp_config_set_derived(GASNET_TRACEFILE)");
}

static void test_relations(void)
{
    clear_our_environment();
    expect_rejected(__LINE__, "GASNET_PORTAL_CRED_PER_NODE", "500",
                    "GASNET_PORTAL_CRED_PER_NODE='500' is not valid: expected at most "
                    "GASNET_PORTAL_MAX_CRED_PER_NODE (400)");
    setenv("GASNET_PORTAL_MAX_CRED_PER_NODE", "600", 1);
    set_and_load("GASNET_PORTAL_CRED_PER_NODE", "500");
    CHECK_EQ(gp_cfg.portal_cred_per_node, 500);
    expect_rejected(__LINE__, "GASNET_PORTAL_CRED_PER_NODE", "0", "GASNET_PORTAL_CRED_PER_NODE="
                    "'0' is not valid: expected an integer from 1 to 65535");
    expect_rejected(__LINE__, "GASNET_EXITTIMEOUT_MIN", "400", "GASNET_EXITTIMEOUT_MIN='400' is "
                    "not valid: expected at most GASNET_EXITTIMEOUT_MAX (360)");
}

static void test_failed_reload_keeps_values(void)
{
    char err[256] = "";
    clear_our_environment();
    setenv("GP_LOG_LEVEL", "info", 1);
    set_and_load("GASNET_PORTAL_MSG_LIMIT", "100");
    setenv("GP_LOG_LEVEL", "trace", 1);
    setenv("GASNET_PORTAL_MSG_LIMIT", "abc", 1);
    CHECK_EQ(gp_config_load(err, sizeof err), GP_CFG_ERR_BAD_ARG);
    CHECK_EQ(gp_cfg.portal_msg_limit, 100);
    CHECK_STR_EQ(gp_cfg.gp_log_level, "info");
    CHECK_EQ(gp_config_source(gp_config_find("GASNET_PORTAL_MSG_LIMIT")), GP_CFG_FROM_ENV);
    /* A NULL errbuf is allowed: the caller only wanted the code. */
    CHECK_EQ(gp_config_load(NULL, 0), GP_CFG_ERR_BAD_ARG);
}

/* The layers' own values too: a failed load changes none of them, a good one all at once. */
static void test_failed_reload_keeps_every_group(void)
{
    char err[256] = "";
    clear_our_environment();
    setenv("GASNET_NUM_QPS", "3", 1);
    setenv("GP_TCP_CONNECT", "eager", 1);
    setenv("GP_OFI_PROVIDER", "sockets", 1);
    setenv("GASNET_FIREHOSE_MAXVICTIM_R", "10", 1);
    load_ok();
    setenv("GASNET_NUM_QPS", "4", 1);
    setenv("GP_TCP_CONNECT", "lazy", 1);
    setenv("GP_OFI_PROVIDER", "shm", 1);
    setenv("GASNET_FIREHOSE_MAXVICTIM_R", "20", 1);
    setenv("GASNET_PORTAL_MSG_LIMIT", "abc", 1);   /* the conduit's group, before them all */
    CHECK_EQ(gp_config_load(err, sizeof err), GP_CFG_ERR_BAD_ARG);
    CHECK_EQ(ibv_cfg.num_qps, 3);
    CHECK_STR_EQ(tcp_cfg.gp_tcp_connect, "eager");
    CHECK_STR_EQ(ofi_cfg.gp_ofi_provider, "sockets");
    CHECK_EQ(firehose_cfg.firehose_maxvictim_r, 10);
    CHECK_EQ(firehose_cfg.firehose_maxvictim_m, 10ull * 128 * 1024);
    unsetenv("GASNET_PORTAL_MSG_LIMIT");
    setenv("GASNET_IBV_PORTS", "mlx5_0:x", 1);      /* ibv's own check, after firehose's */
    CHECK_EQ(gp_config_load(err, sizeof err), GP_CFG_ERR_BAD_ARG);
    CHECK_EQ(firehose_cfg.firehose_maxvictim_r, 10);
    CHECK_STR_EQ(ofi_cfg.gp_ofi_provider, "sockets");
    unsetenv("GASNET_IBV_PORTS");
    load_ok();
    CHECK_EQ(ibv_cfg.num_qps, 4);
    CHECK_STR_EQ(tcp_cfg.gp_tcp_connect, "lazy");
    CHECK_STR_EQ(ofi_cfg.gp_ofi_provider, "shm");
    CHECK_EQ(firehose_cfg.firehose_maxvictim_r, 20);
    CHECK_EQ(gp_config_int("GASNET_NUM_QPS"), 4);
    CHECK(gp_config_value_of(gp_config_find("GASNET_NUM_QPS")) == &ibv_cfg.num_qps);
    clear_our_environment();
    load_ok();
}

/* The table: the conduit's rows, the transport layer's (its own, firehose's, then each
 * transport's in the registry's order), boot's. */
static void test_table_order_follows_registry(void)
{
    size_t count;
    const struct gp_cfg_row *rows = gp_config_rows(&count);
    const char *const firsts[] = {
        "GASNET_PORTAL_MSG_LIMIT", "GP_TRANSPORT", "GASNET_USE_FIREHOSE", "GASNET_IBV_PORTS",
        "GP_OFI_PROVIDER", "GP_TCP_ADDR", "GP_HOST_ID",
    };
    long previous = -1;
    for (size_t i = 0; i < sizeof firsts / sizeof firsts[0]; i++) {
        const struct gp_cfg_row *row = gp_config_find(firsts[i]);
        CHECK(row != NULL);
        long at = (long)(row - rows);
        if (at <= previous)
            gp_test_fail(__FILE__, __LINE__, "%s comes before the row listed ahead of it",
                         firsts[i]);
        previous = at;
    }
    CHECK_EQ(previous, (long)(count - gp_cfg_group_boot.count));   /* boot's rows end it */
    const struct nal_ops *tcp = nal_find("tcp"), *shm = nal_find("shm");
    CHECK(tcp != NULL && tcp->config_group != NULL && shm != NULL && shm->config_group == NULL);
    CHECK(tcp->config_group->values == &tcp_cfg);
}

/* A row that is not a stored integer has no integer value to give. */
static void test_config_int_misuse(void)
{
    char output[512];
    int64_t value = -1;
    struct capture cap = begin_capture();
    value = gp_config_int("GP_TCP_CONNECT");
    end_capture(&cap, output, sizeof output);
    CHECK_EQ(value, 0);
    CHECK_STR_CONTAINS(output, "gp_config_int(GP_TCP_CONNECT): not a stored integer row");
}

static void test_long_value_in_message(void)
{
    char value[101], expected[256];
    memset(value, '7', 100);
    value[100] = '\0';
    value[0] = 'x';
    clear_our_environment();
    snprintf(expected, sizeof expected, "GASNET_PORTAL_AM_LIMIT='%.64s...' is not valid: "
             "expected an integer from 1 to 65535", value);
    expect_rejected(__LINE__, "GASNET_PORTAL_AM_LIMIT", value, expected);
}


/* ---- ibv (seed 003) ---- */

static void test_defaults_ibv(void)
{
    clear_our_environment();
    load_ok();
    CHECK(ibv_cfg.ibv_ports == NULL);
    CHECK_EQ(ibv_cfg.num_qps, 0);
    CHECK_EQ(ibv_cfg.qp_timeout, 18);
    CHECK_EQ(ibv_cfg.qp_retry_count, 7);
    CHECK_EQ(ibv_cfg.qp_rd_atom, 0);
    CHECK_EQ(ibv_cfg.physmem_max, 0);
    CHECK_EQ(ibv_cfg.physmem_noprobe, 0);
    CHECK_EQ(ibv_cfg.inlinesend_limit, -1);
    CHECK_EQ(gp_cfg.packedlong_limit, 4012);
    CHECK_EQ(ibv_cfg.nonbulkput_bounce_limit, 65536);
    CHECK_EQ(ibv_cfg.networkdepth_pp, 64);
    CHECK_EQ(ibv_cfg.networkdepth_total, 0);
    CHECK_EQ(ibv_cfg.am_credits_pp, 32);
    CHECK_EQ(ibv_cfg.am_credits_total, -1);
    CHECK_EQ(ibv_cfg.am_credits_slack, 1);
    CHECK_EQ(ibv_cfg.bbuf_count, 1024);
    CHECK_EQ(ibv_cfg.pin_maxsz, 0);
    CHECK_EQ(ibv_cfg.amrdma_limit, 4092);
    CHECK_EQ(ibv_cfg.amrdma_depth, 16);
    CHECK_EQ(ibv_cfg.amrdma_max_peers, 32);
    CHECK_EQ(ibv_cfg.amrdma_cycle, 1024);
    CHECK_EQ(ibv_cfg.ibv_gid_index, -1);
    CHECK_EQ(firehose_cfg.firehose_m, 0);
    CHECK_EQ(firehose_cfg.firehose_r, 0);
    for (size_t i = 0; i < 2; i++) {
        const char *name = i ? "GASNET_AM_CREDITS_TOTAL" : "GASNET_IBV_PORTS";
        char value[128];
        gp_config_format_value(gp_config_find(name), value, sizeof value);
        CHECK(value[0] == '(');   /* shown as the rule, not as -1 or (null) */
    }
}

/* Every ibv row rejects a value outside its range, naming itself and the range. */
static void test_ibv_bad_values(void)
{
    static const struct { const char *name, *value, *expected; } bad[] = {
        { "GASNET_NUM_QPS", "65", "an integer from 0 to 64" },
        { "GASNET_NUM_QPS", "-1", "an integer from 0 to 64" },
        { "GASNET_QP_TIMEOUT", "32", "an integer from 0 to 31" },
        { "GASNET_QP_RETRY_COUNT", "8", "an integer from 0 to 7" },
        { "GASNET_QP_RD_ATOM", "256", "an integer from 0 to 255" },
        { "GASNET_PHYSMEM_MAX", "1X", "a size from 0 to 256T" },
        { "GASNET_PHYSMEM_NOPROBE", "maybe", "one of 0, 1, y, n" },
        { "GASNET_INLINESEND_LIMIT", "-2", "an integer from -1 to 65536" },
        { "GASNET_INLINESEND_LIMIT", "65537", "an integer from -1 to 65536" },
        { "GASNET_PACKEDLONG_LIMIT", "4013", "an integer from 0 to 4012" },
        { "GASNET_NONBULKPUT_BOUNCE_LIMIT", "2G", "a size from 0 to 1G" },
        { "GASNET_NETWORKDEPTH_PP", "0", "an integer from 1 to 65536" },
        { "GASNET_NETWORKDEPTH_TOTAL", "-1", "an integer from 0 to 2147483647" },
        { "GASNET_AM_CREDITS_PP", "0", "an integer from 1 to 65536" },
        { "GASNET_AM_CREDITS_TOTAL", "-1", "an integer from 0 to 2147483647" },
        { "GASNET_AM_CREDITS_SLACK", "256", "an integer from 0 to 255" },
        { "GASNET_BBUF_COUNT", "x", "an integer from 0 to 1048576" },
        { "GASNET_PIN_MAXSZ", "3000", "0 or a power of two from 4K to 1T" },
        { "GASNET_PIN_MAXSZ", "96K", "0 or a power of two from 4K to 1T" },
        { "GASNET_PIN_MAXSZ", "2K", "0 or a power of two from 4K to 1T" },
        { "GASNET_PIN_MAXSZ", "2T", "0 or a power of two from 4K to 1T" },
        { "GASNET_AMRDMA_LIMIT", "4093", "an integer from 0 to 4092" },
        { "GASNET_AMRDMA_DEPTH", "0", "a power of two from 1 to 32" },
        { "GASNET_AMRDMA_DEPTH", "3", "a power of two from 1 to 32" },
        { "GASNET_AMRDMA_DEPTH", "64", "a power of two from 1 to 32" },
        { "GASNET_AMRDMA_MAX_PEERS", "-1", "an integer from 0 to 65535" },
        { "GASNET_AMRDMA_CYCLE", "1000", "0 or a power of two from 1 to 1073741824" },
        { "GASNET_AMRDMA_CYCLE", "-4", "0 or a power of two from 1 to 1073741824" },
        { "GP_IBV_GID_INDEX", "-2", "an integer from -1 to 255" },
        { "GP_IBV_GID_INDEX", "256", "an integer from -1 to 255" },
        { "GASNET_FIREHOSE_R", "-1", "an integer from 0 to 1048576" },
        { "GASNET_FIREHOSE_M", "2T", "a size from 0 to 1T" },
    };
    clear_our_environment();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[512] = "", prefix[256];
        CHECK_EQ(setenv(bad[i].name, bad[i].value, 1), 0);
        int rc = gp_config_load(err, sizeof err);
        if (rc != GP_CFG_ERR_BAD_ARG)
            gp_test_fail(__FILE__, __LINE__, "%s='%s' loaded with %d", bad[i].name,
                         bad[i].value, rc);
        snprintf(prefix, sizeof prefix, "%s='%s' is not valid: expected %s", bad[i].name,
                 bad[i].value, bad[i].expected);
        if (strncmp(err, prefix, strlen(prefix)) != 0)
            gp_test_fail(__FILE__, __LINE__, "message \"%s\", expected it to start \"%s\"", err,
                         prefix);
        CHECK_EQ(unsetenv(bad[i].name), 0);
    }
    expect_rejected(__LINE__, "GASNET_PIN_MAXSZ", "3000", "GASNET_PIN_MAXSZ='3000' is not valid: "
                    "expected 0 or a power of two from 4K to 1T: digits with an optional K, M, G "
                    "or T suffix");
}

static void test_ibv_good_values(void)
{
    clear_our_environment();
    set_and_load("GASNET_PIN_MAXSZ", "0");
    CHECK_EQ(ibv_cfg.pin_maxsz, 0);
    set_and_load("GASNET_PIN_MAXSZ", "64K");
    CHECK_EQ(ibv_cfg.pin_maxsz, 65536);
    set_and_load("GASNET_PIN_MAXSZ", "1T");
    CHECK_EQ(ibv_cfg.pin_maxsz, 1ull << 40);
    set_and_load("GASNET_AMRDMA_DEPTH", "1");
    CHECK_EQ(ibv_cfg.amrdma_depth, 1);
    set_and_load("GASNET_AMRDMA_DEPTH", "32");
    CHECK_EQ(ibv_cfg.amrdma_depth, 32);
    set_and_load("GASNET_AMRDMA_CYCLE", "0");
    CHECK_EQ(ibv_cfg.amrdma_cycle, 0);
    set_and_load("GASNET_AMRDMA_CYCLE", "1");
    CHECK_EQ(ibv_cfg.amrdma_cycle, 1);
    set_and_load("GASNET_AM_CREDITS_TOTAL", "0");
    CHECK_EQ(ibv_cfg.am_credits_total, 0);
    set_and_load("GASNET_INLINESEND_LIMIT", "0");
    CHECK_EQ(ibv_cfg.inlinesend_limit, 0);
    set_and_load("GASNET_NONBULKPUT_BOUNCE_LIMIT", "0");
    CHECK_EQ(ibv_cfg.nonbulkput_bounce_limit, 0);
    set_and_load("GASNET_PHYSMEM_MAX", "16G");
    CHECK_EQ(ibv_cfg.physmem_max, 16ull << 30);
    set_and_load("GP_IBV_GID_INDEX", "3");
    CHECK_EQ(ibv_cfg.ibv_gid_index, 3);
    CHECK_STR_CONTAINS(gp_config_find("GASNET_RCV_THREAD")->doc, "tcp, ibv and ofi");
}

static void test_ibv_ports_rows(void)
{
    char value[128];
    clear_our_environment();
    set_and_load("GASNET_IBV_PORTS", "mlx5_0+mlx5_1:2");
    CHECK_STR_EQ(ibv_cfg.ibv_ports, "mlx5_0+mlx5_1:2");
    CHECK_EQ(unsetenv("GASNET_IBV_PORTS"), 0);
    /* The older name alone is taken as is. */
    set_and_load("GASNET_VAPI_PORTS", "InfiniHost0+InfiniHost1:2");
    CHECK_STR_EQ(ibv_cfg.ibv_ports, "InfiniHost0+InfiniHost1:2");
    gp_config_format_value(gp_config_find("GASNET_IBV_PORTS"), value, sizeof value);
    CHECK_STR_EQ(value, "InfiniHost0+InfiniHost1:2");
    /* Both, agreeing: fine; disagreeing: an error naming both. */
    set_and_load("GASNET_IBV_PORTS", "InfiniHost0+InfiniHost1:2");
    CHECK_STR_EQ(ibv_cfg.ibv_ports, "InfiniHost0+InfiniHost1:2");
    CHECK_EQ(setenv("GASNET_VAPI_PORTS", "InfiniHost0", 1), 0);
    expect_rejected(__LINE__, "GASNET_IBV_PORTS", "mlx5_0",
                    "GASNET_IBV_PORTS='mlx5_0' and GASNET_VAPI_PORTS='InfiniHost0' disagree: "
                    "expected only GASNET_IBV_PORTS (GASNET_VAPI_PORTS is its older name), or "
                    "both the same");
    /* Syntax errors name the variable the text came from. */
    expect_rejected(__LINE__, "GASNET_VAPI_PORTS", "InfiniHost0:0",
                    "GASNET_VAPI_PORTS='InfiniHost0:0' is not valid: port 0 is outside 1 to 255; "
                    "expected HCA[:PORT[,PORT...]][+HCA[:PORT[,PORT...]]...] with ports from 1 to "
                    "255, such as mlx5_0+mlx5_1:2");
    expect_rejected(__LINE__, "GASNET_IBV_PORTS", "mlx5_0+",
                    "GASNET_IBV_PORTS='mlx5_0+' is not valid: nothing after the last '+'; "
                    "expected HCA[:PORT[,PORT...]][+HCA[:PORT[,PORT...]]...] with ports from 1 to "
                    "255, such as mlx5_0+mlx5_1:2");
    /* The empty string is no filter. */
    set_and_load("GASNET_IBV_PORTS", "");
    CHECK_STR_EQ(ibv_cfg.ibv_ports, "");
}

static void test_hca_id_unsupported(void)
{
    char output[4096];
    clear_our_environment();
    struct capture cap = begin_capture();
    set_and_load("GASNET_HCA_ID", "");
    set_and_load("GASNET_PORT_NUM", "");
    load_ok();
    end_capture(&cap, output, sizeof output);
    CHECK_EQ(output[0], '\0');   /* the empty string is allowed silently (seed 003) */
    cap = begin_capture();
    set_and_load("GASNET_HCA_ID", "mlx5_0");
    set_and_load("GASNET_PORT_NUM", "1");
    load_ok();
    end_capture(&cap, output, sizeof output);
    CHECK_STR_CONTAINS(output, "GASNET_HCA_ID=mlx5_0 has no effect in gp (unsupported");
    CHECK_STR_CONTAINS(output, "GASNET_PORT_NUM=1 has no effect in gp (unsupported");
    CHECK_EQ(count_occurrences(output, "with GASNET_IBV_PORTS"), 2);
    CHECK_EQ(count_occurrences(output, "GASNET_HCA_ID="), 1);
}

/* ---- rows without an effect yet, older names ---- */

/* Each has no reader in gp (checked with grep when it was flagged). */
static const char *const not_yet_rows[][2] = {
    { "GASNET_AMRDMA_LIMIT", "1024" }, { "GASNET_AMRDMA_DEPTH", "8" },
    { "GASNET_AMRDMA_MAX_PEERS", "4" }, { "GASNET_AMRDMA_CYCLE", "64" },
    { "GASNET_FIREHOSE_R", "0" },
    { "GASNET_TRACEFILE", "/tmp/trace.%" }, { "GASNET_STATSFILE", "-" },
};

static void test_no_effect_yet_rows(void)
{
    char output[16384], line[256];
    clear_our_environment();
    for (size_t i = 0; i < sizeof not_yet_rows / sizeof not_yet_rows[0]; i++) {
        const struct gp_cfg_row *row = gp_config_find(not_yet_rows[i][0]);
        CHECK(row != NULL);
        CHECK_EQ(row->flags & (GP_CFG_F_NO_EFFECT | GP_CFG_F_NOT_YET),
                 GP_CFG_F_NO_EFFECT | GP_CFG_F_NOT_YET);
    }
    /* Unset: silent.  Set: one line each, naming the variable, however often it is loaded. */
    struct capture cap = begin_capture();
    load_ok();
    end_capture(&cap, output, sizeof output);
    CHECK_EQ(output[0], '\0');
    cap = begin_capture();
    for (size_t i = 0; i < sizeof not_yet_rows / sizeof not_yet_rows[0]; i++)
        set_and_load(not_yet_rows[i][0], not_yet_rows[i][1]);
    load_ok();
    end_capture(&cap, output, sizeof output);
    for (size_t i = 0; i < sizeof not_yet_rows / sizeof not_yet_rows[0]; i++) {
        snprintf(line, sizeof line, "%s=%s has no effect yet in gp (", not_yet_rows[i][0],
                 not_yet_rows[i][1]);
        CHECK_STR_CONTAINS(output, line);
        snprintf(line, sizeof line, "%s=", not_yet_rows[i][0]);
        CHECK_EQ(count_occurrences(output, line), 1);
    }
    /* Still parsed strictly: a flag is no licence for junk. */
    expect_rejected(__LINE__, "GASNET_AMRDMA_DEPTH", "3", "GASNET_AMRDMA_DEPTH='3' is not "
                    "valid: expected a power of two from 1 to 32");
    /* Rows being given an effect elsewhere are not flagged; GASNet's retired names say no "yet". */
    CHECK_EQ(gp_config_find("GASNET_FREEZE")->flags & GP_CFG_F_NO_EFFECT, 0u);
    CHECK_EQ(gp_config_find("GASNET_FREEZE_ON_ERROR")->flags & GP_CFG_F_NO_EFFECT, 0u);
    CHECK_EQ(gp_config_find("GASNET_BACKTRACE")->flags & GP_CFG_F_NO_EFFECT, 0u);
    CHECK_EQ(gp_config_find("GASNET_HCA_ID")->flags & GP_CFG_F_NOT_YET, 0u);
    /* Seed 003's PUTINMOVE never applies to a FAST segment: no effect, and no "yet" either. */
    struct capture cap2 = begin_capture();
    set_and_load("GASNET_PUTINMOVE_LIMIT", "1K");
    end_capture(&cap2, output, sizeof output);
    CHECK_STR_CONTAINS(output, "GASNET_PUTINMOVE_LIMIT=1K has no effect in gp (bytes of a PUT");
    CHECK(strstr(output, "unknown variable") == NULL);
    expect_rejected(__LINE__, "GASNET_PUTINMOVE_LIMIT", "4K", "GASNET_PUTINMOVE_LIMIT='4K' is not "
                    "valid: expected a size from 0 to 3K: digits with an optional K, M, G or T "
                    "suffix");
}

/* Seed 004's names (vapi-conduit) and their successors among the rows. */
static const char *const older_names[][3] = {
    { "GASNET_OP_OUST_PP", "GASNET_NETWORKDEPTH_PP", "48" },
    { "GASNET_OP_OUST_LIMIT", "GASNET_NETWORKDEPTH_TOTAL", "4096" },
    { "GASNET_AM_OUST_PP", "GASNET_AM_CREDITS_PP", "16" },
    { "GASNET_AM_OUST_LIMIT", "GASNET_AM_CREDITS_TOTAL", "2048" },
    { "GASNET_BBUF_LIMIT", "GASNET_BBUF_COUNT", "512" },
};

static int64_t int_value_of(const char *name)
{
    char value[64];
    int64_t parsed = -12345;
    gp_config_format_value(gp_config_find(name), value, sizeof value);
    CHECK_EQ(gp_config_parse_int(value, &parsed), GP_CFG_OK);
    return parsed;
}

static void test_older_names_seed004(void)
{
    char output[8192], line[256];
    clear_our_environment();
    for (size_t i = 0; i < sizeof older_names / sizeof older_names[0]; i++) {
        const char *older = older_names[i][0], *newer = older_names[i][1];
        const char *value = older_names[i][2];
        int64_t want;
        CHECK_STR_EQ(gp_config_find(older)->newer, newer);
        struct capture cap = begin_capture();
        set_and_load(older, value);
        load_ok();
        end_capture(&cap, output, sizeof output);
        CHECK_EQ(gp_config_parse_int(value, &want), GP_CFG_OK);
        CHECK_EQ(int_value_of(newer), want);
        CHECK_EQ(gp_config_source(gp_config_find(newer)), GP_CFG_FROM_ENV);
        snprintf(line, sizeof line, "%s=%s is read as %s, its newer name", older, value, newer);
        CHECK_STR_CONTAINS(output, line);
        CHECK_EQ(count_occurrences(output, " is read as "), 1);
        /* Both names, the same: fine and quiet.  Different: an error naming both. */
        cap = begin_capture();
        set_and_load(newer, value);
        end_capture(&cap, output, sizeof output);
        CHECK(strstr(output, " is read as ") == NULL);
        snprintf(line, sizeof line, "%s='1' and %s='%s' disagree: expected only %s (%s is its "
                 "older name), or both the same", newer, older, value, newer, older);
        expect_rejected(__LINE__, newer, "1", line);
        CHECK_EQ(unsetenv(older), 0);
    }
    /* A bad value names the variable it was read from, with the newer row's form. */
    expect_rejected(__LINE__, "GASNET_OP_OUST_PP", "0", "GASNET_OP_OUST_PP='0' is not valid: "
                    "expected an integer from 1 to 65536");
    expect_rejected(__LINE__, "GASNET_BBUF_LIMIT", "lots", "GASNET_BBUF_LIMIT='lots' is not "
                    "valid: expected an integer from 0 to 1048576");
}

static void test_older_names_spawner(void)
{
    char output[4096], value[64];
    clear_our_environment();
    CHECK(gp_config_getenv("GASNET_SPAWNER") == NULL);
    struct capture cap = begin_capture();
    setenv("GASNET_VAPI_SPAWNER", "ssh", 1);
    const char *got = gp_config_getenv("GASNET_SPAWNER");
    got = gp_config_getenv("GASNET_SPAWNER");
    load_ok();
    end_capture(&cap, output, sizeof output);
    CHECK_STR_EQ(got, "ssh");
    CHECK_STR_CONTAINS(output, "GASNET_VAPI_SPAWNER=ssh is read as GASNET_SPAWNER");
    CHECK_EQ(count_occurrences(output, "GASNET_VAPI_SPAWNER="), 1);
    gp_config_format_value(gp_config_find("GASNET_SPAWNER"), value, sizeof value);
    CHECK_STR_EQ(value, "ssh");
    setenv("GASNET_IBV_SPAWNER", "mpi", 1);
    expect_rejected(__LINE__, "GASNET_IBV_SPAWNER", "mpi", "GASNET_IBV_SPAWNER='mpi' and "
                    "GASNET_VAPI_SPAWNER='ssh' disagree: both are older names of "
                    "GASNET_SPAWNER; expected one of them, or both the same");
    setenv("GASNET_IBV_SPAWNER", "ssh", 1);
    setenv("GASNET_SPAWNER", "local", 1);
    CHECK_STR_EQ(gp_config_getenv("GASNET_SPAWNER"), "local");   /* the newer name wins */
    expect_rejected(__LINE__, "GASNET_SPAWNER", "local", "GASNET_SPAWNER='local' and "
                    "GASNET_IBV_SPAWNER='ssh' disagree: expected only GASNET_SPAWNER "
                    "(GASNET_IBV_SPAWNER is its older name), or both the same");
}

static void test_mpirun_cmd_row(void)
{
    char value[128];
    const struct gp_cfg_row *row = gp_config_find("MPIRUN_CMD");
    clear_our_environment();
    unsetenv("MPIRUN_CMD");
    CHECK(row != NULL);
    CHECK_STR_EQ(row->transport, "launcher");
    CHECK_STR_CONTAINS(row->doc, "%P");
    set_and_load("MPIRUN_CMD", "mpirun -np %N %P %A");
    CHECK_STR_EQ(gp_config_getenv("MPIRUN_CMD"), "mpirun -np %N %P %A");
    gp_config_format_value(row, value, sizeof value);
    CHECK_STR_EQ(value, "mpirun -np %N %P %A");
    CHECK_EQ(unsetenv("MPIRUN_CMD"), 0);
}

static void test_firehose_main_pool(void)
{
    char value[128];
    clear_our_environment();
    load_ok();
    gp_config_format_value(gp_config_find("GASNET_FIREHOSE_R"), value, sizeof value);
    CHECK_STR_EQ(value, "0");
    set_and_load("GASNET_FIREHOSE_M", "64");
    CHECK_EQ(firehose_cfg.firehose_m, 64ull << 20);
    CHECK_EQ(firehose_cfg.firehose_r, 512);   /* 64M / 128K */
    set_and_load("GASNET_FIREHOSE_R", "100");
    CHECK_EQ(firehose_cfg.firehose_r, 100);
    CHECK_EQ(gp_config_source(gp_config_find("GASNET_FIREHOSE_R")), GP_CFG_FROM_ENV);
}

static void test_firehose_region_pages(void)
{
    char expected[256];
    long page = sysconf(_SC_PAGESIZE);
    clear_our_environment();
    if (page != 4096)
        gp_test_skip("the expected message assumes 4K pages");
    snprintf(expected, sizeof expected, "GASNET_FIREHOSE_MAXREGION_SIZE='6K' is not valid: "
             "expected a multiple of the page size (%ld bytes)", page);
    expect_rejected(__LINE__, "GASNET_FIREHOSE_MAXREGION_SIZE", "6K", expected);
    set_and_load("GASNET_FIREHOSE_MAXREGION_SIZE", "12K");
    CHECK_EQ(firehose_cfg.firehose_maxregion_size, 12288);
}

/* ---- the echo and the getenv door ---- */

static const char *line_for(const char *text, const char *name, char *line, size_t len)
{
    char prefix[128];
    snprintf(prefix, sizeof prefix, "ENV parameter: %s ", name);
    const char *start = strstr(text, prefix);
    if (start == NULL)
        return NULL;
    size_t line_len = strcspn(start, "\n");
    snprintf(line, len, "%.*s", (int)line_len, start);
    return line;
}

static void read_echo(char *text, size_t len)
{
    FILE *out = tmpfile();
    CHECK(out != NULL);
    gp_config_print(out);
    rewind(out);
    size_t got = fread(text, 1, len - 1, out);
    text[got] = '\0';
    fclose(out);
}

static void check_line(const char *text, const char *name, const char *value, const char *label)
{
    char line[512], needle[128];
    if (line_for(text, name, line, sizeof line) == NULL)
        gp_test_fail(__FILE__, __LINE__, "no echo line for %s", name);
    snprintf(needle, sizeof needle, "= %s ", value);
    CHECK_STR_CONTAINS(line, needle);
    snprintf(needle, sizeof needle, "   (%s)", label);
    size_t line_len = strlen(line), needle_len = strlen(needle);
    if (line_len < needle_len || strcmp(line + line_len - needle_len, needle) != 0)
        gp_test_fail(__FILE__, __LINE__, "line \"%s\" does not end in \"%s\"", line, needle);
}

static void test_print(void)
{
    static char text[32768];
    size_t count;
    gp_config_rows(&count);
    clear_our_environment();
    set_and_load("GASNET_PORTAL_MSG_LIMIT", "100");
    gp_config_set_derived("GASNET_PORTAL_CRED_PER_NODE", 24);
    read_echo(text, sizeof text);
    CHECK_EQ(count_occurrences(text, "ENV parameter: "), count);
    CHECK_EQ(count_occurrences(text, "\n"), count);
    check_line(text, "GASNET_PORTAL_MSG_LIMIT", "100", "set");
    check_line(text, "GASNET_PORTAL_NUM_TMPMD", "1024", "default");
    check_line(text, "GASNET_PORTAL_CRED_PER_NODE", "24", "derived");
    check_line(text, "GASNET_PORTAL_BANKED_CREDITS", "(from the credit table by job size)",
               "derived");
    check_line(text, "GASNET_PORTAL_PUT_BOUNCE_LIMIT", "1024", "derived");
    check_line(text, "GASNET_MAX_SEGSIZE", "4G", "default");
    check_line(text, "GASNET_PHYSMEM_PINNABLE_RATIO", "0.75", "default");
    check_line(text, "GASNET_PORTAL_PACKED_LONG", "yes", "default");
    check_line(text, "GASNET_FIREHOSE_MAXVICTIM_M", "128M", "derived");
    check_line(text, "GASNET_TRACEFILE", "(not set)", "default");
    check_line(text, "GP_LOG_LEVEL", "warn", "default");
    check_line(text, "GP_TRANSPORT", "(automatic)", "derived");
}

static void test_print_aligned(void)
{
    static char text[32768];
    long equals_column = -1, longest_name = 0;
    size_t count;
    const struct gp_cfg_row *rows = gp_config_rows(&count);
    for (size_t i = 0; i < count; i++)
        if ((long)strlen(rows[i].name) > longest_name)
            longest_name = (long)strlen(rows[i].name);
    clear_our_environment();
    load_ok();
    read_echo(text, sizeof text);
    for (const char *line = text; *line != '\0'; line += strcspn(line, "\n") + 1) {
        long column = (long)(strstr(line, " = ") - line);
        if (equals_column < 0)
            equals_column = column;
        CHECK_EQ(column, equals_column);
        if (line[strcspn(line, "\n")] == '\0')
            break;
    }
    CHECK_EQ(equals_column, (long)strlen("ENV parameter: ") + longest_name);
}

static void test_getenv_door(void)
{
    char output[2048];
    clear_our_environment();
    setenv("GASNET_PORTAL_MSG_LIMIT", "77", 1);
    CHECK_STR_EQ(gp_config_getenv("GASNET_PORTAL_MSG_LIMIT"), "77");
    CHECK(gp_config_getenv("GASNET_PORTAL_AM_LIMIT") == NULL);
    setenv("GASNET_NOT_IN_TABLE", "1", 1);
    struct capture cap = begin_capture();
    const char *value = gp_config_getenv("GASNET_NOT_IN_TABLE");
    end_capture(&cap, output, sizeof output);
    CHECK(value == NULL);
    CHECK_STR_CONTAINS(output, "gp_config_getenv(GASNET_NOT_IN_TABLE): not in the "
                               "configuration table");
}

/* GP_TRANSPORT's choices are the registry's: every name one a job may select, and no other. */
static void test_transport_choices_from_registry(void)
{
    const struct gp_cfg_row *row = gp_config_find("GP_TRANSPORT");
    CHECK(row != NULL && row->choices != NULL);
    CHECK_STR_EQ(row->choices, nal_selectable_names());
    char names[128];
    snprintf(names, sizeof names, "%s", nal_names());
    int selectable = 0;
    for (char *name = strtok(names, "|"); name != NULL; name = strtok(NULL, "|")) {
        const struct nal_ops *nal = nal_find(name);
        CHECK(nal != NULL);
        char bounded[16];
        snprintf(bounded, sizeof bounded, "|%s|", name);
        char listed[160];
        snprintf(listed, sizeof listed, "|%s|", row->choices);
        if (nal->user_selectable) {
            selectable++;
            if (nal->title == NULL)   /* gp-env(7)'s section of its rows is titled by it */
                gp_test_fail(__FILE__, __LINE__, "%s is selectable but has no title", name);
            if (strstr(listed, bounded) == NULL)
                gp_test_fail(__FILE__, __LINE__, "%s is selectable but not among %s", name,
                             row->choices);
        } else if (strstr(listed, bounded) != NULL) {
            gp_test_fail(__FILE__, __LINE__, "%s is listed in %s but not selectable", name,
                         row->choices);
        }
    }
    CHECK_EQ(selectable, 4);   /* shm, ibv, tcp, ofi */
    CHECK(nal_find("hybrid") != NULL && !nal_find("hybrid")->user_selectable);
}

/* GP_HYBRID_ORDER: names the registry's routable transports only, each once; unset is every
 * routable one in the registry's order, which is what nal_routable_names lists. */
static void test_hybrid_order(void)
{
    const struct nal_ops *order[NAL_ROUTES_MAX];
    char err[512] = "", joined[128] = "";
    int count = nal_route_order("GP_HYBRID_ORDER", NULL, order, err, sizeof err);
    CHECK(count >= 2);
    for (int i = 0; i < count; i++) {
        CHECK(order[i]->peers != NULL);
        size_t used = strlen(joined);
        snprintf(joined + used, sizeof joined - used, "%s%s", i ? "|" : "", order[i]->name);
    }
    CHECK_STR_EQ(joined, nal_routable_names());
    CHECK_STR_EQ(nal_routable_names(), "ibv|ofi|tcp");  /* verbs first: the faster */
    CHECK_EQ(nal_route_order("GP_HYBRID_ORDER", "tcp", order, err, sizeof err), 1);
    CHECK(order[0] == nal_find("tcp"));
    CHECK_EQ(nal_route_order("GP_HYBRID_ORDER", "tcp,ibv", order, err, sizeof err), 2);
    CHECK(order[0] == nal_find("tcp") && order[1] == nal_find("ibv"));

    clear_our_environment();
    expect_rejected(__LINE__, "GP_HYBRID_ORDER", "udp",
                    "GP_HYBRID_ORDER='udp' is not valid: 'udp' is not a transport the hybrid "
                    "routes through; expected names from ibv|ofi|tcp, comma-separated, the "
                    "preferred first");
    expect_rejected(__LINE__, "GP_HYBRID_ORDER", "tcp,shm",
                    "GP_HYBRID_ORDER='tcp,shm' is not valid: 'shm' is not a transport the hybrid "
                    "routes through; expected names from ibv|ofi|tcp, comma-separated, the "
                    "preferred first");
    expect_rejected(__LINE__, "GP_HYBRID_ORDER", "tcp,ibv,tcp",
                    "GP_HYBRID_ORDER='tcp,ibv,tcp' is not valid: 'tcp' is named twice; expected "
                    "names from ibv|ofi|tcp, comma-separated, the preferred first");
    expect_rejected(__LINE__, "GP_HYBRID_ORDER", "",
                    "GP_HYBRID_ORDER='' is not valid: '' is not a transport the hybrid routes "
                    "through; expected names from ibv|ofi|tcp, comma-separated, the preferred first");
    expect_rejected(__LINE__, "GP_HYBRID_ORDER", "ibv,",
                    "GP_HYBRID_ORDER='ibv,' is not valid: '' is not a transport the hybrid routes "
                    "through; expected names from ibv|ofi|tcp, comma-separated, the preferred first");
    set_and_load("GP_HYBRID_ORDER", "tcp,ibv");
    CHECK_STR_EQ(gp_cfg.gp_hybrid_order, "tcp,ibv");
    CHECK_EQ(unsetenv("GP_HYBRID_ORDER"), 0);
    load_ok();
    CHECK(gp_cfg.gp_hybrid_order == NULL);
}

static const struct gp_test tests[] = {
    { "defaults", test_defaults, 0 },
    { "transport_choices_from_registry", test_transport_choices_from_registry, 0 },
    { "hybrid_order", test_hybrid_order, 0 },
    { "defaults_standard", test_defaults_standard, 0 },
    { "defaults_sources", test_defaults_sources, 0 },
    { "table_rows", test_table_rows, 0 },
    { "launcher_rows", test_launcher_rows, 0 },
    { "launcher_values", test_launcher_values, 0 },
    { "bool_spellings", test_bool_spellings, 0 },
    { "bool_junk", test_bool_junk, 0 },
    { "int_bounds", test_int_bounds, 0 },
    { "int_forms", test_int_forms, 0 },
    { "int_parser_limits", test_int_parser_limits, 0 },
    { "size_parser", test_size_parser, 0 },
    { "size_rows", test_size_rows, 0 },
    { "firehose_megabytes", test_firehose_megabytes, 0 },
    { "firehose_victim_derived", test_firehose_victim_derived, 0 },
    { "double_rows", test_double_rows, 0 },
    { "double_parser", test_double_parser, 0 },
    { "exittimeout_unbounded", test_exittimeout_unbounded, 0 },
    { "exit_alarm", test_exit_alarm, 0 },
    { "string_choices", test_string_choices, 0 },
    { "unknown_warning", test_unknown_warning, 0 },
    { "unknown_suggestions", test_unknown_suggestions, 0 },
    { "accel_no_effect", test_accel_no_effect, 0 },
    { "bounce_fallback", test_bounce_fallback, 0 },
    { "set_derived", test_set_derived, 0 },
    { "set_derived_user_wins", test_set_derived_user_wins, 0 },
    { "relations", test_relations, 0 },
    { "failed_reload_keeps_values", test_failed_reload_keeps_values, 0 },
    { "failed_reload_keeps_every_group", test_failed_reload_keeps_every_group, 0 },
    { "table_order_follows_registry", test_table_order_follows_registry, 0 },
    { "config_int_misuse", test_config_int_misuse, 0 },
    { "long_value_in_message", test_long_value_in_message, 0 },
    { "defaults_ibv", test_defaults_ibv, 0 },
    { "ibv_bad_values", test_ibv_bad_values, 0 },
    { "ibv_good_values", test_ibv_good_values, 0 },
    { "ibv_ports_rows", test_ibv_ports_rows, 0 },
    { "hca_id_unsupported", test_hca_id_unsupported, 0 },
    { "no_effect_yet_rows", test_no_effect_yet_rows, 0 },
    { "older_names_seed004", test_older_names_seed004, 0 },
    { "older_names_spawner", test_older_names_spawner, 0 },
    { "mpirun_cmd_row", test_mpirun_cmd_row, 0 },
    { "firehose_main_pool", test_firehose_main_pool, 0 },
    { "firehose_region_pages", test_firehose_region_pages, 0 },
    { "print", test_print, 0 },
    { "print_aligned", test_print_aligned, 0 },
    { "getenv_door", test_getenv_door, 0 },
    GP_TEST_END
};

int main(int argc, char **argv)
{
    return gp_test_main(argc, argv, "config", tests);
}
