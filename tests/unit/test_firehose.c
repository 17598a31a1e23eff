/*
 * Firehose with fake registration callbacks: hits and misses, regions cut
 * at max_region_bytes, LRU eviction under the byte and region limits, busy
 * regions kept, registration failures, invalidation and the verbose line.
 * The fakes never touch the addresses, so the tests use made-up ones.
 */
#include "../harness/test.h"

#include <errno.h>
#include <unistd.h>

#include "nal/firehose.h"

#define MAX_CALLS 8192

struct fake {
    size_t regs, deregs;
    uintptr_t reg_base[MAX_CALLS];
    size_t reg_len[MAX_CALLS];
    uintptr_t dereg_base[MAX_CALLS];     /* base of each deregistered region, in order */
    size_t fail_len_above;               /* reg fails for longer ranges (0: never) */
    int fail_all;
};

/* A handle is 1 + the index of its reg call, so dereg can say which region went. */
static void *fake_reg(void *ctx, void *addr, size_t len)
{
    struct fake *f = ctx;
    if (f->fail_all || (f->fail_len_above != 0 && len > f->fail_len_above)) {
        errno = EFAULT;
        return NULL;
    }
    CHECK(f->regs < MAX_CALLS);
    f->reg_base[f->regs] = (uintptr_t)addr;
    f->reg_len[f->regs] = len;
    f->regs++;
    return (void *)(uintptr_t)f->regs;
}

static int fake_dereg(void *ctx, void *handle)
{
    struct fake *f = ctx;
    size_t index = (size_t)(uintptr_t)handle - 1;
    CHECK(index < f->regs);
    CHECK(f->deregs < MAX_CALLS);
    f->dereg_base[f->deregs++] = f->reg_base[index];
    return 0;
}

static struct fake fake;
static size_t page;

#define REGION ((size_t)128 * 1024)
#define BASE ((uintptr_t)1 << 32)   /* a multiple of every region size used here */

static struct firehose *make(uint64_t bytes, uint64_t regions)
{
    struct firehose_limits lim = { REGION, bytes, regions, 0, 0 };
    struct firehose_ops ops = { fake_reg, fake_dereg, &fake };
    struct firehose *fh;
    memset(&fake, 0, sizeof fake);
    page = (size_t)sysconf(_SC_PAGESIZE);
    fh = firehose_new(&lim, &ops);
    CHECK(fh != NULL);
    return fh;
}

static const void *at(uintptr_t offset)
{
    return (const void *)(BASE + offset);
}

static struct firehose_region *get(struct firehose *fh, uintptr_t offset, size_t len)
{
    size_t covered = 0;
    struct firehose_region *r = firehose_acquire(fh, at(offset), len, &covered);
    if (r == NULL)
        gp_test_fail(__FILE__, __LINE__, "acquire at +%#lx failed", (unsigned long)offset);
    CHECK_EQ(covered, len);
    return r;
}

static struct firehose_stats stats_of(const struct firehose *fh)
{
    struct firehose_stats s;
    firehose_get_stats(fh, &s);
    return s;
}

static void test_hit_and_miss(void)
{
    struct firehose *fh = make(64 * REGION, 64);
    struct firehose_region *r = get(fh, 100, 200), *again;
    CHECK_EQ(fake.regs, 1);
    CHECK_EQ(fake.reg_base[0], BASE);       /* the whole aligned block */
    CHECK_EQ(fake.reg_len[0], REGION);
    CHECK(firehose_handle(r) == (void *)(uintptr_t)1);
    CHECK_EQ((uintptr_t)firehose_base(r), BASE); /* where offsets count from */
    firehose_release(fh, r);
    /* Anything else in the block is a hit, held or not. */
    again = get(fh, REGION / 2, 1000);
    CHECK(again == r);
    struct firehose_region *third = get(fh, REGION - 10, 10);
    CHECK(third == r);
    firehose_release(fh, again);
    firehose_release(fh, third);
    struct firehose_stats s = stats_of(fh);
    CHECK_EQ(s.hits, 2);
    CHECK_EQ(s.misses, 1);
    CHECK_EQ(s.pinned_bytes, REGION);
    CHECK_EQ(s.pinned_regions, 1);
    CHECK_EQ(s.evictions, 0);
    CHECK_EQ(s.fallbacks, 0);
    CHECK_EQ(fake.regs, 1);
    CHECK_EQ(fake.deregs, 0);
    firehose_free(fh);
    CHECK_EQ(fake.deregs, 1);
}

