/*
 * The GASNet-1 collectives and teams end to end, public API only, every
 * byte checked:
 *
 *   movers T      broadcast, scatter, gather, gather_all, exchange and
 *                 reduce, single-address and M forms, SINGLE and LOCAL,
 *                 blocking and _nb, all nine IN x OUT pairs, sizes 0 to
 *                 3000 bytes (Medium-sized pieces and more), buffers in and
 *                 out of the segment, misaligned, roots moving; with T
 *                 images per node (T > 1: PAR builds, a thread per image,
 *                 gasnet_coll_init with an images table); reduce through a
 *                 function table whose callback checks how it is called,
 *                 and counts calls (N-1 per reduction in all); identical
 *                 source / destination blocks; several _nb outstanding,
 *                 synced with try_sync_some / wait_sync_all; aggregates;
 *                 IMAGES barriers between operations
 *   teams         row and column teams split from a grid, a team split from
 *                 a team: queries, named / anonymous / mismatched team
 *                 barriers, barrier_result, every collective on the teams,
 *                 and GASNET_TEAM_ALL's barrier shared with gasnet_barrier
 *   badrelrank    two nodes split with the same relrank: a fatal error
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <gasnet_tools.h>

#include "amtest.h"

#define SEGSIZE (4u << 20)
#define MAXB 3000
#define MAXT 4

static gasnet_node_t me, nodes;
static gasnet_seginfo_t *seg;
static unsigned threads = 1;       /* images per node */
static unsigned long ops_done;
static _Thread_local unsigned long reduces_done; /* by this image, each with callbacks */
static unsigned long reduce_calls; /* callbacks made on this node */
static uint64_t callbacks_seen;
static pthread_mutex_t stats = PTHREAD_MUTEX_INITIALIZER;
static char *heap[MAXT][2];        /* each image's out-of-segment src, dst */

static void add(unsigned long *counter, unsigned long n)
{
    pthread_mutex_lock(&stats);
    *counter += n;
    pthread_mutex_unlock(&stats);
}

/* ---- reductions ---- */

static void sum_fn(void *results, size_t result_count, const void *left, size_t left_count,
                   const void *right, size_t elem_size, int flags, int arg)
{
    int func = arg - 100;
    CHECK(func == 0 || func == 1, "callback arg %d", arg);
    CHECK(flags == (func ? GASNET_COLL_AMSAFE | GASNET_COLL_NONCOMM : 0),
          "callback of func %d got flags %d", func, flags);
    CHECK(results == left && result_count == left_count && elem_size == 4 && result_count > 0,
          "callback called as results %p count %zu, left %p count %zu, elem_size %zu", results,
          result_count, left, left_count, elem_size);
    uint32_t *acc = results;
    const uint32_t *r = right;
    for (size_t i = 0; i < result_count; i++)
        acc[i] += r[i];
    add(&reduce_calls, 1);
}

static gasnet_coll_fn_entry_t fn_table[2] = {
    { sum_fn, 0 },
    { sum_fn, GASNET_COLL_AMSAFE | GASNET_COLL_NONCOMM },
};

/* ---- the view of a team an image works with ---- */

struct view {
    gasnet_team_handle_t team;
    unsigned nimg;           /* images in the team */
    unsigned img;            /* this image's number */
    unsigned local;          /* ... among this node's */
    unsigned t;              /* images per node */
    int all;                 /* GASNET_TEAM_ALL (segment lists by node are known) */
};

static void view_barrier(const struct view *v)
{
    if (v->all) {
        gasnet_coll_barrier_notify(v->team, 0, GASNET_BARRIERFLAG_ANONYMOUS | GASNET_BARRIERFLAG_IMAGES);
        CHECK(gasnet_coll_barrier_wait(v->team, 0, GASNET_BARRIERFLAG_ANONYMOUS | GASNET_BARRIERFLAG_IMAGES) ==
                  GASNET_OK, "images barrier");
    } else {
        CHECK(gasnet_coll_barrier(v->team, 0, GASNET_BARRIERFLAG_UNNAMED) == GASNET_OK,
              "team barrier");
    }
}

