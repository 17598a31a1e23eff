/*
 * Shared by the files of the configuration machinery (table.c, parse.c,
 * load.c, print.c); nothing outside config/ includes it.
 */
#ifndef GP_CONFIG_INTERNAL_H
#define GP_CONFIG_INTERNAL_H

#include <stdint.h>

#include "config/rows.h"

/* Rows and groups the table can hold; the table check fails naming the limit if there are more. */
#define GP_CFG_MAX_ROWS 256
#define GP_CFG_MAX_GROUPS 32

/* The table, the groups' rows concatenated on first use (table.c). */
const struct gp_cfg_row *gp_cfg_table(void);
size_t gp_cfg_table_count(void);
#define ROWS (gp_cfg_table())
#define ROW_COUNT (gp_cfg_table_count())
const struct gp_cfg_group *const *gp_cfg_groups(size_t *count);
/* The index in gp_cfg_groups() of the group that holds the table's index'th row. */
size_t gp_cfg_row_group(size_t index);

/* Index of a row of the table, or -1 for a pointer from elsewhere. */
long gp_cfg_row_index(const struct gp_cfg_row *row);
/* GP_CFG_ERR_TABLE naming the broken row, else GP_CFG_OK. */
int gp_cfg_check_table(char *errbuf, size_t errlen);
/* A warning, naming the closest known variable, for each unknown GASNET_* / GP_* one set. */
void gp_cfg_warn_unknown(void);
/* 1 the first time a name is to be warned about (across reloads), else 0. */
int gp_cfg_first_warning_for(const char *name, size_t len);

/* A parsed value before it is stored; which member is live follows the type. */
union cfg_value {
    int flag;
    int64_t integer;
    uint64_t bytes;
    double real;
    struct {
        const char *start;
        size_t len;
    } text;
};

/* parse.c */
int gp_cfg_parse_row_value(const struct gp_cfg_row *row, const char *text, union cfg_value *value);
/* What the row accepts, completing "expected ...". */
void gp_cfg_describe_accepted(const struct gp_cfg_row *row, char *buf, size_t len);

/* load.c: the committed configuration's per-row state, indexed like the table. */
extern enum gp_cfg_source gp_cfg_row_source[GP_CFG_MAX_ROWS];
/* 0 while a derived row still waits for gp_config_set_derived. */
extern unsigned char gp_cfg_row_known[GP_CFG_MAX_ROWS];
/* The bytes a stored value of this type takes in its group's values. */
size_t gp_cfg_type_size(enum gp_cfg_type type);
/* Where a stored row's value lies in values, an object of its group's struct. */
void *gp_cfg_field_of(void *values, const struct gp_cfg_row *row);
/* Where the committed value of the table's index'th row lies (NULL: not stored). */
void *gp_cfg_committed_field(size_t index);
/* The note that an older name was read (GASNET_VAPI_PORTS for GASNET_IBV_PORTS), once per name. */
void gp_cfg_note_older_name(const char *from, const struct gp_cfg_row *row, const char *text);
/* Into field, the row's value in its group's values (gp_cfg_field_of); a string is copied. */
int gp_cfg_store_value(void *field, const struct gp_cfg_row *row, const union cfg_value *value);

#endif
