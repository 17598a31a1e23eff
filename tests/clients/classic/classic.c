/*
 * A GASNet-1 program in the style of GASNet's own test suite (test.h),
 * compiled unchanged against the installed gp with no flag beyond what
 * pkg-config or the fragment gives: it checks the configuration macros
 * with #if, wraps gasnet_attach by #undef (spec 5.7), calls
 * gasnet_getNodeInfo and gasnet_set_waitmode in its init, prints the
 * conduit information, and uses the variable-argument AM forms,
 * gasnet_coll_broadcast, gasnet_barrier and gasnet_barrier_result.
 */
#include <gasnet.h>
#include <gasnet_tools.h>
#include <gasnet_coll.h>
#include <gasnet_config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Feature checks a GASNet-1 client makes at compile time. */
#if GASNET_SPEC_VERSION_MAJOR != 1 || GASNET_VERSION != GASNET_SPEC_VERSION_MAJOR
#error "not a GASNet-1 implementation"
#endif
#if GASNET_RELEASE_VERSION_MAJOR < 1 || \
    (GASNET_RELEASE_VERSION_MAJOR == 1 && GASNET_RELEASE_VERSION_MINOR < 22)
#error "needs gasnet_barrier_result, GASNET_BARRIERFLAG_UNNAMED and the varargs AM calls (1.22)"
#endif
#if !GASNET_CONDUIT_PORTALS || !defined(GASNET_CONDUIT_NAME)
#error "conduit macros missing"
#endif
#if GASNET_ALIGNED_SEGMENTS != 0 && GASNET_ALIGNED_SEGMENTS != 1
#error "GASNET_ALIGNED_SEGMENTS must be 0 or 1"
#endif
#if GASNET_PAGESIZE <= 0 || SIZEOF_GASNET_REGISTER_VALUE_T < 4 || GASNET_MAXNODES < 1
#error "bad compile-time constants"
#endif
#if !defined(GASNET_SEQ) + !defined(GASNET_PAR) + !defined(GASNET_PARSYNC) != 2
#error "exactly one thread model"
#endif
#ifndef GASNET_BARRIERFLAG_UNNAMED
#error "GASNET_BARRIERFLAG_UNNAMED"
#endif

#define GASNET_Safe(fncall)                                                               \
    do {                                                                                  \
        int _retval = (fncall);                                                           \
        if (_retval != GASNET_OK) {                                                       \
            fprintf(stderr, "ERROR calling: %s\n at: %s:%i\n error: %s (%s)\n", #fncall,  \
                    __FILE__, __LINE__, gasnet_ErrorName(_retval), gasnet_ErrorDesc(_retval)); \
            gasnet_exit(_retval);                                                         \
        }                                                                                 \
    } while (0)
#define BARRIER()                                                       \
    do {                                                                \
        gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);         \
        GASNET_Safe(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS)); \
    } while (0)
#define MSG(...) do { printf("classic node %u: ", (unsigned)gasnet_mynode()); printf(__VA_ARGS__); printf("\n"); fflush(stdout); } while (0)
#define ERR(...) do { fprintf(stderr, "classic node %u: ERROR: ", (unsigned)gasnet_mynode()); fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); gasnet_exit(1); } while (0)

/* The test.h trick: wrap gasnet_attach to do more around it. */
static int attach_wrapped;
static int _test_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize, uintptr_t minheap)
{
    attach_wrapped = 1;
    return (gasnet_attach)(table, numentries, segsize, minheap);
}
#undef gasnet_attach
#define gasnet_attach _test_attach

/* Wrap an AM call the way tracing clients do: count, then call the real one. */
static int short_calls;
#undef gasnet_AMRequestShort3
#define gasnet_AMRequestShort3(dest, h, a0, a1, a2) \
    (short_calls++, (gasnet_AMRequestShort3)(dest, h, a0, a1, a2))

#define hidx_ping 201
#define hidx_pong 202
#define hidx_medium 203
static volatile int pongs;
static int64_t pong_sum;

static void ping(gasnet_token_t token, gasnet_handlerarg_t a, gasnet_handlerarg_t b, gasnet_handlerarg_t c)
{
    GASNET_Safe(gasnet_AMReplyShort(token, hidx_pong, 3, a + 1, b + 1, c + 1));
}
static void pong(gasnet_token_t token, gasnet_handlerarg_t a, gasnet_handlerarg_t b, gasnet_handlerarg_t c)
{
    (void)token;
    pong_sum += (int64_t)a + b + c;
    pongs++;
}
static void medium(gasnet_token_t token, void *buf, size_t nbytes, gasnet_handlerarg_t a,
                   gasnet_handlerarg_t b)
{
    gasnet_node_t src;
    GASNET_Safe(gasnet_AMGetMsgSource(token, &src));
    if (nbytes != (size_t)a || b != (gasnet_handlerarg_t)src || strcmp(buf, "hello") != 0)
        ERR("medium: %zu bytes, args %d %d", nbytes, (int)a, (int)b);
    pongs++;
}

