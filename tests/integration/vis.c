/*
 * gasnet_vis.h end to end: every entry point (vector, indexed, strided;
 * put and get; blocking, _nb, _nbi, and _nbi inside an access region), to
 * the next node and to itself, local pieces in the heap or the segment,
 * random shapes with empty entries, zero-length transfers, overlapping
 * source pieces, sides that split the bytes differently, and large
 * transfers that take many messages.  Every byte is checked where it lands,
 * and so are the bytes between destination pieces (they must not change).
 * After an _nb / _nbi initiation the lists, strides and counts are
 * scribbled over: the library may not read them after the call.
 *
 * Usage: vis all [THREADS] | vis zeroseg | vis misuse CASE (node 0 makes the mistake CASE).
 * zeroseg: node 1 has no segment (so no VIS area) and puts to and gets from
 * node 0 with every form, local pieces in its heap.
 * THREADS (PAR builds; SEQ builds run one) run the same, each with its own
 * areas, all at once: slots, staging buffers and handles shared between
 * threads.
 */
#include <gasnet.h>
#include <gasnet_vis.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AREA (512u << 10)
#define ITERS 6
#define FILL 0xa5
#define MAXLEV 6
#define MAXT 4

enum area { INBOX, PUBLISHED, LOOPBACK, LOCAL, NAREAS };
enum form { VEC, IDX, STR, NFORMS };
enum sync { BLOCKING, NB, NBI, REGION, NSYNCS };
static const char *form_name[] = { "vector", "indexed", "strided" };
static const char *sync_name[] = { "blocking", "nb", "nbi", "region" };

static gasnet_node_t me, nodes;
static gasnet_seginfo_t *seg;
static int threads = 1;
static _Thread_local int tid;
static _Thread_local char *heap;
static _Thread_local unsigned long long rng = 88172645463325252ull;
static long puts_done, gets_done;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "node %u: CHECK failed (%s): ", me, #cond);         \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
            gasnet_exit(1);                                                     \
        }                                                                       \
    } while (0)

static size_t rnd(size_t n) /* 0 .. n-1 */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return n ? (size_t)(rng % n) : 0;
}

/* Each thread its own areas; the published pattern is one per node. */
static char *area(gasnet_node_t node, enum area a)
{
    return (char *)seg[node].addr + ((size_t)a * MAXT + (a == PUBLISHED ? 0 : (size_t)tid)) * AREA;
}

static unsigned char published(gasnet_node_t node, size_t off)
{
    return (unsigned char)(node * 59 + off * 7 + (off >> 9) * 3 + 1);
}

static void barrier(void)
{
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK, "barrier");
}

/* One side of a transfer, and its pieces as this test understands them. */
struct piece {
    char *addr;
    size_t len;
};
struct side {
    gasnet_memvec_t *vec;
    void **addrs;
    size_t count, len;
    char *base;
    size_t strides[MAXLEV + 1];
    struct piece *p;
    size_t np;
};
struct xfer {
    enum form form;
    struct side dst, src;
    size_t counts[MAXLEV + 1], levels;
    size_t total;
};

static void add_piece(struct side *s, char *addr, size_t len)
{
    s->p = realloc(s->p, (s->np + 1) * sizeof *s->p);
    CHECK(s->p != NULL, "out of memory");
    s->p[s->np].addr = addr;
    s->p[s->np].len = len;
    s->np++;
}

static void free_xfer(struct xfer *x)
{
    free(x->dst.vec);
    free(x->src.vec);
    free(x->dst.addrs);
    free(x->src.addrs);
    free(x->dst.p);
    free(x->src.p);
    memset(x, 0, sizeof *x);
}

/* Destination lengths laid out disjointly in [base, base + room) with small gaps, then shuffled. */
static void disjoint(char *base, size_t room, const size_t *lens, size_t n, char **out)
{
    size_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += lens[i];
    CHECK(sum <= room, "pieces of %zu bytes in %zu", sum, room);
    size_t slack = room - sum, at = 0;
    size_t *order = malloc((n + 1) * sizeof *order);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = rnd(i), t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    for (size_t k = 0; k < n; k++) {
        size_t gap = rnd(slack < 40 ? slack + 1 : 40);
        slack -= gap;
        at += gap;
        out[order[k]] = base + at;
        at += lens[order[k]];
    }
    free(order);
}

