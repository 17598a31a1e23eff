/*
 * Operation records (nal/inflight.c), the table tcp and ibv keep per peer:
 * ids that come back from the wire are checked against the table's depth
 * and the record's generation, records are reused, a full table and a spent
 * node budget (GASNET_NETWORKDEPTH_TOTAL) refuse a take, and a wait for a
 * record says so once, naming "operation records" and the peer.
 */
#include "../harness/test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nal/inflight.h"
#include "ptl/ni.h"

/* A transport's record: the table's part first, then its own fields. */
struct fat_record {
    struct nal_inflight_rec rec;
    uint64_t extra[3];
};

enum { KIND_PUT = 1, KIND_GET = 2 };

static struct nal_op op_to(unsigned target, uint64_t length)
{
    struct nal_op op;
    memset(&op, 0, sizeof op);
    op.target = target;
    op.length = length;
    return op;
}

static void test_bad_depth(void)
{
    struct nal_inflight table;
    CHECK_EQ(nal_inflight_init(&table, 0, sizeof(struct nal_inflight_rec), NULL), PTL_FAIL);
    CHECK_EQ(nal_inflight_init(&table, NAL_INFLIGHT_MAX_DEPTH + 1, sizeof(struct nal_inflight_rec),
                               NULL), PTL_FAIL);
    CHECK_EQ(nal_inflight_init(&table, 4, sizeof(struct nal_inflight_rec) - 1, NULL), PTL_FAIL);
    CHECK_EQ(nal_inflight_init(&table, 4, sizeof(struct nal_inflight_rec), NULL), PTL_OK);
    CHECK(nal_inflight_take(&table, NAL_INFLIGHT_FREE, &(struct nal_op){ 0 }) == NULL);
    nal_inflight_fini(&table);
}

static void test_take_and_find(void)
{
    struct nal_inflight table;
    CHECK_EQ(nal_inflight_init(&table, 8, sizeof(struct fat_record), NULL), PTL_OK);
    struct nal_op op = op_to(3, 4096);
    struct fat_record *rec = (struct fat_record *)nal_inflight_take(&table, KIND_GET, &op);
    CHECK(rec != NULL);
    CHECK_EQ(rec->rec.op.length, 4096);
    CHECK_EQ(rec->rec.kind, KIND_GET);
    CHECK_EQ(rec->extra[0] | rec->extra[1] | rec->extra[2], 0);
    rec->extra[2] = 77;
    uint32_t id = nal_inflight_id(&table, &rec->rec);
    const char *why = NULL;
    CHECK(nal_inflight_find(&table, id, KIND_GET, &why) == &rec->rec);
    CHECK(nal_inflight_find(&table, id, NAL_INFLIGHT_FREE, &why) == &rec->rec);
    CHECK(nal_inflight_live(&table, id));
    /* The right record, asked for as another kind: refused. */
    CHECK(nal_inflight_find(&table, id, KIND_PUT, &why) == NULL);
    CHECK_STR_CONTAINS(why, "another kind");
    CHECK_EQ(table.used, 1);
    nal_inflight_release(&table, &rec->rec);
    CHECK_EQ(table.used, 0);
    nal_inflight_fini(&table);
}

static void test_out_of_range(void)
{
    struct nal_inflight table;
    CHECK_EQ(nal_inflight_init(&table, 64, sizeof(struct fat_record), NULL), PTL_OK);
    struct nal_op op = op_to(1, 8);
    struct nal_inflight_rec *rec = nal_inflight_take(&table, KIND_PUT, &op);
    uint32_t gen = nal_inflight_id(&table, rec) & 0xffff0000u;
    const char *why = NULL;
    /* What ibv once let through: an index past the table (< 0xffff). */
    uint32_t ids[] = { gen | 64u, gen | 65u, gen | 0xfffeu, gen | 0xffffu, 0xffffffffu };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        why = NULL;
        CHECK(nal_inflight_find(&table, ids[i], KIND_PUT, &why) == NULL);
        CHECK(why != NULL);
        CHECK_STR_CONTAINS(why, "out of range");
        CHECK(!nal_inflight_live(&table, ids[i]));
    }
    /* A table that was never set up refuses everything, too. */
    struct nal_inflight none;
    memset(&none, 0, sizeof none);
    CHECK(nal_inflight_find(&none, 0, KIND_PUT, &why) == NULL);
    nal_inflight_fini(&table);
}