static void test_covered_across_boundary(void)
{
    struct firehose *fh = make(64 * REGION, 64);
    size_t covered = 0;
    struct firehose_region *a = firehose_acquire(fh, at(REGION - 10), 100, &covered), *b;
    CHECK(a != NULL);
    CHECK_EQ(covered, 10);
    b = firehose_acquire(fh, at(REGION), 90, &covered);
    CHECK(b != NULL && b != a);
    CHECK_EQ(covered, 90);
    CHECK_EQ(fake.reg_base[1], BASE + REGION);
    /* A long range is covered one block at a time. */
    firehose_release(fh, a);
    firehose_release(fh, b);
    size_t done = 0, len = 5 * REGION + 7, rounds = 0;
    while (done < len) {
        struct firehose_region *r = firehose_acquire(fh, at(3 + done), len - done, &covered);
        CHECK(r != NULL);
        CHECK(covered >= 1 && covered <= REGION);
        done += covered;
        rounds++;
        firehose_release(fh, r);
    }
    CHECK_EQ(done, len);
    CHECK_EQ(rounds, 6);
    /* len 0 still covers one byte. */
    a = firehose_acquire(fh, at(0), 0, &covered);
    CHECK(a != NULL);
    CHECK_EQ(covered, 1);
    firehose_release(fh, a);
    firehose_free(fh);
}

static void test_lru_order(void)
{
    struct firehose *fh = make(64 * REGION, 3);
    for (uintptr_t i = 0; i < 3; i++)
        firehose_release(fh, get(fh, i * REGION, 8));
    firehose_release(fh, get(fh, 0, 8));            /* block 0 is now the newest */
    firehose_release(fh, get(fh, 3 * REGION, 8));   /* evicts block 1, the oldest */
    CHECK_EQ(fake.deregs, 1);
    CHECK_EQ(fake.dereg_base[0], BASE + REGION);
    firehose_release(fh, get(fh, 4 * REGION, 8));   /* then block 2 */
    CHECK_EQ(fake.deregs, 2);
    CHECK_EQ(fake.dereg_base[1], BASE + 2 * REGION);
    struct firehose_stats s = stats_of(fh);
    CHECK_EQ(s.evictions, 2);
    CHECK_EQ(s.pinned_regions, 3);
    CHECK_EQ(s.hits, 1);
    CHECK_EQ(s.misses, 5);
    /* Block 0 survived both evictions. */
    firehose_release(fh, get(fh, 16, 8));
    CHECK_EQ(stats_of(fh).hits, 2);
    firehose_free(fh);
}

static void test_byte_limit(void)
{
    struct firehose *fh = make(2 * REGION, 100);
    firehose_release(fh, get(fh, 0, 8));
    firehose_release(fh, get(fh, REGION, 8));
    CHECK_EQ(fake.deregs, 0);
    firehose_release(fh, get(fh, 2 * REGION, 8));
    CHECK_EQ(fake.deregs, 1);
    CHECK_EQ(fake.dereg_base[0], BASE);
    struct firehose_stats s = stats_of(fh);
    CHECK_EQ(s.pinned_bytes, 2 * REGION);
    CHECK_EQ(s.pinned_regions, 2);
    firehose_free(fh);
}

static void test_busy_never_evicted(void)
{
    struct firehose *fh = make(64 * REGION, 2);
    size_t covered = 0;
    struct firehose_region *a = get(fh, 0, 8), *b = get(fh, REGION, 8);
    CHECK(firehose_acquire(fh, at(2 * REGION), 8, &covered) == NULL);
    CHECK_EQ(fake.deregs, 0);
    CHECK_EQ(fake.regs, 2);
    CHECK_EQ(stats_of(fh).fallbacks, 1);
    /* A second holder of a keeps it busy after the first lets go. */
    struct firehose_region *a2 = get(fh, 64, 8);
    CHECK(a2 == a);
    firehose_release(fh, a);
    CHECK(firehose_acquire(fh, at(2 * REGION), 8, &covered) == NULL);
    CHECK_EQ(stats_of(fh).fallbacks, 2);
    firehose_release(fh, a2);
    struct firehose_region *c = get(fh, 2 * REGION, 8);
    CHECK_EQ(fake.deregs, 1);
    CHECK_EQ(fake.dereg_base[0], BASE);
    firehose_release(fh, b);
    firehose_release(fh, c);
    firehose_free(fh);
}