static unsigned char val(unsigned image, unsigned block, size_t i, unsigned round)
{
    return (unsigned char)(image * 37u + block * 11u + i * 3u + round * 5u + 1u);
}

static uint32_t rval(unsigned image, size_t k, unsigned round)
{
    return image * 1000u + (uint32_t)k * 7u + round;
}

/* Image img's src (which 0) or dst (1) area: in the segment of its node
 * (GASNET_TEAM_ALL images only) or its heap buffer; misaligned by image,
 * but for reductions (their operands are aligned for the element type). */
static _Thread_local int aligned;

static char *area(const struct view *v, unsigned img, int which, int inseg)
{
    size_t slot = 2 * ((size_t)MAXB * MAXT * 8 + 64);
    size_t skew = aligned ? 8 : 1 + img % 7;
    size_t off = (img % v->t) * 2 * slot + (size_t)which * slot + skew;
    if (!inseg)
        return heap[img % v->t][which] + skew;
    gasnet_node_t node = v->all ? img / v->t : me;
    return (char *)seg[node].addr + off;
}

enum kind { K_BCAST, K_SCATTER, K_GATHER, K_GALL, K_EXCH, K_REDUCE, NKINDS };
static const char *kind_name[NKINDS] = { "broadcast", "scatter", "gather", "gather_all",
                                         "exchange", "reduce" };

struct op {
    enum kind kind;
    int m, single, nb, flags, inseg, overlap;
    size_t b;
    unsigned root, round;
};

/* Fills this image's inputs and poisons its outputs. */
static void prepare(const struct view *v, const struct op *o, char *src, char *dst)
{
    size_t n = v->nimg, b = o->b;
    size_t dst_bytes = (o->kind == K_BCAST || o->kind == K_SCATTER) ? b
                       : o->kind == K_REDUCE ? b : n * b;
    memset(dst, 0xee, dst_bytes);
    switch (o->kind) {
    case K_BCAST:
        if (v->img == o->root)
            for (size_t i = 0; i < b; i++)
                src[i] = (char)val(o->root, 0, i, o->round);
        break;
    case K_SCATTER:
        if (v->img == o->root)
            for (size_t j = 0; j < n; j++)
                for (size_t i = 0; i < b; i++)
                    src[j * b + i] = (char)val(o->root, (unsigned)j, i, o->round);
        break;
    case K_GATHER:
    case K_GALL:
        for (size_t i = 0; i < b; i++)
            src[i] = (char)val(v->img, 0, i, o->round);
        break;
    case K_EXCH:
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < b; i++)
                src[j * b + i] = (char)val(v->img, (unsigned)j, i, o->round);
        break;
    case K_REDUCE:
        for (size_t k = 0; k < b / 4; k++) {
            uint32_t x = rval(v->img, k, o->round);
            memcpy(src + 4 * k, &x, 4);
        }
        break;
    default: break;
    }
}

/* Checks image img's dst (this image's, or a peer's fetched with a get). */
static void verify(const struct view *v, const struct op *o, unsigned img, const char *dst)
{
    size_t n = v->nimg, b = o->b;
    const unsigned char *d = (const unsigned char *)dst;
    const char *what = kind_name[o->kind];
    switch (o->kind) {
    case K_BCAST:
        for (size_t i = 0; i < b; i++)
            CHECK(d[i] == val(o->root, 0, i, o->round), "%s image %u byte %zu of %zu (root %u)",
                  what, img, i, b, o->root);
        break;
    case K_SCATTER:
        for (size_t i = 0; i < b; i++)
            CHECK(d[i] == val(o->root, img, i, o->round), "%s image %u byte %zu of %zu", what, img,
                  i, b);
        break;
    case K_GATHER:
        if (img != o->root)
            break;
        /* fall through */
    case K_GALL:
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < b; i++)
                CHECK(d[j * b + i] == val((unsigned)j, 0, i, o->round),
                      "%s image %u block %zu byte %zu of %zu", what, img, j, i, b);
        break;
    case K_EXCH:
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < b; i++)
                CHECK(d[j * b + i] == val((unsigned)j, img, i, o->round),
                      "exchange image %u block %zu byte %zu of %zu", img, j, i, b);
        break;
    case K_REDUCE:
        if (img != o->root)
            break;
        for (size_t k = 0; k < b / 4; k++) {
            uint32_t want = 0, got;
            for (unsigned j = 0; j < n; j++)
                want += rval(j, k, o->round);
            memcpy(&got, d + 4 * k, 4);
            CHECK(got == want, "reduce element %zu of %zu: %u, expected %u", k, b / 4, got, want);
        }
        break;
    default: break;
    }
}