static void test_stale_id(void)
{
    struct nal_inflight table;
    CHECK_EQ(nal_inflight_init(&table, 1, sizeof(struct nal_inflight_rec), NULL), PTL_OK);
    struct nal_op op = op_to(2, 16);
    struct nal_inflight_rec *rec = nal_inflight_take(&table, KIND_PUT, &op);
    uint32_t old = nal_inflight_id(&table, rec);
    nal_inflight_release(&table, rec);
    const char *why = NULL;
    /* Released: its id is stale. */
    CHECK(nal_inflight_find(&table, old, KIND_PUT, &why) == NULL);
    CHECK_STR_CONTAINS(why, "stale");
    /* Reused by another op: the old id still does not name it. */
    struct nal_inflight_rec *again = nal_inflight_take(&table, KIND_PUT, &op);
    CHECK(again == rec);
    uint32_t fresh = nal_inflight_id(&table, again);
    CHECK(fresh != old);
    CHECK_EQ(fresh & 0xffffu, old & 0xffffu);
    why = NULL;
    CHECK(nal_inflight_find(&table, old, KIND_PUT, &why) == NULL);
    CHECK_STR_CONTAINS(why, "stale");
    CHECK(nal_inflight_find(&table, fresh, KIND_PUT, &why) == again);
    /* A second release of the same record changes nothing. */
    nal_inflight_release(&table, again);
    nal_inflight_release(&table, again);
    CHECK_EQ(table.used, 0);
    CHECK(nal_inflight_room(&table));
    nal_inflight_fini(&table);
}

static void test_generation_wraps_past_zero(void)
{
    struct nal_inflight table;
    CHECK_EQ(nal_inflight_init(&table, 1, sizeof(struct nal_inflight_rec), NULL), PTL_OK);
    struct nal_op op = op_to(2, 16);
    /* 0x10000 reuses: the generation wraps and must skip 0, so id 0 (a put that
     * asked for no answer) never names a record. */
    for (unsigned i = 0; i < 0x10001u; i++) {
        struct nal_inflight_rec *rec = nal_inflight_take(&table, KIND_PUT, &op);
        CHECK(rec != NULL);
        CHECK(rec->gen != 0);
        CHECK(nal_inflight_id(&table, rec) != 0);
        nal_inflight_release(&table, rec);
    }
    const char *why;
    CHECK(nal_inflight_find(&table, 0, KIND_PUT, &why) == NULL);
    nal_inflight_fini(&table);
}

static void test_full_table_and_reuse(void)
{
    enum { DEPTH = 64 };
    struct nal_inflight table;
    CHECK_EQ(nal_inflight_init(&table, DEPTH, sizeof(struct fat_record), NULL), PTL_OK);
    struct nal_inflight_rec *recs[DEPTH];
    uint32_t ids[DEPTH];
    for (unsigned i = 0; i < DEPTH; i++) {
        struct nal_op op = op_to(1, i);
        CHECK(nal_inflight_room(&table));
        recs[i] = nal_inflight_take(&table, KIND_GET, &op);
        CHECK(recs[i] != NULL);
        ids[i] = nal_inflight_id(&table, recs[i]);
        for (unsigned j = 0; j < i; j++)
            CHECK(ids[j] != ids[i]);
    }
    struct nal_op op = op_to(1, 999);
    CHECK(!nal_inflight_room(&table));
    CHECK(nal_inflight_take(&table, KIND_GET, &op) == NULL);
    CHECK_EQ(table.used, DEPTH);
    /* Every record is still what it was taken for. */
    const char *why;
    for (unsigned i = 0; i < DEPTH; i++)
        CHECK_EQ(nal_inflight_find(&table, ids[i], KIND_GET, &why)->op.length, i);
    /* One freed: one more take, and it gets that record. */
    nal_inflight_release(&table, recs[17]);
    CHECK(nal_inflight_room(&table));
    struct nal_inflight_rec *rec = nal_inflight_take(&table, KIND_GET, &op);
    CHECK(rec == recs[17]);
    CHECK(nal_inflight_take(&table, KIND_GET, &op) == NULL);
    for (unsigned i = 0; i < DEPTH; i++)
        nal_inflight_release(&table, recs[i]);
    CHECK_EQ(table.used, 0);
    nal_inflight_fini(&table);
}

static void test_node_budget(void)
{
    /* Three peers' tables, 4 deep each, under a node cap of 5. */
    struct nal_inflight_budget budget = { .cap = 5 };
    struct nal_inflight tables[3];
    for (int p = 0; p < 3; p++)
        CHECK_EQ(nal_inflight_init(&tables[p], 4, sizeof(struct nal_inflight_rec), &budget), PTL_OK);
    struct nal_op op = op_to(1, 8);
    struct nal_inflight_rec *held[5];
    int n = 0;
    for (int i = 0; i < 4; i++)
        held[n++] = nal_inflight_take(&tables[0], KIND_PUT, &op);
    held[n++] = nal_inflight_take(&tables[1], KIND_PUT, &op);
    for (int i = 0; i < n; i++)
        CHECK(held[i] != NULL);
    CHECK_EQ(budget.in_use, 5);
    CHECK_EQ(budget.peak, 5);
    /* Tables 1 and 2 have free records, but the node is at its cap. */
    CHECK(!nal_inflight_room(&tables[1]));
    CHECK(!nal_inflight_room(&tables[2]));
    CHECK(nal_inflight_take(&tables[2], KIND_PUT, &op) == NULL);
    /* A release anywhere lets any peer go on. */
    nal_inflight_release(&tables[0], held[0]);
    CHECK_EQ(budget.in_use, 4);
    CHECK(nal_inflight_room(&tables[2]));
    struct nal_inflight_rec *rec = nal_inflight_take(&tables[2], KIND_GET, &op);
    CHECK(rec != NULL);
    CHECK_EQ(budget.peak, 5);
    /* A cap of 0 means no cap but the tables' own depth. */
    budget.cap = 0;
    CHECK(nal_inflight_room(&tables[1]));
    /* A table that goes away takes its records out of the budget. */
    nal_inflight_fini(&tables[0]);   /* 3 still held there */
    CHECK_EQ(budget.in_use, 2);
    nal_inflight_fini(&tables[1]);
    nal_inflight_fini(&tables[2]);
    CHECK_EQ(budget.in_use, 0);
}