/* Vector: random source pieces (overlapping, some empty), disjoint shuffled destination pieces. */
static void make_vector(struct xfer *x, char *dst_base, char *src_base, size_t scale)
{
    if (scale == AREA / 2) { /* one long run each side, at odd offsets: an ordinary put or get */
        size_t len = AREA / 2 - 7 - rnd(5000);
        x->src.count = x->dst.count = 1;
        x->src.vec = calloc(2, sizeof *x->src.vec);
        x->dst.vec = calloc(2, sizeof *x->dst.vec);
        x->src.vec[0] = (gasnet_memvec_t){ src_base + 3, len };
        x->dst.vec[0] = (gasnet_memvec_t){ dst_base + 5, len };
        add_piece(&x->src, src_base + 3, len);
        add_piece(&x->dst, dst_base + 5, len);
        x->total = len;
        return;
    }
    size_t n = rnd(8) == 0 && scale == 1 ? 0 : 1 + rnd(scale > 1 ? 40 : 60);
    size_t maxlen = scale > 1 ? 2000 : 300;
    x->src.count = n;
    x->src.vec = calloc(n + 1, sizeof *x->src.vec);
    x->total = 0;
    for (size_t i = 0; i < n; i++) {
        if (rnd(20) == 0)
            continue; /* {NULL, 0} */
        size_t len = i == 0 && scale > 1 ? scale : rnd(maxlen + 1); /* larger than a message */
        x->src.vec[i].addr = len ? src_base + rnd(AREA / 2 - len) : NULL;
        x->src.vec[i].len = len;
        x->total += len;
    }
    /* The destination splits the same total differently. */
    size_t m = x->total == 0 ? rnd(3) : 1 + rnd(50), left = x->total;
    size_t *lens = calloc(m + 1, sizeof *lens);
    for (size_t i = 0; i < m; i++) {
        lens[i] = i + 1 == m ? left : (rnd(4) == 0 ? 0 : rnd(left + 1) / 2);
        left -= lens[i];
    }
    char **at = calloc(m + 1, sizeof *at);
    disjoint(dst_base, AREA / 2, lens, m, at);
    x->dst.count = m;
    x->dst.vec = calloc(m + 1, sizeof *x->dst.vec);
    for (size_t i = 0; i < m; i++) {
        x->dst.vec[i].addr = lens[i] ? at[i] : NULL;
        x->dst.vec[i].len = lens[i];
        add_piece(&x->dst, at[i], lens[i]);
    }
    for (size_t i = 0; i < n; i++)
        add_piece(&x->src, x->src.vec[i].addr, x->src.vec[i].len);
    free(lens);
    free(at);
}

/* Indexed: piece sizes u*a and u*b, counts b*k and a*k, so the totals agree. */
static void make_indexed(struct xfer *x, char *dst_base, char *src_base, size_t scale)
{
    size_t u = 1 + rnd(scale > 1 ? 16 : 8), a = 1 + rnd(6), b = 1 + rnd(6);
    size_t k = rnd(8) == 0 ? 0 : 1 + rnd(scale > 1 ? 400 : 12);
    x->src.len = u * a;
    x->dst.len = u * b;
    x->src.count = b * k;
    x->dst.count = a * k;
    x->total = u * a * b * k;
    x->src.addrs = calloc(x->src.count + 1, sizeof(void *));
    x->dst.addrs = calloc(x->dst.count + 1, sizeof(void *));
    for (size_t i = 0; i < x->src.count; i++) {
        x->src.addrs[i] = src_base + rnd(AREA / 2 - x->src.len);
        add_piece(&x->src, x->src.addrs[i], x->src.len);
    }
    size_t *lens = calloc(x->dst.count + 1, sizeof *lens);
    for (size_t i = 0; i < x->dst.count; i++)
        lens[i] = x->dst.len;
    disjoint(dst_base, AREA / 2, lens, x->dst.count, (char **)x->dst.addrs);
    for (size_t i = 0; i < x->dst.count; i++)
        add_piece(&x->dst, x->dst.addrs[i], x->dst.len);
    free(lens);
}