/* Starts o from this image; returns its handle (INVALID for blocking). */
static gasnet_coll_handle_t issue(const struct view *v, const struct op *o, char *src, char *dst)
{
    gasnet_team_handle_t t = v->team;
    int f = o->flags;
    size_t b = o->b;
    void *dl[MAXT * 64], *sl[MAXT * 64];
    if (o->m) {
        /* SINGLE: every image's buffers; LOCAL: this node's. */
        unsigned first = o->single ? 0 : v->img - v->local, count = o->single ? v->nimg : v->t;
        for (unsigned k = 0; k < count; k++) {
            dl[k] = area(v, first + k, 1, o->inseg);
            sl[k] = area(v, first + k, 0, o->inseg);
        }
    }
    int func = (int)(o->round % 2);
    gasnet_coll_handle_t h = GASNET_COLL_INVALID_HANDLE;
#define ISSUE(call, ...)                                  \
    do {                                                  \
        if (o->nb)                                        \
            h = call##_nb(__VA_ARGS__);                   \
        else                                              \
            call(__VA_ARGS__);                            \
    } while (0)
    switch (o->kind) {
    case K_BCAST:
        if (o->m)
            ISSUE(gasnet_coll_broadcastM, t, dl, o->root, src, b, f);
        else
            ISSUE(gasnet_coll_broadcast, t, dst, o->root, src, b, f);
        break;
    case K_SCATTER:
        if (o->m)
            ISSUE(gasnet_coll_scatterM, t, dl, o->root, src, b, f);
        else
            ISSUE(gasnet_coll_scatter, t, dst, o->root, src, b, f);
        break;
    case K_GATHER:
        if (o->m)
            ISSUE(gasnet_coll_gatherM, t, o->root, dst, sl, b, f);
        else
            ISSUE(gasnet_coll_gather, t, o->root, dst, src, b, f);
        break;
    case K_GALL:
        if (o->m)
            ISSUE(gasnet_coll_gather_allM, t, dl, sl, b, f);
        else
            ISSUE(gasnet_coll_gather_all, t, dst, src, b, f);
        break;
    case K_EXCH:
        if (o->m)
            ISSUE(gasnet_coll_exchangeM, t, dl, sl, b, f);
        else
            ISSUE(gasnet_coll_exchange, t, dst, src, b, f);
        break;
    case K_REDUCE:
        if (o->m)
            ISSUE(gasnet_coll_reduceM, t, o->root, dst, sl, 0, 0, 4, b / 4, func, 100 + func, f);
        else
            ISSUE(gasnet_coll_reduce, t, o->root, dst, src, 0, 0, 4, b / 4, func, 100 + func, f);
        break;
    default: break;
    }
    return h;
}

static const int in_flags[3] = { GASNET_COLL_IN_NOSYNC, GASNET_COLL_IN_MYSYNC,
                                 GASNET_COLL_IN_ALLSYNC };
static const int out_flags[3] = { GASNET_COLL_OUT_NOSYNC, GASNET_COLL_OUT_MYSYNC,
                                  GASNET_COLL_OUT_ALLSYNC };
static const size_t sizes[] = { 4, 0, 960, 1, 3000, 64, 961, 8, 2000 };

