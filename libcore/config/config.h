/*
 * The one table of environment variables, at the bottom of the library:
 * every layer above may read it, and it includes nothing of theirs.
 *
 * Every variable gp reads is a row: name, type, default, accepted range,
 * the transport it concerns, and a line of documentation.  Each layer
 * defines the rows it reads beside its code, and where their values are
 * kept (config/rows.h says how); the table is their concatenation, in the
 * order of config/table.c (the transports' groups in their registry's).
 * Parsing, validation, the GASNET_VERBOSEENV echo, gp-check --env and the
 * gp-env(7) man page all come from this table; no code calls getenv() for
 * a GASNET_* or GP_* variable except through it.
 */
#ifndef GP_CONFIG_CONFIG_H
#define GP_CONFIG_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What the functions below return: the conduit turns these into GASNet's codes. */
#define GP_CFG_OK          0
#define GP_CFG_ERR_BAD_ARG 1   /* a value (or variable) the user gave is not accepted */
#define GP_CFG_ERR_TABLE   2   /* a row of the table itself is wrong: a programming error */

enum gp_cfg_type {
    GP_CFG_BOOL,    /* 0 1 y n yes no true false (any case) */
    GP_CFG_INT,     /* decimal (or 0x hex) integer within [min, max] */
    GP_CFG_SIZE,    /* bytes, with optional K M G T (or KB MB GB TB) suffix, powers of 1024 */
    GP_CFG_DOUBLE,  /* floating point within [min, max] */
    GP_CFG_STRING   /* free text */
};

/* Where a value came from, for gp-check --env and the verbose echo. */
enum gp_cfg_source {
    GP_CFG_FROM_DEFAULT,
    GP_CFG_FROM_ENV,
    GP_CFG_FROM_JOBSIZE   /* derived at attach from the job size (credit table) */
};

/* gp_cfg_row.flags */
#define GP_CFG_F_BARE_MEGABYTES 0x1u /* SIZE: a bare number means megabytes (firehose) */
#define GP_CFG_F_MIN_EXCLUSIVE  0x2u /* DOUBLE: the value must be greater than min */
#define GP_CFG_F_NO_EFFECT      0x4u /* accepted but ignored: warn once when set (bool: when true,
                                        string: when not empty) */
#define GP_CFG_F_POWER_OF_TWO   0x8u /* INT, SIZE: the value must also be a power of two */
#define GP_CFG_F_ZERO_OK        0x10u /* INT, SIZE: 0 is accepted too, outside [min, max]
                                         (it means "off" or "automatic"; the doc says which) */
#define GP_CFG_F_NOT_YET        0x20u /* with NO_EFFECT: a feature gp lacks so far (the warning
                                         says "yet"), not a name GASNet itself retired */

/* gp_cfg_row.offset of a row that is validated but not stored (read with gp_config_getenv). */
#define GP_CFG_NO_FIELD ((size_t)-1)

struct gp_cfg_row {
    const char *name;
    enum gp_cfg_type type;
    const char *default_text;  /* NULL: no default ("derived" or unset) */
    double min, max;           /* for INT, SIZE, DOUBLE */
    const char *transport;     /* "all", "shm", "tcp", "ibv", "launcher" */
    const char *doc;
    size_t offset;             /* where the parsed value lives in its group's struct */
    /* Optional members; zero means none. */
    const char *choices;       /* STRING: the accepted words, "lazy|eager" (any case) */
    const char *unset_means;   /* no default_text: what an unset variable stands for */
    double unset_value;        /* no default_text: the value stored while unset */
    /* Numeric rows: unset, take the value of this other row. */
    const char *fallback;
    unsigned flags;            /* GP_CFG_F_* */
    /*
     * This row is an older name of that one (GASNET_VAPI_PORTS of
     * GASNET_IBV_PORTS): unstored and without a type of its own, it is read
     * when the newer name is unset, parsed by the newer row's rules, and
     * draws a note naming the newer name.  Both set to different text is
     * an error.
     */
    const char *newer;
    /*
     * STRING: the accepted words come from their owner (GP_TRANSPORT's from
     * the transport registry), asked once when the table is built; the
     * table then holds them in choices like any other row's.
     */
    const char *(*choices_from)(void);
};

/*
 * The parsed values of the conduit's, the boot layer's and the transport
 * layer's shared rows (conduit/core/config_rows.c, boot/config_rows.c,
 * nal/config_rows.c), one field per stored row, named after the variable
 * without its GASNET_/GASNET_PORTAL_ prefix, in lower case.  A transport's
 * own rows store into a struct of its own, beside them (nal/ibv/ibv_config.h,
 * ...): each group of rows names where its values live (config/rows.h), so
 * a transport with rows adds no field here.
 */