static size_t extent(const size_t *strides, const size_t *counts, size_t levels)
{
    size_t e = counts[0];
    for (size_t k = 1; k <= levels; k++)
        e += (counts[k] - 1) * strides[k - 1];
    return e;
}

static void expand_strided(struct side *s, const size_t *counts, size_t levels)
{
    size_t idx[MAXLEV + 1] = { 0 };
    for (size_t k = 0; k <= levels; k++)
        if (counts[k] == 0)
            return;
    for (;;) {
        char *at = s->base;
        for (size_t k = 1; k <= levels; k++)
            at += idx[k] * s->strides[k - 1];
        add_piece(s, at, counts[0]);
        size_t k = 1;
        while (k <= levels && ++idx[k] == counts[k])
            idx[k++] = 0;
        if (k > levels)
            return;
    }
}

static void make_strided(struct xfer *x, char *dst_base, char *src_base, size_t scale)
{
    for (;;) {
        x->levels = rnd(MAXLEV);
        x->counts[0] = scale > 1 ? scale : 1 + rnd(48);
        for (size_t k = 1; k <= x->levels; k++)
            x->counts[k] = rnd(25) == 0 ? (rnd(3) == 0 ? 0 : 1) : 1 + rnd(scale > 1 ? 3 : 5);
        if (scale > 1) {
            x->levels = 1;
            x->counts[1] = 200;
        }
        struct side *sides[2] = { &x->dst, &x->src };
        for (int s = 0; s < 2; s++) {
            sides[s]->strides[0] = x->counts[0] + rnd(3) * rnd(20);
            for (size_t k = 1; k < x->levels; k++)
                sides[s]->strides[k] = x->counts[k] * sides[s]->strides[k - 1] + rnd(2) * rnd(10);
            sides[s]->strides[x->levels] = 0xdeadbeef; /* read by nobody, as in testvis */
        }
        size_t de = extent(x->dst.strides, x->counts, x->levels);
        size_t se = extent(x->src.strides, x->counts, x->levels);
        int empty = 0;
        for (size_t k = 0; k <= x->levels; k++)
            empty |= x->counts[k] == 0;
        if (!empty && (de > AREA / 2 || se > AREA / 2))
            continue;
        x->dst.base = dst_base + (empty ? 0 : rnd(AREA / 2 - de + 1));
        x->src.base = src_base + (empty ? 0 : rnd(AREA / 2 - se + 1));
        break;
    }
    expand_strided(&x->dst, x->counts, x->levels);
    expand_strided(&x->src, x->counts, x->levels);
    x->total = 0;
    for (size_t i = 0; i < x->dst.np; i++)
        x->total += x->dst.p[i].len;
}

static void make(struct xfer *x, enum form form, char *dst_base, char *src_base, size_t scale)
{
    memset(x, 0, sizeof *x);
    x->form = form;
    if (form == VEC)
        make_vector(x, dst_base, src_base, scale);
    else if (form == IDX)
        make_indexed(x, dst_base, src_base, scale);
    else
        make_strided(x, dst_base, src_base, scale);
}