/* One operation from this image, with the synchronization its flags ask of the client. */
static void run_op(const struct view *v, struct op *o)
{
    aligned = o->kind == K_REDUCE;
    char *src = area(v, v->img, 0, o->inseg), *dst = area(v, v->img, 1, o->inseg);
    size_t b = o->b;
    if (!o->overlap) {
        prepare(v, o, src, dst);
    } else if (o->kind == K_BCAST) {
        /* Identical blocks (spec 2.6): the root's src is its dst. */
        src = dst;
        memset(dst, 0xee, b);
        if (v->img == o->root)
            for (size_t i = 0; i < b; i++)
                src[i] = (char)val(o->root, 0, i, o->round);
    } else if (o->kind == K_SCATTER) {
        /* The root's dst is its own block of src. */
        if (v->img == o->root) {
            dst = src + (size_t)v->img * b;
            for (size_t j = 0; j < v->nimg; j++)
                for (size_t i = 0; i < b; i++)
                    src[j * b + i] = (char)val(o->root, (unsigned)j, i, o->round);
        } else {
            memset(dst, 0xee, b);
        }
    } else {
        /* gather, gather_all: each image's src is its own block of dst. */
        memset(dst, 0xee, v->nimg * b);
        src = dst + (size_t)v->img * b;
        for (size_t i = 0; i < b; i++)
            src[i] = (char)val(v->img, 0, i, o->round);
    }
    if (o->flags & GASNET_COLL_IN_NOSYNC)
        view_barrier(v);
    /* LOCAL non-roots may pass NULL where the argument does not apply. */
    char *s = src, *d = dst;
    if (!o->single && v->img != o->root && (o->kind == K_BCAST || o->kind == K_SCATTER))
        s = NULL;
    if (!o->single && v->img != o->root && (o->kind == K_GATHER || o->kind == K_REDUCE))
        d = NULL;
    gasnet_coll_handle_t h = issue(v, o, s, d);
    if (o->nb) {
        if (o->round % 3 == 0) {
            while (gasnet_coll_try_sync(h) != GASNET_OK)
                gasnet_AMPoll();
        } else {
            gasnet_coll_wait_sync(h);
        }
    }
    if (o->flags & GASNET_COLL_OUT_NOSYNC)
        view_barrier(v);
    verify(v, o, v->img, dst);
    /* OUT_ALLSYNC: every image's output is final, so a peer's can be read. */
    if ((o->flags & GASNET_COLL_OUT_ALLSYNC) && o->inseg && v->all && v->t == 1 && nodes > 1 &&
        o->kind != K_GATHER && o->kind != K_REDUCE && !o->overlap) {
        unsigned peer = (v->img + 1) % v->nimg;
        size_t bytes = (o->kind == K_BCAST || o->kind == K_SCATTER) ? o->b : v->nimg * o->b;
        char *copy = malloc(bytes + 1);
        CHECK(copy != NULL, "malloc");
        gasnet_get(copy, peer, area(v, peer, 1, 1), bytes);
        verify(v, o, peer, copy);
        free(copy);
        view_barrier(v); /* before the peer writes its buffers again */
    }
    add(&ops_done, 1);
    if (o->kind == K_REDUCE && o->b >= 4)
        reduces_done++;
    /* Inputs are rewritten next time: after MY/ALLSYNC this image may. */
}

/* Every kind x form x scope x blocking/_nb x IN x OUT; sizes and roots rotate. */
static void movers(const struct view *v)
{
    unsigned round = 0;
    for (int kind = 0; kind < NKINDS; kind++)
        for (int m = 0; m < 2; m++)
            for (int single = 0; single < 2; single++) {
                if (single && (!v->all || (!m && v->t > 1)))
                    continue; /* SINGLE single-address needs one image per node */
                for (int nb = 0; nb < 2; nb++)
                    for (int pair = 0; pair < 9; pair++) {
                        /* Several images: a third of the pairs, all of them over the kinds. */
                        if (v->t > 1 && (pair + kind + m + nb) % 3 != 0)
                            continue;
                        struct op o = { (enum kind)kind, m, single, nb, 0, 0, 0, 0, 0, round++ };
                        o.b = sizes[(pair + kind + nb) % (sizeof sizes / sizeof sizes[0])];
                        if (kind == K_REDUCE)
                            o.b &= ~(size_t)3;
                        o.root = (pair * 5 + kind) % v->nimg;
                        o.inseg = single || (pair + m) % 2 == 0;
                        o.flags = in_flags[pair / 3] | out_flags[pair % 3] |
                                  (single ? GASNET_COLL_SINGLE : GASNET_COLL_LOCAL) |
                                  (o.inseg ? GASNET_COLL_DST_IN_SEGMENT | GASNET_COLL_SRC_IN_SEGMENT
                                           : 0);
                        run_op(v, &o);
                    }
            }
    /* Identical source and destination blocks (LOCAL, single-address). */
    for (int kind = K_BCAST; kind <= K_GALL; kind++) {
        struct op o = { (enum kind)kind, 0, 0, 0,
                        GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_LOCAL, 1, 1,
                        100, (unsigned)(v->nimg - 1), round++ };
        run_op(v, &o);
    }
}

