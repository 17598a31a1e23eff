/*
 * A distributed hash table over GASNet-1 active messages, using only the
 * installed headers.  Keys hash to an owner node; each node keeps its part
 * in private memory (open addressing), guarded by a handler-safe lock.
 *
 *   insert   AMRequestMedium carrying {key, value} to the owner, whose
 *            handler inserts or overwrites and replies "new" or "updated"
 *   lookup   AMRequestShort4 (key, result slot) to the owner, whose handler
 *            replies found/value into the requester's slot (AMReplyShort4)
 *
 * Every node inserts K keys, then overwrites half of them; then every node
 * looks up every key of every node (and as many absent keys), checking each
 * value and each absence.  Built with the PAR fragment, two threads share
 * the lookups.  Usage: dht [K].
 */
#include <gasnet.h>
#include <gasnet_tools.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef GASNET_PAR
#include <pthread.h>
#define THREADS 2
#else
#define THREADS 1
#endif

#define H_INSERT 220
#define H_INSERTED 221
#define H_LOOKUP 222
#define H_FOUND 223
#define WINDOW 64

static gasnet_node_t me, nodes;

#define FAIL(...)                                                   \
    do {                                                            \
        fprintf(stderr, "dht node %u: ", (unsigned)me);             \
        fprintf(stderr, __VA_ARGS__);                               \
        fputc('\n', stderr);                                        \
        gasnet_exit(1);                                             \
    } while (0)

/* ---- the local part of the table ---- */

struct entry {
    uint64_t key;
    int64_t value;
    int used;
};
static struct entry *table;
static uint64_t capacity, stored;
static gasnet_hsl_t table_lock = GASNET_HSL_INITIALIZER;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}
static gasnet_node_t owner_of(uint64_t key) { return (gasnet_node_t)(mix(key) % nodes); }

/* Returns 1 if the key is new, 0 if its value was replaced.  Lock held. */
static int local_insert(uint64_t key, int64_t value)
{
    for (uint64_t i = mix(key * 31 + 7) & (capacity - 1);; i = (i + 1) & (capacity - 1)) {
        if (!table[i].used) {
            if (++stored > capacity / 2)
                FAIL("table over half full");
            table[i] = (struct entry){ key, value, 1 };
            return 1;
        }
        if (table[i].key == key) {
            table[i].value = value;
            return 0;
        }
    }
}

static const struct entry *local_find(uint64_t key)
{
    for (uint64_t i = mix(key * 31 + 7) & (capacity - 1); table[i].used; i = (i + 1) & (capacity - 1))
        if (table[i].key == key)
            return &table[i];
    return NULL;
}

/* ---- messages ---- */

#define HI(v) ((gasnet_handlerarg_t)(uint32_t)((uint64_t)(v) >> 32))
#define LO(v) ((gasnet_handlerarg_t)(uint32_t)(uint64_t)(v))
static uint64_t join(gasnet_handlerarg_t hi, gasnet_handlerarg_t lo)
{
    return (uint64_t)(uint32_t)hi << 32 | (uint32_t)lo;
}

struct kv {
    uint64_t key;
    int64_t value;
};
static gasnett_atomic_t inserted_new = gasnett_atomic_init(0), inserted_old = gasnett_atomic_init(0);

static void insert_handler(gasnet_token_t token, void *buf, size_t nbytes)
{
    struct kv kv;
    if (nbytes != sizeof kv)
        FAIL("insert of %zu bytes", nbytes);
    memcpy(&kv, buf, sizeof kv);
    gasnet_hsl_lock(&table_lock);
    int fresh = local_insert(kv.key, kv.value);
    gasnet_hsl_unlock(&table_lock);
    gasnet_AMReplyShort1(token, H_INSERTED, fresh);
}

static void inserted_handler(gasnet_token_t token, gasnet_handlerarg_t fresh)
{
    (void)token;
    gasnett_atomic_increment(fresh ? &inserted_new : &inserted_old, 0);
}

struct result {
    volatile int done;
    int found;
    int64_t value;
};
static struct result *results; /* one per lookup in flight, by slot */

static void lookup_handler(gasnet_token_t token, gasnet_handlerarg_t hi, gasnet_handlerarg_t lo,
                           gasnet_handlerarg_t slot)
{
    gasnet_hsl_lock(&table_lock);
    const struct entry *e = local_find(join(hi, lo));
    int64_t value = e ? e->value : 0;
    gasnet_hsl_unlock(&table_lock);
    gasnet_AMReplyShort4(token, H_FOUND, slot, e != NULL, HI(value), LO(value));
}

static void found_handler(gasnet_token_t token, gasnet_handlerarg_t slot, gasnet_handlerarg_t found,
                          gasnet_handlerarg_t hi, gasnet_handlerarg_t lo)
{
    (void)token;
    results[slot].found = found;
    results[slot].value = (int64_t)join(hi, lo);
    gasnett_local_wmb();
    results[slot].done = 1;
}

static gasnet_handlerentry_t handlers[] = {
    { H_INSERT, (void (*)())insert_handler },
    { H_INSERTED, (void (*)())inserted_handler },
    { H_LOOKUP, (void (*)())lookup_handler },
    { H_FOUND, (void (*)())found_handler },
};