/* After an _nb / _nbi call returns, the metadata is the client's again. */
static void scribble(struct xfer *x, struct xfer *saved)
{
    *saved = *x;
    if (x->src.vec) {
        saved->src.vec = malloc((x->src.count + 1) * sizeof *x->src.vec);
        memcpy(saved->src.vec, x->src.vec, (x->src.count + 1) * sizeof *x->src.vec);
        memset(x->src.vec, 0x77, x->src.count * sizeof *x->src.vec);
    }
    if (x->dst.vec) {
        saved->dst.vec = malloc((x->dst.count + 1) * sizeof *x->dst.vec);
        memcpy(saved->dst.vec, x->dst.vec, (x->dst.count + 1) * sizeof *x->dst.vec);
        memset(x->dst.vec, 0x77, x->dst.count * sizeof *x->dst.vec);
    }
    if (x->src.addrs) {
        saved->src.addrs = malloc((x->src.count + 1) * sizeof(void *));
        memcpy(saved->src.addrs, x->src.addrs, (x->src.count + 1) * sizeof(void *));
        memset(x->src.addrs, 0x77, x->src.count * sizeof(void *));
    }
    if (x->dst.addrs) {
        saved->dst.addrs = malloc((x->dst.count + 1) * sizeof(void *));
        memcpy(saved->dst.addrs, x->dst.addrs, (x->dst.count + 1) * sizeof(void *));
        memset(x->dst.addrs, 0x77, x->dst.count * sizeof(void *));
    }
    memset(x->counts, 0x77, sizeof x->counts);
    memset(x->dst.strides, 0x77, sizeof x->dst.strides);
    memset(x->src.strides, 0x77, sizeof x->src.strides);
}

static void restore(struct xfer *x, struct xfer *saved)
{
    free(x->src.vec);
    free(x->dst.vec);
    free(x->src.addrs);
    free(x->dst.addrs);
    *x = *saved;
}

static gasnet_handle_t issue(int is_put, struct xfer *x, gasnet_node_t node, enum sync sync)
{
    struct side *d = &x->dst, *s = &x->src;
    if (is_put) {
        switch (x->form * NSYNCS + (sync == REGION ? NBI : sync)) {
        case VEC * NSYNCS + BLOCKING: gasnet_putv_bulk(node, d->count, d->vec, s->count, s->vec); break;
        case VEC * NSYNCS + NB: return gasnet_putv_nb_bulk(node, d->count, d->vec, s->count, s->vec);
        case VEC * NSYNCS + NBI: gasnet_putv_nbi_bulk(node, d->count, d->vec, s->count, s->vec); break;
        case IDX * NSYNCS + BLOCKING: gasnet_puti_bulk(node, d->count, d->addrs, d->len, s->count, s->addrs, s->len); break;
        case IDX * NSYNCS + NB: return gasnet_puti_nb_bulk(node, d->count, d->addrs, d->len, s->count, s->addrs, s->len);
        case IDX * NSYNCS + NBI: gasnet_puti_nbi_bulk(node, d->count, d->addrs, d->len, s->count, s->addrs, s->len); break;
        case STR * NSYNCS + BLOCKING: gasnet_puts_bulk(node, d->base, d->strides, s->base, s->strides, x->counts, x->levels); break;
        case STR * NSYNCS + NB: return gasnet_puts_nb_bulk(node, d->base, d->strides, s->base, s->strides, x->counts, x->levels);
        case STR * NSYNCS + NBI: gasnet_puts_nbi_bulk(node, d->base, d->strides, s->base, s->strides, x->counts, x->levels); break;
        }
    } else {
        switch (x->form * NSYNCS + (sync == REGION ? NBI : sync)) {
        case VEC * NSYNCS + BLOCKING: gasnet_getv_bulk(d->count, d->vec, node, s->count, s->vec); break;
        case VEC * NSYNCS + NB: return gasnet_getv_nb_bulk(d->count, d->vec, node, s->count, s->vec);
        case VEC * NSYNCS + NBI: gasnet_getv_nbi_bulk(d->count, d->vec, node, s->count, s->vec); break;
        case IDX * NSYNCS + BLOCKING: gasnet_geti_bulk(d->count, d->addrs, d->len, node, s->count, s->addrs, s->len); break;
        case IDX * NSYNCS + NB: return gasnet_geti_nb_bulk(d->count, d->addrs, d->len, node, s->count, s->addrs, s->len);
        case IDX * NSYNCS + NBI: gasnet_geti_nbi_bulk(d->count, d->addrs, d->len, node, s->count, s->addrs, s->len); break;
        case STR * NSYNCS + BLOCKING: gasnet_gets_bulk(d->base, d->strides, node, s->base, s->strides, x->counts, x->levels); break;
        case STR * NSYNCS + NB: return gasnet_gets_nb_bulk(d->base, d->strides, node, s->base, s->strides, x->counts, x->levels);
        case STR * NSYNCS + NBI: gasnet_gets_nbi_bulk(d->base, d->strides, node, s->base, s->strides, x->counts, x->levels); break;
        }
    }
    return GASNET_INVALID_HANDLE;
}