/* Several _nb outstanding at once, then an aggregate. */
static void outstanding(const struct view *v)
{
    enum { K = 6 };
    gasnet_coll_handle_t h[K];
    size_t b = 200;
    int f = GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_LOCAL;
    char *dst = area(v, v->img, 1, 0), *src = area(v, v->img, 0, 0);
    for (int k = 0; k < K; k++) {
        unsigned root = (unsigned)k % v->nimg;
        for (size_t i = 0; i < b; i++)
            src[k * b + i] = (char)val(root, 0, i, 900u + k);
        memset(dst + k * b, 0xee, b);
        h[k] = gasnet_coll_broadcast_nb(v->team, dst + k * b, root, src + k * b, b, f);
    }
    while (gasnet_coll_try_sync_some(h, K) != GASNET_OK)
        gasnet_AMPoll();
    gasnet_coll_wait_sync_all(h, K);
    for (int k = 0; k < K; k++) {
        CHECK(h[k] == GASNET_COLL_INVALID_HANDLE, "handle %d not cleared", k);
        struct op o = { K_BCAST, 0, 0, 0, 0, 0, 0, b, (unsigned)k % v->nimg, 900u + k };
        verify(v, &o, v->img, dst + k * b);
    }
    /* An aggregate: three AGGREGATE calls and the one that ends it. */
    for (int k = 0; k < 4; k++) {
        unsigned root = (unsigned)(k + 1) % v->nimg;
        for (size_t i = 0; i < b; i++)
            src[k * b + i] = (char)val(root, 0, i, 950u + k);
        memset(dst + k * b, 0xee, b);
        gasnet_coll_handle_t one = gasnet_coll_broadcast_nb(
            v->team, dst + k * b, root, src + k * b, b, f | (k < 3 ? GASNET_COLL_AGGREGATE : 0));
        if (k < 3)
            CHECK(one == GASNET_COLL_INVALID_HANDLE, "aggregate member %d got a handle", k);
        else
            gasnet_coll_wait_sync(one);
    }
    for (int k = 0; k < 4; k++) {
        struct op o = { K_BCAST, 0, 0, 0, 0, 0, 0, b, (unsigned)(k + 1) % v->nimg, 950u + k };
        verify(v, &o, v->img, dst + k * b);
    }
    view_barrier(v);
}

struct image_arg {
    unsigned local;
};

static gasnet_image_t images_table[1024];

static void *image_main(void *p)
{
    unsigned local = ((struct image_arg *)p)->local;
    unsigned img = me * threads + local;
    if (threads > 1)
        gasnet_coll_init(images_table, img, fn_table, 2, 0);
    struct view v = { GASNET_TEAM_ALL, nodes * threads, img, local, threads, 1 };
    movers(&v);
    outstanding(&v);
    /* testteambarrier's pattern: UNNAMED|IMAGES returns GASNET_OK; named IMAGES loops. */
    CHECK(gasnet_coll_barrier(GASNET_TEAM_ALL, 0, GASNET_BARRIERFLAG_UNNAMED | GASNET_BARRIERFLAG_IMAGES) ==
              GASNET_OK, "UNNAMED|IMAGES barrier");
    for (int i = 0; i < 20; i++) {
        gasnet_coll_barrier_notify(GASNET_TEAM_ALL, i, GASNET_BARRIERFLAG_IMAGES);
        CHECK(gasnet_coll_barrier_wait(GASNET_TEAM_ALL, i, GASNET_BARRIERFLAG_IMAGES) == GASNET_OK,
              "named IMAGES barrier %d", i);
    }
    /* Reductions called the callback N-1 times each, in all: every node's
     * count, once all its images are past their last reduction. */
    view_barrier(&v);
    pthread_mutex_lock(&stats);
    uint64_t mine = local == 0 ? reduce_calls : 0, all[64 * MAXT];
    pthread_mutex_unlock(&stats);
    gasnet_coll_gather_all(GASNET_TEAM_ALL, all, &mine, sizeof mine,
                           GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_LOCAL);
    uint64_t total = 0;
    for (unsigned k = 0; k < v.nimg; k++)
        total += all[k];
    uint64_t want = (uint64_t)reduces_done * (v.nimg - 1);
    CHECK(total == want, "%llu reduction callbacks in all, expected %llu (%lu reductions of %u "
          "images)", (unsigned long long)total, (unsigned long long)want, reduces_done, v.nimg);
    if (local == 0)
        callbacks_seen = total;
    return NULL;
}