/* ---- the program ---- */

static int k;
static uint64_t key_of(gasnet_node_t node, int i) { return ((uint64_t)node << 32) + (uint64_t)i * 2 + 1; }
static uint64_t absent_key(gasnet_node_t node, int i) { return ((uint64_t)node << 32) + (uint64_t)i * 2 + 2; }
static int64_t value_of(uint64_t key, int version) { return (int64_t)(mix(key) >> 1) + version; }
/* The second round overwrites the even-numbered keys. */
static int version_of(int i) { return i % 2 == 0 ? 1 : 0; }

static void check(uint64_t key, const struct result *r, int want_found, int64_t want)
{
    if (r->found != want_found)
        FAIL("key %#" PRIx64 ": %s, expected %s", key, r->found ? "found" : "absent",
             want_found ? "found" : "absent");
    if (want_found && r->value != want)
        FAIL("key %#" PRIx64 ": value %" PRId64 ", expected %" PRId64, key, r->value, want);
}

/* Thread t looks up every key of the nodes t, t+THREADS, ..., a window at a time. */
static void *lookups(void *arg)
{
    int t = (int)(intptr_t)arg;
    struct result *mine = results + t * 2 * WINDOW;
    for (gasnet_node_t node = (gasnet_node_t)t; node < nodes; node += THREADS)
        for (int base = 0; base < k; base += WINDOW) {
            int n = k - base < WINDOW ? k - base : WINDOW;
            for (int j = 0; j < n; j++) {
                uint64_t present = key_of(node, base + j), absent = absent_key(node, base + j);
                mine[2 * j].done = mine[2 * j + 1].done = 0;
                gasnet_AMRequestShort3(owner_of(present), H_LOOKUP, HI(present), LO(present),
                                       (gasnet_handlerarg_t)(t * 2 * WINDOW + 2 * j));
                gasnet_AMRequestShort3(owner_of(absent), H_LOOKUP, HI(absent), LO(absent),
                                       (gasnet_handlerarg_t)(t * 2 * WINDOW + 2 * j + 1));
            }
            for (int j = 0; j < n; j++) {
                GASNET_BLOCKUNTIL(mine[2 * j].done && mine[2 * j + 1].done);
                uint64_t present = key_of(node, base + j);
                check(present, &mine[2 * j], 1, value_of(present, version_of(base + j)));
                check(absent_key(node, base + j), &mine[2 * j + 1], 0, 0);
            }
        }
    return NULL;
}

int main(int argc, char **argv)
{
    if (gasnet_init(&argc, &argv) != GASNET_OK || gasnet_attach(handlers, 4, 0, 0) != GASNET_OK)
        return 1;
    me = gasnet_mynode();
    nodes = gasnet_nodes();
    k = argc > 1 ? atoi(argv[1]) : 2000;
    for (capacity = 64; capacity < 4 * (uint64_t)k; capacity *= 2)
        ;
    table = calloc(capacity, sizeof *table);
    results = calloc(THREADS * 2 * WINDOW, sizeof *results);
    if (table == NULL || results == NULL)
        FAIL("out of memory");
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);

    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < k; i++) {
            if (round == 1 && version_of(i) == 0)
                continue;
            struct kv kv = { key_of(me, i), value_of(key_of(me, i), round) };
            gasnet_AMRequestMedium0(owner_of(kv.key), H_INSERT, &kv, sizeof kv);
        }
        uint64_t want = round == 0 ? (uint64_t)k : (uint64_t)k + (uint64_t)(k + 1) / 2;
        GASNET_BLOCKUNTIL(gasnett_atomic_read(&inserted_new, 0) + gasnett_atomic_read(&inserted_old, 0) == want);
        gasnet_barrier(round + 1, 0);
    }
    if (gasnett_atomic_read(&inserted_new, 0) != (uint64_t)k)
        FAIL("%lu inserts were new, expected %d", (unsigned long)gasnett_atomic_read(&inserted_new, 0), k);

    /* Every node's share, counted here: what this node must hold. */
    uint64_t owned = 0;
    for (gasnet_node_t node = 0; node < nodes; node++)
        for (int i = 0; i < k; i++)
            owned += owner_of(key_of(node, i)) == me;
    if (stored != owned)
        FAIL("holds %" PRIu64 " keys, expected %" PRIu64, stored, owned);

#ifdef GASNET_PAR
    pthread_t helper[THREADS];
    for (int t = 1; t < THREADS; t++)
        if (pthread_create(&helper[t], NULL, lookups, (void *)(intptr_t)t) != 0)
            FAIL("pthread_create");
    lookups((void *)0);
    for (int t = 1; t < THREADS; t++)
        pthread_join(helper[t], NULL);
#else
    lookups((void *)0);
#endif
    printf("dht: %u nodes, %d threads: %" PRIu64 " keys inserted, %d overwritten, every key and "
           "%" PRIu64 " absent keys looked up and verified\n", (unsigned)nodes, THREADS,
           (uint64_t)nodes * k, (int)nodes * ((k + 1) / 2), (uint64_t)nodes * k);
    fflush(stdout);
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    free(results);
    free(table);
    gasnet_exit(0);
    return 0;
}