/* Runs the waits with stderr captured; returns what they printed. */
static void capture_waits(struct nal_inflight *table, char *output, size_t size)
{
    FILE *capture = tmpfile();
    int saved = dup(2);
    CHECK(capture != NULL && saved >= 0);
    fflush(stderr);
    CHECK(dup2(fileno(capture), 2) >= 0);
    struct gp_slow_wait wait = GP_SLOW_WAIT_INIT;
    for (unsigned turn = 0; turn < 1u << 20 && !wait.warned; turn++)
        nal_inflight_wait_note(&wait, "test", table, 7);
    /* Once warned, quiet: the wait goes on. */
    for (unsigned turn = 0; turn < 5000; turn++)
        nal_inflight_wait_note(&wait, "test", table, 7);
    fflush(stderr);
    CHECK(dup2(saved, 2) >= 0);
    close(saved);
    rewind(capture);
    output[fread(output, 1, size - 1, capture)] = '\0';
    fclose(capture);
}

static void test_wait_says_so(void)
{
    setenv("GP_SLOW_WAIT_MS", "1", 1);   /* read once per process: this test's own */
    struct nal_inflight_budget budget = { .cap = 1 };
    struct nal_inflight table;
    CHECK_EQ(nal_inflight_init(&table, 2, sizeof(struct nal_inflight_rec), &budget), PTL_OK);
    struct nal_op op = op_to(7, 8);
    CHECK(nal_inflight_take(&table, KIND_PUT, &op) != NULL);
    char output[2048];
    capture_waits(&table, output, sizeof output);
    CHECK_STR_CONTAINS(output, "still waiting for operation records for rank 7");
    CHECK_STR_CONTAINS(output, "GASNET_NETWORKDEPTH_TOTAL=1");
    char *second = strstr(output, "still waiting");
    CHECK(second != NULL && strstr(second + 1, "still waiting") == NULL);
    /* Full table, budget to spare: the line says the peer's records are all in flight. */
    budget.cap = 0;
    CHECK(nal_inflight_take(&table, KIND_PUT, &op) != NULL);
    capture_waits(&table, output, sizeof output);
    CHECK_STR_CONTAINS(output, "operation records for rank 7 (all 2 in flight to it)");
    nal_inflight_fini(&table);
}

static void test_md_still_valid(void)
{
    struct ptl_ni_params params = { .transport = "loop", .max_pt = 1, .max_me_per_pt = 1,
                                    .max_eq = 1, .max_md = 4, .region_bytes = 65536 };
    struct ptl_ni *ni;
    CHECK_EQ(ptl_ni_init(&params, &ni), PTL_OK);
    char buf[64];
    struct ptl_md_desc desc = { .start = buf, .length = sizeof buf, .threshold = PTL_MD_THRESH_INF,
                                .eq = PTL_EQ_NONE };
    ptl_handle_md_t md;
    CHECK_EQ(ptl_md_bind(ni, &desc, &md), PTL_OK);
    struct nal_op op = op_to(0, 8);
    op.md = md;
    op.md_local = ptl_md_lookup(ni, md);
    CHECK(ptl_md_still_valid(&ni->base, &op));
    CHECK_EQ(ptl_md_unlink(ni, md), PTL_OK);
    CHECK(!ptl_md_still_valid(&ni->base, &op));
    ptl_ni_fini(ni);
}

static const struct gp_test tests[] = {
    { "bad_depth", test_bad_depth, 0 },
    { "take_and_find", test_take_and_find, 0 },
    { "out_of_range", test_out_of_range, 0 },
    { "stale_id", test_stale_id, 0 },
    { "generation_wraps_past_zero", test_generation_wraps_past_zero, 0 },
    { "full_table_and_reuse", test_full_table_and_reuse, 0 },
    { "node_budget", test_node_budget, 0 },
    { "wait_says_so", test_wait_says_so, 0 },
    { "md_still_valid", test_md_still_valid, 0 },
    GP_TEST_END
};

int main(int argc, char **argv)
{
    return gp_test_main(argc, argv, "inflight", tests);
}