static int run_movers(unsigned t)
{
    threads = t;
#ifndef GASNET_PAR
    if (threads > 1) {
        printf("coll_full: movers with %u images per node: skipped (not a PAR build)\n", t);
        return 0;
    }
#endif
    CHECK(threads >= 1 && threads <= MAXT && nodes * threads <= 64, "images %u", threads);
    for (unsigned k = 0; k < threads; k++)
        for (int w = 0; w < 2; w++) {
            heap[k][w] = malloc((size_t)MAXB * MAXT * 8 + 64);
            CHECK(heap[k][w] != NULL, "malloc");
        }
    for (gasnet_node_t n = 0; n < nodes; n++)
        images_table[n] = threads;
    if (threads == 1) {
        gasnet_coll_init(NULL, 0, fn_table, 2, 0);
        gasnet_coll_init(NULL, 0, fn_table, 2, 0); /* test.h's repeat: harmless */
        struct image_arg a = { 0 };
        image_main(&a);
    } else {
        pthread_t ids[MAXT];
        struct image_arg args[MAXT];
        for (unsigned k = 0; k < threads; k++) {
            args[k].local = k;
            CHECK(pthread_create(&ids[k], NULL, image_main, &args[k]) == 0, "pthread_create");
        }
        for (unsigned k = 0; k < threads; k++)
            pthread_join(ids[k], NULL);
    }
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK, "final barrier");
    printf("coll_full: movers on %u nodes x %u images: %lu operations verified, %llu reduction "
           "callbacks\n", nodes, threads, ops_done / threads, (unsigned long long)callbacks_seen);
    return 0;
}

/* ---- teams ---- */

static void team_collectives(gasnet_team_handle_t team, const char *name)
{
    gasnet_node_t size = gasnet_coll_team_size(team);
    gasnet_node_t rank = gasnet_coll_team_node2rank(team, me);
    struct view v = { team, size, rank, 0, 1, 0 };
    unsigned round = 500;
    for (int kind = 0; kind < NKINDS; kind++)
        for (int m = 0; m < 2; m++)
            for (int nb = 0; nb < 2; nb++) {
                int pair = (kind + 2 * m + nb) % 9;
                struct op o = { (enum kind)kind, m, 0, nb, 0, 0, 0, 0, 0, round++ };
                o.b = sizes[(kind + m + nb) % (sizeof sizes / sizeof sizes[0])] & ~(size_t)3;
                o.root = (unsigned)(kind + m) % size;
                o.inseg = nb;
                o.flags = in_flags[pair / 3] | out_flags[pair % 3] | GASNET_COLL_LOCAL;
                run_op(&v, &o);
            }
    (void)name;
}

static void team_barriers(gasnet_team_handle_t team, const char *name)
{
    gasnet_node_t size = gasnet_coll_team_size(team);
    gasnet_node_t rank = gasnet_coll_team_node2rank(team, me);
    for (int i = 0; i < 30; i++) {
        gasnet_coll_barrier_notify(team, i, 0);
        CHECK(gasnet_coll_barrier_wait(team, i, 0) == GASNET_OK, "%s named barrier %d", name, i);
        int id = -1;
        CHECK(gasnet_coll_barrier_result(team, &id) == 0 && id == i, "%s barrier_result %d", name,
              id);
        gasnet_coll_barrier_notify(team, 0, GASNET_BARRIERFLAG_UNNAMED);
        int rc;
        while ((rc = gasnet_coll_barrier_try(team, 0, GASNET_BARRIERFLAG_UNNAMED)) ==
               GASNET_ERR_NOT_READY)
            gasnet_AMPoll();
        CHECK(rc == GASNET_OK, "%s anonymous barrier", name);
    }
    /* Different names among the members: a mismatch for every member. */
    gasnet_coll_barrier_notify(team, (int)rank, 0);
    int rc = gasnet_coll_barrier_wait(team, (int)rank, 0);
    CHECK(rc == (size > 1 ? GASNET_ERR_BARRIER_MISMATCH : GASNET_OK),
          "%s barrier with names by rank: %d", name, rc);
}