static void test_reg_failure(void)
{
    struct firehose *fh = make(64 * REGION, 64);
    size_t covered = 0;
    fake.fail_all = 1;
    CHECK(firehose_acquire(fh, at(0), 8, &covered) == NULL);
    struct firehose_stats s = stats_of(fh);
    CHECK_EQ(s.misses, 1);
    CHECK_EQ(s.fallbacks, 1);
    CHECK_EQ(s.pinned_regions, 0);
    /* The whole block fails (past the end of a mapping): the pages asked for do. */
    fake.fail_all = 0;
    fake.fail_len_above = page;
    struct firehose_region *r = get(fh, page + 10, 20);
    CHECK_EQ(fake.regs, 1);
    CHECK_EQ(fake.reg_base[0], BASE + page);
    CHECK_EQ(fake.reg_len[0], page);
    firehose_release(fh, r);
    CHECK(get(fh, page + 100, 8) == r);             /* the same page: a hit */
    firehose_release(fh, r);
    CHECK(firehose_acquire(fh, at(page - 1), 2, &covered) == NULL);  /* two pages: fails */
    CHECK_EQ(stats_of(fh).fallbacks, 2);
    firehose_free(fh);
}

static void test_small_pool(void)
{
    /* A pool smaller than a block still pins the pages asked for. */
    struct firehose *fh = make(2 * (uint64_t)sysconf(_SC_PAGESIZE), 8);
    struct firehose_region *r = get(fh, 0, 10);
    CHECK_EQ(fake.reg_len[0], page);
    firehose_release(fh, r);
    size_t covered;
    CHECK(firehose_acquire(fh, at(0), 3 * page, &covered) == NULL);
    firehose_free(fh);
}

static void test_invalidate(void)
{
    struct firehose *fh = make(64 * REGION, 64);
    struct firehose_region *idle = get(fh, 0, 8), *busy = get(fh, 2 * REGION, 8), *other;
    firehose_release(fh, idle);
    firehose_release(fh, get(fh, 5 * REGION, 8));
    firehose_invalidate(fh, at(REGION - 1), 2 * REGION);  /* touches blocks 0, 1 and 2 */
    CHECK_EQ(fake.deregs, 1);
    CHECK_EQ(fake.dereg_base[0], BASE);
    CHECK_EQ(stats_of(fh).pinned_regions, 2);
    /* The busy one is not handed out again... */
    other = get(fh, 2 * REGION + 8, 8);
    CHECK(other != busy);
    CHECK_EQ(fake.regs, 4);
    /* ...and goes at its last release. */
    firehose_release(fh, busy);
    CHECK_EQ(fake.deregs, 2);
    CHECK_EQ(fake.dereg_base[1], BASE + 2 * REGION);
    firehose_release(fh, other);
    /* Block 5 was outside the range; a huge range sweeps the whole table. */
    firehose_release(fh, get(fh, 5 * REGION, 8));
    CHECK_EQ(stats_of(fh).hits, 1);
    firehose_invalidate(fh, (const void *)0, SIZE_MAX);
    CHECK_EQ(stats_of(fh).pinned_regions, 0);
    CHECK_EQ(fake.deregs, 4);
    firehose_invalidate(fh, at(0), 0);
    firehose_free(fh);
    CHECK_EQ(fake.deregs, 4);
}

static void test_many_regions(void)
{
    enum { N = 5000 };
    struct firehose *fh = make((uint64_t)N * REGION, N);
    for (uintptr_t i = 0; i < N; i++)
        firehose_release(fh, get(fh, i * REGION + 8, 8));
    for (uintptr_t i = 0; i < N; i++)
        firehose_release(fh, get(fh, i * REGION + 16, 8));
    struct firehose_stats s = stats_of(fh);
    CHECK_EQ(s.misses, N);
    CHECK_EQ(s.hits, N);
    CHECK_EQ(s.evictions, 0);
    firehose_free(fh);
    CHECK_EQ(fake.deregs, N);
}