int main(int argc, char **argv)
{
    gasnet_handlerentry_t htable[] = {
        { hidx_ping, ping }, { hidx_pong, pong }, { hidx_medium, medium },
    };
    GASNET_Safe(gasnet_init(&argc, &argv));
    GASNET_Safe(gasnet_attach(htable, sizeof htable / sizeof htable[0], 64 * GASNET_PAGESIZE, 0));
    gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
    if (!attach_wrapped)
        ERR("gasnet_attach wrapper not called");
    gasnet_nodeinfo_t *info = calloc(n, sizeof *info);
    GASNET_Safe(gasnet_getNodeInfo(info, (int)n));
    GASNET_Safe(gasnet_set_waitmode(GASNET_WAIT_SPINBLOCK));
    if (me == 0) {
        MSG("%s", GASNET_CONFIG_STRING);
        MSG("conduit %s (core %s %s, extended %s %s), aligned segments %d, MaxArgs %d, "
            "MaxMedium %d, MaxLongRequest %lu, MaxLongReply %lu",
            GASNET_CONDUIT_NAME_STR, _STRINGIFY(GASNET_CORE_NAME), _STRINGIFY(GASNET_CORE_VERSION),
            _STRINGIFY(GASNET_EXTENDED_NAME), _STRINGIFY(GASNET_EXTENDED_VERSION),
            GASNET_ALIGNED_SEGMENTS, (int)gasnet_AMMaxArgs(), (int)gasnet_AMMaxMedium(),
            (unsigned long)gasnet_AMMaxLongRequest(), (unsigned long)gasnet_AMMaxLongReply());
    }
    if (strstr(GASNET_CONFIG_STRING, "CONDUIT=PORTALS") == NULL)
        ERR("config string %s", GASNET_CONFIG_STRING);
    for (gasnet_node_t i = 0; i < n; i++)
        if (info[i].host != info[me].host && info[i].supernode == info[me].supernode)
            ERR("node %u shares a supernode but not a host", (unsigned)i);

    /* TEST_COLL_INIT and TEST_BCAST, as test.h spells them. */
    gasnet_coll_init(0, 0, 0, 0, 0);
    int64_t stamp = me == 0 ? (int64_t)0x1234567887654321ll : 0;
    gasnet_coll_broadcast(GASNET_TEAM_ALL, &stamp, 0, &stamp, sizeof stamp,
                          GASNET_COLL_LOCAL | GASNET_COLL_IN_ALLSYNC | GASNET_COLL_OUT_ALLSYNC);
    if (stamp != (int64_t)0x1234567887654321ll)
        ERR("broadcast gave %llx", (unsigned long long)stamp);
    BARRIER();

    /* Variable-argument AMs to everyone, and a wrapped fixed-arity name. */
    gasnet_node_t peer = (me + 1) % n;
    for (gasnet_node_t i = 0; i < n; i++)
        GASNET_Safe(gasnet_AMRequestShort(i, hidx_ping, 3, 10, 20, (int)me));
    GASNET_Safe(gasnet_AMRequestMedium(peer, hidx_medium, "hello", 6, 2, 6, (int)me));
    GASNET_BLOCKUNTIL(pongs == (int)n + 1);
    GASNET_Safe(gasnet_AMRequestShort3(peer, hidx_ping, 1, 2, 3));
    GASNET_BLOCKUNTIL(pongs == (int)n + 2);
    if (short_calls != 1)
        ERR("wrapped gasnet_AMRequestShort3 called %d times", short_calls);
    /* Each pong adds its ping's arguments plus 3. */
    int64_t want = (int64_t)n * (10 + 20 + (int64_t)me + 3) + (1 + 2 + 3 + 3);
    if (pong_sum != want)
        ERR("pong sum %lld, expected %lld", (long long)pong_sum, (long long)want);

    /* Named and unnamed barriers, and what they report. */
    int id = -1;
    GASNET_Safe(gasnet_barrier(77, 0));
    if (gasnet_barrier_result(&id) != 0 || id != 77)
        ERR("barrier_result after named 77: id %d", id);
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_UNNAMED);
    GASNET_Safe(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_UNNAMED));
    if (gasnet_barrier_result(&id) == 0)
        ERR("UNNAMED phase reported as named");

    MSG("done: %u nodes, varargs AMs, wrapped names, coll_broadcast, barrier_result OK", (unsigned)n);
    BARRIER();
    free(info);
    gasnet_exit(0);
    return 0;
}