static int run_teams(void)
{
    gasnet_coll_init(NULL, 0, fn_table, 2, 0);
    threads = 1;
    for (int w = 0; w < 2; w++) {
        heap[0][w] = malloc((size_t)MAXB * MAXT * 8 + 64);
        CHECK(heap[0][w] != NULL, "malloc");
    }
    unsigned ncols = nodes >= 3 ? 2 : 1, row = me / ncols, col = me % ncols;
    gasnet_seginfo_t scratch[2];
    scratch[0].addr = (char *)seg[me].addr + SEGSIZE / 2;
    scratch[0].size = SEGSIZE / 4;
    scratch[1].addr = (char *)seg[me].addr + 3 * (SEGSIZE / 4);
    scratch[1].size = SEGSIZE / 4;
    gasnet_team_handle_t rows = gasnet_coll_team_split(GASNET_TEAM_ALL, row, col, &scratch[0]);
    gasnet_team_handle_t cols = gasnet_coll_team_split(GASNET_TEAM_ALL, col, row, &scratch[1]);
    CHECK(rows != cols && rows != GASNET_TEAM_ALL, "distinct team handles");
    gasnet_node_t rsize = (me / ncols == (nodes - 1) / ncols) ? nodes - row * ncols : ncols;
    CHECK(gasnet_coll_team_size(rows) == rsize, "row team size %u, expected %u",
          gasnet_coll_team_size(rows), rsize);
    CHECK(gasnet_coll_team_node2rank(rows, me) == col && gasnet_coll_team_node2rank(cols, me) == row,
          "ranks in row / column team");
    for (gasnet_node_t r = 0; r < gasnet_coll_team_size(rows); r++)
        CHECK(gasnet_coll_team_rank2node(rows, (int)r) == row * ncols + r, "row rank2node %u", r);
    for (gasnet_node_t r = 0; r < gasnet_coll_team_size(cols); r++)
        CHECK(gasnet_coll_team_rank2node(cols, (int)r) == r * ncols + col, "col rank2node %u", r);
    CHECK(gasnet_coll_team_size(GASNET_TEAM_ALL) == nodes &&
              gasnet_coll_team_rank2node(GASNET_TEAM_ALL, (int)me) == me,
          "GASNET_TEAM_ALL queries");
    team_barriers(rows, "row");
    team_barriers(cols, "column");
    team_collectives(rows, "row");
    team_collectives(cols, "column");
    /* A team split from a team: the column's even and odd ranks. */
    gasnet_node_t crank = gasnet_coll_team_node2rank(cols, me);
    gasnet_team_handle_t half = gasnet_coll_team_split(cols, crank % 2, crank / 2, &scratch[1]);
    team_barriers(half, "half-column");
    team_collectives(half, "half-column");
    /* GASNET_TEAM_ALL's barrier is gasnet_barrier's: phases alternate. */
    for (int i = 0; i < 10; i++) {
        gasnet_barrier_notify(100 + i, 0);
        CHECK(gasnet_coll_barrier_wait(GASNET_TEAM_ALL, 100 + i, 0) == GASNET_OK, "mixed barrier");
        int id = -1;
        CHECK(gasnet_barrier_result(&id) == 0 && id == 100 + i, "mixed barrier_result %d", id);
        gasnet_coll_barrier_notify(GASNET_TEAM_ALL, 200 + i, 0);
        CHECK(gasnet_barrier_wait(200 + i, 0) == GASNET_OK, "mixed barrier 2");
        CHECK(gasnet_coll_barrier_result(GASNET_TEAM_ALL, &id) == 0 && id == 200 + i,
              "mixed coll barrier_result %d", id);
    }
    /* Collectives on overlapping teams back to back, and on ALL. */
    team_collectives(rows, "row");
    struct view all = { GASNET_TEAM_ALL, nodes, me, 0, 1, 1 };
    struct op o = { K_EXCH, 0, 0, 1, GASNET_COLL_IN_ALLSYNC | GASNET_COLL_OUT_ALLSYNC | GASNET_COLL_LOCAL,
                    0, 0, 300, 0, 77 };
    run_op(&all, &o);
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK, "final barrier");
    printf("coll_full: teams on %u nodes (%u x %u grid): splits, queries, barriers and %lu "
           "collectives verified\n", nodes, (nodes + ncols - 1) / ncols, ncols, ops_done);
    return 0;
}