static void test_bad_limits(void)
{
    struct firehose_ops ops = { fake_reg, fake_dereg, &fake };
    struct firehose_limits good = { REGION, REGION, 1, 0, 0 }, lim;
    lim = good;
    lim.max_region_bytes = 0;
    CHECK(firehose_new(&lim, &ops) == NULL && errno == EINVAL);
    lim = good;
    lim.max_region_bytes = (uint64_t)sysconf(_SC_PAGESIZE) + 1;
    CHECK(firehose_new(&lim, &ops) == NULL && errno == EINVAL);
    lim = good;
    lim.max_victim_bytes = 0;
    CHECK(firehose_new(&lim, &ops) == NULL && errno == EINVAL);
    lim = good;
    lim.max_victim_regions = 0;
    CHECK(firehose_new(&lim, &ops) == NULL && errno == EINVAL);
    ops.reg = NULL;
    CHECK(firehose_new(&good, &ops) == NULL && errno == EINVAL);
    firehose_free(NULL);
}

static void test_verbose_summary(void)
{
    struct firehose_limits lim = { REGION, 4 * REGION, 4, 1, 0 };
    struct firehose_ops ops = { fake_reg, fake_dereg, &fake };
    struct firehose *fh;
    char output[2048];
    FILE *capture = tmpfile();
    int saved = dup(2);
    CHECK(capture != NULL && saved >= 0);
    memset(&fake, 0, sizeof fake);
    fh = firehose_new(&lim, &ops);
    CHECK(fh != NULL);
    firehose_release(fh, get(fh, 0, 8));
    firehose_release(fh, get(fh, 8, 8));
    struct firehose_region *held = get(fh, REGION, 8);
    (void)held;   /* still held at free: deregistered anyway, with a warning */
    fflush(stderr);
    CHECK(dup2(fileno(capture), 2) >= 0);
    firehose_free(fh);
    fflush(stderr);
    CHECK(dup2(saved, 2) >= 0);
    close(saved);
    rewind(capture);
    output[fread(output, 1, sizeof output - 1, capture)] = '\0';
    fclose(capture);
    CHECK_STR_CONTAINS(output, "firehose: 3 acquires: 1 hits (33.3%), 2 misses, 0 evictions, "
                               "0 fallbacks to bounce buffers; peak 262144 bytes pinned in 2 "
                               "regions");
    CHECK_STR_CONTAINS(output, "1 regions were still held at shutdown");
    CHECK_EQ(fake.deregs, 2);
}

/* drop_idle (GP_FIREHOSE_KEEP=0): a region lives while held, shared by
 * the transfers that overlap in time, and is gone at its last release. */
static void test_drop_idle(void)
{
    struct firehose_limits lim = { REGION, 64 * REGION, 64, 0, 1 };
    struct firehose_ops ops = { fake_reg, fake_dereg, &fake };
    memset(&fake, 0, sizeof fake);
    struct firehose *fh = firehose_new(&lim, &ops);
    CHECK(fh != NULL);
    struct firehose_region *first = get(fh, 0, 64);
    struct firehose_region *second = get(fh, 4096, 64);   /* same block, still held: a hit */
    CHECK(second == first);
    CHECK_EQ(fake.regs, 1);
    firehose_release(fh, first);
    CHECK_EQ(fake.deregs, 0);
    firehose_release(fh, second);
    CHECK_EQ(fake.deregs, 1);
    CHECK_EQ(stats_of(fh).pinned_regions, 0);
    CHECK_EQ(stats_of(fh).pinned_bytes, 0);
    /* The same addresses again (memory freed and reallocated meanwhile): a new registration. */
    firehose_release(fh, get(fh, 0, 64));
    CHECK_EQ(fake.regs, 2);
    CHECK_EQ(fake.deregs, 2);
    struct firehose_stats s = stats_of(fh);
    CHECK_EQ(s.hits, 1);
    CHECK_EQ(s.misses, 2);
    CHECK_EQ(s.evictions, 0);
    firehose_free(fh);
    CHECK_EQ(fake.deregs, 2);
}

static const struct gp_test tests[] = {
    { "hit_and_miss", test_hit_and_miss, 0 },
    { "covered_across_boundary", test_covered_across_boundary, 0 },
    { "lru_order", test_lru_order, 0 },
    { "byte_limit", test_byte_limit, 0 },
    { "busy_never_evicted", test_busy_never_evicted, 0 },
    { "reg_failure", test_reg_failure, 0 },
    { "small_pool", test_small_pool, 0 },
    { "invalidate", test_invalidate, 0 },
    { "many_regions", test_many_regions, 0 },
    { "bad_limits", test_bad_limits, 0 },
    { "verbose_summary", test_verbose_summary, 0 },
    { "drop_idle", test_drop_idle, 0 },
    GP_TEST_END
};

int main(int argc, char **argv)
{
    return gp_test_main(argc, argv, "firehose", tests);
}