/* Runs one transfer with the sync form, scribbling over the metadata when allowed. */
static void transfer(int is_put, struct xfer *x, gasnet_node_t node, enum sync sync)
{
    struct xfer saved;
    if (sync == REGION)
        gasnet_begin_nbi_accessregion();
    gasnet_handle_t h = issue(is_put, x, node, sync);
    if (sync != BLOCKING)
        scribble(x, &saved);
    if (sync == NB)
        gasnet_wait_syncnb(h);
    else if (sync == NBI && is_put)
        gasnet_wait_syncnbi_puts();
    else if (sync == NBI)
        gasnet_wait_syncnbi_gets();
    else if (sync == REGION)
        gasnet_wait_syncnb(gasnet_end_nbi_accessregion());
    if (sync != BLOCKING)
        restore(x, &saved);
}

static void span_of(const struct side *s, char **lo, char **hi)
{
    *lo = NULL;
    *hi = NULL;
    for (size_t i = 0; i < s->np; i++) {
        if (s->p[i].len == 0)
            continue;
        if (*lo == NULL || s->p[i].addr < *lo)
            *lo = s->p[i].addr;
        if (*hi == NULL || s->p[i].addr + s->p[i].len > *hi)
            *hi = s->p[i].addr + s->p[i].len;
    }
}

/* What the destination span [lo, hi) must hold: FILL, and the stream in the pieces. */
static unsigned char *expected(const struct xfer *x, const unsigned char *stream, char *lo, char *hi)
{
    unsigned char *want = malloc((size_t)(hi - lo) + 1);
    memset(want, FILL, (size_t)(hi - lo));
    size_t at = 0;
    for (size_t i = 0; i < x->dst.np; i++) {
        if (x->dst.p[i].len == 0)
            continue; /* {NULL, 0} */
        memcpy(want + (x->dst.p[i].addr - lo), stream + at, x->dst.p[i].len);
        at += x->dst.p[i].len;
    }
    return want;
}

static void compare(const unsigned char *got, const unsigned char *want, size_t n, int is_put,
                    const struct xfer *x, gasnet_node_t node, enum sync sync, const char *where)
{
    for (size_t i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s %s %s to node %u (%s, %zu bytes, local %s): byte %zu of the "
              "destination span is 0x%02x, expected 0x%02x", form_name[x->form],
              is_put ? "put" : "get", sync_name[sync], node, where, x->total,
              where, i, got[i], want[i]);
}

static void one_put(enum form form, enum sync sync, gasnet_node_t node, char *remote, char *local,
                    size_t scale)
{
    struct xfer x;
    make(&x, form, remote, local, scale);
    unsigned char *stream = malloc(x.total + 1);
    for (size_t i = 0; i < AREA / 2; i++)
        local[i] = (char)rnd(256);
    size_t at = 0;
    for (size_t i = 0; i < x.src.np; i++) {
        if (x.src.p[i].len == 0)
            continue; /* {NULL, 0} */
        memcpy(stream + at, x.src.p[i].addr, x.src.p[i].len);
        at += x.src.p[i].len;
    }
    char *lo, *hi;
    span_of(&x.dst, &lo, &hi);
    if (lo != NULL)
        gasnet_memset(node, lo, FILL, (size_t)(hi - lo));
    transfer(1, &x, node, sync);
    if (lo != NULL) {
        unsigned char *got = malloc((size_t)(hi - lo));
        gasnet_get_bulk(got, node, lo, (size_t)(hi - lo));
        unsigned char *want = expected(&x, stream, lo, hi);
        compare(got, want, (size_t)(hi - lo), 1, &x, node, sync,
                local == heap ? "heap" : "segment");
        free(got);
        free(want);
    }
    free(stream);
    free_xfer(&x);
    __atomic_fetch_add(&puts_done, 1, __ATOMIC_RELAXED);
}