struct gp_config {
    /* seed 000, GASNET_PORTAL_* */
    int64_t portal_msg_limit;
    int64_t portal_num_tmpmd;
    int     portal_packed_long;
    int     portal_flow_control;
    int     portal_dynamic_credits;
    int64_t portal_sb_chunks;
    int64_t portal_rpl_chunks;
    int64_t portal_safe_limit;
    int64_t portal_am_limit;
    int64_t portal_sys_limit;
    int64_t portal_max_cred_per_node;
    int     portal_accel;
    int     portal_credit_stats;
    int64_t portal_epoch_duration;
    int64_t portal_cred_per_node;      /* 0: from the credit table */
    int64_t portal_banked_credits;     /* -1: from the credit table */
    uint64_t portal_amrecv_space;      /* 0: from the credit table */
    int64_t portal_put_bounce_limit;   /* -1: unset, use PUTGET */
    int64_t portal_get_bounce_limit;   /* -1: unset, use PUTGET */
    int64_t portal_putget_bounce_limit;
    int64_t portal_lender_limit;
    int64_t portal_revoke_limit;
    int64_t portal_num_scavenge;
    /* standard GASNet variables */
    int     verboseenv;
    uint64_t max_segsize;
    double  physmem_pinnable_ratio;
    double  exittimeout;
    double  exittimeout_max;
    double  exittimeout_min;
    double  exittimeout_factor;
    int     backtrace;
    int     freeze;
    int     freeze_on_error;
    const char *tracefile;
    const char *statsfile;
    /* gp's own */
    const char *gp_log_level;
    int     gp_direct_rma;
    int     gp_shm_am_ring;
    int     gp_shm_am_ring_ranks;
    int64_t gp_doze_max_us;            /* GP_DOZE_MAX_US: a doze's longest sleep */
    int64_t packedlong_limit;          /* 0: header and payload always apart */
    const char *gp_exit_fault;         /* GP_EXIT_FAULT: tests only; "none" or "abort" */
    /* the transport layer's own (nal/config_rows.c) */
    const char *gp_transport;
    const char *gp_hybrid_order;       /* NULL: the registry's order */
    int     rcv_thread;
    /* boot (boot/config_rows.c) */
    const char *gp_host_id;
};

/* The parsed configuration; valid after gp_config_load(). */
extern struct gp_config gp_cfg;

/* The table itself, for gp-check --env, the man page test and the echo. */
const struct gp_cfg_row *gp_config_rows(size_t *count);
const struct gp_cfg_row *gp_config_find(const char *name);
/* The known row whose name is nearest to name (edit distance), for "did you mean". */
const struct gp_cfg_row *gp_config_closest(const char *name);
enum gp_cfg_source gp_config_source(const struct gp_cfg_row *row);

/*
 * Parses every row from the environment.  On a bad value returns
 * GP_CFG_ERR_BAD_ARG and writes into errbuf one sentence naming the
 * variable, the value given and the accepted form; nothing is clamped.
 * Unknown GASNET_* / GP_* variables produce a warning naming the closest
 * known variable.  Safe to call again (re-reads the environment); on an
 * error gp_cfg and every layer's values keep their previous values, and on
 * success every group's values change at once.  A table row whose own default
 * does not parse is a programming error: GP_CFG_ERR_TABLE.
 */
int gp_config_load(char *errbuf, size_t errlen);

/* The value of a row as text (for echo and gp-check --env). */
void gp_config_format_value(const struct gp_cfg_row *row, char *buf, size_t len);

/*
 * Where the committed value of a stored row lives (in gp_cfg, or in the
 * struct of the layer whose group holds the row); NULL for a row that is
 * not stored or not of the table.
 */
const void *gp_config_value_of(const struct gp_cfg_row *row);
/*
 * The committed value of a stored INT row, by name: for a layer that reads
 * a row another layer owns (tcp reads GASNET_NETWORKDEPTH_TOTAL, an ibv
 * row) without including that layer's header.  Any other name is a
 * programming error: logged, and 0.
 */
int64_t gp_config_int(const char *name);

/*
 * Records that a row's value was derived at attach (e.g. from job size).
 * A value the user set wins: the row is then left alone, so read the row's
 * value (gp_cfg, or its layer's struct) afterwards rather than trusting the
 * value passed in.
 */
void gp_config_set_derived(const char *name, int64_t value);
/* The same for DOUBLE rows (GASNET_EXITTIMEOUT). */
void gp_config_set_derived_double(const char *name, double value);

/* The GASNET_VERBOSEENV echo: one line per variable, with its source. */
void gp_config_print(FILE *out);

/* Parsers shared with the boot and launcher code, also unit-tested.
 * Each returns GP_CFG_OK, or GP_CFG_ERR_BAD_ARG leaving *out untouched. */
int gp_config_parse_bool(const char *text, int *out);
int gp_config_parse_int(const char *text, int64_t *out);
int gp_config_parse_size(const char *text, uint64_t *out);
int gp_config_parse_double(const char *text, double *out);

/*
 * The raw value of a variable in the table (or NULL); the only getenv door.
 * A variable that is unset answers with the value of an older name of it
 * that is set (GASNET_IBV_SPAWNER for GASNET_SPAWNER), noting that once.
 */
const char *gp_config_getenv(const char *name);

/*
 * The alarm() that backs an exit timeout of the given seconds: a couple of
 * seconds beyond it, or 0 -- no alarm -- when the timeout is too large for
 * alarm's unsigned seconds (GASNET_EXITTIMEOUT=2147483646, OpenSHMEM's
 * "never", and beyond).
 */
unsigned gp_config_exit_alarm(double timeout);

/*
 * For a layer's checks (config/rows.h): the text a row was read from and,
 * in *from, the name it was read under (an older name's, perhaps); NULL
 * when unset.  gp_config_error writes one sentence into errbuf;
 * gp_config_format_size writes bytes with the largest exact K/M/G/T unit.
 */
const char *gp_config_row_text(const struct gp_cfg_row *row, const char **from);
void gp_config_error(char *errbuf, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void gp_config_format_size(uint64_t bytes, char *buf, size_t len);

#endif