/* Microseconds per operation of a few collectives (not run by the script). */
static int run_perf(int iters)
{
    gasnet_coll_init(NULL, 0, fn_table, 2, 0);
    size_t n = nodes;
    char *src = malloc(64 * n + 64), *dst = malloc(64 * n + 64);
    CHECK(src != NULL && dst != NULL, "malloc");
    memset(src, 1, 64 * n + 64);
    int f = GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_LOCAL;
    const char *names[6] = { "broadcast 8 B", "reduce 8 x uint32", "gather_all 64 B",
                             "exchange 64 B", "barrier", "broadcast 8 B from node 0" };
    for (int which = 0; which < 6; which++) {
        gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
        gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
        gasnett_tick_t start = gasnett_ticks_now();
        for (int i = 0; i < iters; i++) {
            if (which == 0)
                gasnet_coll_broadcast(GASNET_TEAM_ALL, dst, (unsigned)i % nodes, src, 8, f);
            else if (which == 1)
                gasnet_coll_reduce(GASNET_TEAM_ALL, 0, dst, src, 0, 0, 4, 8, 0, 100, f);
            else if (which == 2)
                gasnet_coll_gather_all(GASNET_TEAM_ALL, dst, src, 64, f);
            else if (which == 3)
                gasnet_coll_exchange(GASNET_TEAM_ALL, dst, src, 64, f);
            else if (which == 4)
                gasnet_coll_barrier(GASNET_TEAM_ALL, 0, GASNET_BARRIERFLAG_ANONYMOUS);
            else
                gasnet_coll_broadcast(GASNET_TEAM_ALL, dst, 0, src, 8, f);
        }
        double us = (double)gasnett_ticks_to_us(gasnett_ticks_now() - start) / iters;
        if (me == 0)
            printf("coll_full: perf on %u nodes: %s: %.1f us\n", nodes, names[which], us);
    }
    free(src);
    free(dst);
    return 0;
}

int main(int argc, char **argv)
{
    amtest_name = "coll_full";
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    CHECK(gasnet_attach(NULL, 0, SEGSIZE, 0) == GASNET_OK, "attach");
    me = gasnet_mynode();
    nodes = gasnet_nodes();
    seg = calloc(nodes, sizeof *seg);
    CHECK(seg != NULL && gasnet_getSegmentInfo(seg, (int)nodes) == GASNET_OK, "segments");
    const char *mode = argc > 1 ? argv[1] : "movers";
    int rc = 2;
    if (strcmp(mode, "movers") == 0)
        rc = run_movers(argc > 2 ? (unsigned)atoi(argv[2]) : 1);
    else if (strcmp(mode, "teams") == 0)
        rc = run_teams();
    else if (strcmp(mode, "perf") == 0)
        rc = run_perf(argc > 2 ? atoi(argv[2]) : 1000);
    else if (strcmp(mode, "badrelrank") == 0) {
        /* Every node claims rank 0 of one team: a fatal error naming it. */
        gasnet_coll_init(NULL, 0, NULL, 0, 0);
        gasnet_seginfo_t scratch = seg[me];
        gasnet_coll_team_split(GASNET_TEAM_ALL, 7, 0, &scratch);
        rc = 0;
    }
    else
        fprintf(stderr, "coll_full: unknown mode %s\n", mode);
    fflush(stdout);
    free(seg);
    gasnet_exit(rc);
    return rc;
}