static void one_get(enum form form, enum sync sync, gasnet_node_t node, char *local, size_t scale)
{
    struct xfer x;
    char *remote = area(node, PUBLISHED);
    make(&x, form, local, remote, scale);
    unsigned char *stream = malloc(x.total + 1);
    size_t at = 0;
    for (size_t i = 0; i < x.src.np; i++)
        for (size_t b = 0; b < x.src.p[i].len; b++)
            stream[at++] = published(node, (size_t)(x.src.p[i].addr - remote) + b);
    char *lo, *hi;
    span_of(&x.dst, &lo, &hi);
    if (lo != NULL)
        memset(lo, FILL, (size_t)(hi - lo));
    transfer(0, &x, node, sync);
    if (lo != NULL) {
        unsigned char *want = expected(&x, stream, lo, hi);
        compare((unsigned char *)lo, want, (size_t)(hi - lo), 0, &x, node, sync,
                local == heap ? "heap" : "segment");
        free(want);
    }
    free(stream);
    free_xfer(&x);
    __atomic_fetch_add(&gets_done, 1, __ATOMIC_RELAXED);
}

static void *worker(void *arg)
{
    tid = (int)(intptr_t)arg;
    heap = malloc(AREA);
    CHECK(heap != NULL, "heap");
    rng += me * 7919 + (unsigned long long)tid * 104729;
    gasnet_node_t next = (me + 1) % nodes;
    for (int target = 0; target < 2; target++) {
        gasnet_node_t node = target ? me : next;
        char *remote = target ? area(me, LOOPBACK) : area(node, INBOX);
        for (int form = 0; form < NFORMS; form++) {
            for (int sync = 0; sync < NSYNCS; sync++) {
                for (int it = 0; it < ITERS; it++) {
                    char *local = it % 2 ? heap : area(me, LOCAL);
                    one_put((enum form)form, (enum sync)sync, node, remote, local, 1);
                    one_get((enum form)form, (enum sync)sync, node, local, 1);
                }
            }
            /* Large: many pieces, pieces larger than a message, many messages in flight. */
            size_t scale = form == VEC ? 150000 : form == IDX ? 2 : 1024;
            one_put((enum form)form, NB, node, remote, heap, scale);
            one_get((enum form)form, NBI, node, area(me, LOCAL), scale);
            one_put((enum form)form, BLOCKING, node, remote, area(me, LOCAL), scale);
            one_get((enum form)form, BLOCKING, node, heap, scale);
            if (form == VEC) {
                one_put(VEC, NBI, node, remote, heap, AREA / 2);
                one_get(VEC, NB, node, area(me, LOCAL), AREA / 2);
            }
        }
    }
    free(heap);
    return NULL;
}

static void run_all(void)
{
    for (size_t i = 0; i < AREA; i++)
        area(me, PUBLISHED)[i] = (char)published(me, i);
    barrier();
    pthread_t ids[MAXT];
    for (int t = 1; t < threads; t++)
        CHECK(pthread_create(&ids[t], NULL, worker, (void *)(intptr_t)t) == 0, "pthread_create");
    worker(NULL);
    for (int t = 1; t < threads; t++)
        pthread_join(ids[t], NULL);
    barrier();
    /* Before the last barrier: once a node is past it, its exit may end this one. */
    printf("vis: node %u verified %ld puts and %ld gets\n", me, puts_done, gets_done);
    if (me == 0)
        printf("vis on %u nodes x %d threads: vector, indexed and strided puts and gets, blocking, "
               "nb, nbi and in access regions, verified\n", nodes, threads);
    fflush(stdout);
    barrier();
}

static void run_zeroseg(void)
{
    for (size_t i = 0; me == 0 && i < AREA; i++)
        area(me, PUBLISHED)[i] = (char)published(me, i);
    barrier();
    if (me == 1) {
        heap = malloc(AREA);
        CHECK(heap != NULL, "heap");
        for (int form = 0; form < NFORMS; form++)
            for (int sync = 0; sync < NSYNCS; sync++) {
                one_put((enum form)form, (enum sync)sync, 0, area(0, INBOX), heap, 1);
                one_get((enum form)form, (enum sync)sync, 0, heap, 1);
            }
        one_put(IDX, NB, 0, area(0, INBOX), heap, 2);
        one_get(STR, NBI, 0, heap, 1024);
        free(heap);
        printf("vis zeroseg: node 1 without a segment verified %ld puts and %ld gets\n",
               puts_done, gets_done);
        fflush(stdout);
    }
    barrier();
}

static void misuse(int which)
{
    barrier();
    if (me == 0) {
        gasnet_node_t node = nodes - 1;
        char *base = seg[node].addr;
        char local[64];
        gasnet_memvec_t dst[3] = { { base, 8 }, { NULL, 0 }, { base + seg[node].size - 4, 8 } };
        gasnet_memvec_t src[1] = { { local, 16 } };
        void *addrs[2] = { base, base + seg[node].size };
        void *laddrs[2] = { local, local + 8 };
        size_t strides[1] = { 4 }, counts[2] = { 8, 2 }, ok_strides[1] = { 8 };
        switch (which) {
        case 1: gasnet_putv_bulk(node, 3, dst, 1, src); break;
        case 2: gasnet_geti_bulk(2, laddrs, 8, node, 2, addrs, 8); break;
        case 3: gasnet_puts_bulk(node, base, strides, local, ok_strides, counts, 1); break;
        case 4: gasnet_putv_bulk(node, 1, dst, 1, src); break;
        case 5: gasnet_puti_bulk(node, 0, addrs, 0, 0, laddrs, 8); break;
        case 6: { /* two destination entries over the same 8 bytes */
            gasnet_memvec_t twice[2] = { { base + 64, 8 }, { base + 64, 8 } };
            gasnet_getv_bulk(1, src, node, 2, twice); /* as a source, overlap is fine */
            gasnet_putv_bulk(node, 2, twice, 1, src);
            break;
        }
        default: break;
        }
        printf("misuse %d was not caught\n", which);
        fflush(stdout);
        gasnet_exit(3);
    }
    barrier();
    gasnet_exit(4);
}

int main(int argc, char **argv)
{
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    me = gasnet_mynode();
    nodes = gasnet_nodes();
    int zeroseg = argc >= 2 && strcmp(argv[1], "zeroseg") == 0;
    uintptr_t segsize = zeroseg && me == 1 ? 0 : (uintptr_t)NAREAS * MAXT * AREA;
    CHECK(gasnet_attach(NULL, 0, segsize, 0) == GASNET_OK, "attach");
    seg = calloc(nodes, sizeof *seg);
    CHECK(gasnet_getSegmentInfo(seg, (int)nodes) == GASNET_OK, "seginfo");
    if (argc >= 3 && strcmp(argv[1], "misuse") == 0)
        misuse(atoi(argv[2]));
    if (zeroseg) {
        CHECK(nodes == 2, "zeroseg runs on 2 nodes");
        run_zeroseg();
        free(seg);
        gasnet_exit(0);
    }
    CHECK(argc >= 2 && strcmp(argv[1], "all") == 0, "usage: vis all [THREADS] | vis misuse CASE");
#ifdef GASNET_PAR
    threads = argc >= 3 ? atoi(argv[2]) : 1;
#endif
    CHECK(threads >= 1 && threads <= MAXT, "threads %d: 1 to %d", threads, MAXT);
    run_all();
    free(seg);
    gasnet_exit(0);
    return 0;
}
