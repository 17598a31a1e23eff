/*
 * GASNet-1 call rules clients rely on (spec extensions 4):
 *   - gasnet.h alone gives the standard headers (this file includes no
 *     <string.h>, <stdio.h> or <stdlib.h>), gasnet_config.h's HAVE_* and
 *     SIZEOF_* literals, and PLATFORM_ARCH_64 (gasnet_tools.h not included);
 *   - gasnet_max_segsize bounds the segment; gasnet_client_attach_hook runs;
 *   - gasnet_getNodeInfo answers between init and attach, as after;
 *   - a request to self runs inside the call, with handler context (no
 *     request or poll from the handler, one reply), a Long's payload in
 *     place, the reply handler nested -- and a main loop spinning on a flag
 *     such a handler sets, doing only puts to a mapped peer, ends;
 *   - gasnett_run_diagnostics passes with its handlers registered.
 * Prints "call_rules: node I of N ok" when every check held.
 */
#include <gasnet.h>
#include <time.h>

#if !HAVE_PTHREAD_H || !HAVE_MMAP || !defined(HAVE_PTHREAD_SETCONCURRENCY)
#error "gasnet_config.h lacks HAVE_PTHREAD_H, HAVE_MMAP or HAVE_PTHREAD_SETCONCURRENCY"
#endif
#if SIZEOF_CHAR != 1 || SIZEOF_SHORT != 2 || SIZEOF_INT != 4 || SIZEOF_LONG_LONG != 8
#error "gasnet_config.h: wrong SIZEOF_ literals"
#endif
#if SIZEOF_VOID_P != __SIZEOF_POINTER__ || SIZEOF_LONG != __SIZEOF_LONG__ || \
    SIZEOF_GASNET_REGISTER_VALUE_T != SIZEOF_VOID_P
#error "gasnet_config.h: SIZEOF_VOID_P, SIZEOF_LONG or SIZEOF_GASNET_REGISTER_VALUE_T wrong"
#endif
#if defined(__x86_64__) && !defined(PLATFORM_ARCH_64)
#error "PLATFORM_ARCH_64 is not defined after gasnet.h"
#endif
/* A literal pastes into a name (testqueue does this). */
#define PASTE_(a, b) a##b
#define PASTE(a, b) PASTE_(a, b)
static const int PASTE(regsize_, SIZEOF_GASNET_REGISTER_VALUE_T) = SIZEOF_GASNET_REGISTER_VALUE_T;

#define SEGSIZE_BOUND (8u << 20)
#define H_SET 140
#define H_MEDIUM 141
#define H_MEDIUM_REPLY 142
#define H_LONG 143
#define H_LONG_REPLY 144

static int failures;
static volatile int flag;
static int reply_ran;
static unsigned char payload[512];
static void *hook_base;
static uintptr_t hook_size;
static int hook_calls;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            printf("call_rules: node %u: FAILED: ", gasnet_mynode());        \
            printf(__VA_ARGS__);                                               \
            printf("\n");                                                      \
            failures++;                                                        \
        }                                                                      \
    } while (0)

static void attach_hook(void *base, uintptr_t size)
{
    hook_base = base;
    hook_size = size;
    hook_calls++;
}

static void set_handler(gasnet_token_t token, gasnet_handlerarg_t value)
{
    gasnet_node_t src;
    gasnet_AMGetMsgSource(token, &src);
    CHECK(src == gasnet_mynode(), "loopback token names node %u", src);
    CHECK(gasnet_AMRequestShort0(src, H_SET) == GASNET_ERR_BAD_ARG,
          "a request from a loopback handler was accepted");
    CHECK(gasnet_AMPoll() == GASNET_ERR_BAD_ARG, "gasnet_AMPoll from a loopback handler accepted");
    flag = value;
}

static int bytes_ok(const unsigned char *buf, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != (unsigned char)(i * 7 + (size_t)seed))
            return 0;
    return 1;
}

static void medium_reply_handler(gasnet_token_t token, void *buf, size_t n)
{
    CHECK(n == sizeof payload && bytes_ok(buf, n, 3), "Medium reply payload");
    CHECK(gasnet_AMReplyShort0(token, H_SET) == GASNET_ERR_BAD_ARG,
          "a reply from a reply handler was accepted");
    reply_ran++;
}

static void medium_handler(gasnet_token_t token, void *buf, size_t n)
{
    CHECK(buf != payload && n == sizeof payload && bytes_ok(buf, n, 3),
          "Medium loopback payload is not a checked copy");
    CHECK(gasnet_AMReplyMedium0(token, H_MEDIUM_REPLY, buf, n) == GASNET_OK, "Medium reply");
    CHECK(reply_ran == 1, "the reply handler did not run inside gasnet_AMReplyMedium");
    CHECK(gasnet_AMReplyShort0(token, H_SET) == GASNET_ERR_BAD_ARG, "a second reply was accepted");
}

static void long_reply_handler(gasnet_token_t token, void *buf, size_t n)
{
    (void)token;
    gasnet_seginfo_t *seg = calloc(gasnet_nodes(), sizeof *seg);
    gasnet_getSegmentInfo(seg, (int)gasnet_nodes());
    CHECK(buf == (char *)seg[gasnet_mynode()].addr + 8192 + 4096 && bytes_ok(buf, n, 5),
          "Long reply not in place");
    free(seg);
    reply_ran++;
}

static void long_handler(gasnet_token_t token, void *buf, size_t n)
{
    CHECK(n == sizeof payload && bytes_ok(buf, n, 5), "Long loopback payload not in place");
    CHECK(gasnet_AMReplyLong0(token, H_LONG_REPLY, buf, n, (char *)buf + 4096) == GASNET_OK,
          "Long reply");
}

/* With "interleaved K" the launcher pretends K hosts, node i on host i % K (GP_HOST_ID). */
static unsigned interleaved_hosts;

/* What GASNet's test_init_early does: locality before attach. */
static void nodeinfo(gasnet_nodeinfo_t *info, const char *when)
{
    int rc = gasnet_getNodeInfo(info, (int)gasnet_nodes());
    CHECK(rc == GASNET_OK, "gasnet_getNodeInfo %s attach returned %d", when, rc);
    CHECK(info[0].host == 0 && info[0].supernode == 0, "node 0 not on host 0 / supernode 0 %s", when);
    for (gasnet_node_t i = 0; i < gasnet_nodes(); i++) {
        CHECK(info[i].host <= i && info[i].supernode <= i, "node %u: ids not dense %s", i, when);
        /* Hosts numbered in the order of their lowest node: host i % K is number i % K. */
        CHECK(interleaved_hosts == 0 || info[i].host == i % interleaved_hosts,
              "node %u: host %u %s attach, expected %u", i, info[i].host, when,
              i % interleaved_hosts);
    }
}

int main(int argc, char **argv)
{
    gasnet_max_segsize = SEGSIZE_BOUND;
    gasnet_client_attach_hook = attach_hook;
    if (gasnet_init(&argc, &argv) != GASNET_OK)
        return 1;
    if (argc == 3 && strcmp(argv[1], "interleaved") == 0)
        interleaved_hosts = (unsigned)atoi(argv[2]);
    gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes(), peer = (me + 1) % n;
    CHECK(gasnet_getMaxLocalSegmentSize() <= SEGSIZE_BOUND, "gasnet_max_segsize not honoured: %lu",
          (unsigned long)gasnet_getMaxLocalSegmentSize());
    gasnet_nodeinfo_t *early = malloc(n * sizeof *early), *late = malloc(n * sizeof *late);
    nodeinfo(early, "before");

    gasnet_handlerentry_t mine[] = {
        { H_SET, set_handler },
        { H_MEDIUM, medium_handler },
        { H_MEDIUM_REPLY, medium_reply_handler },
        { H_LONG, long_handler },
        { H_LONG_REPLY, long_reply_handler },
    };
    gasnet_handlerentry_t *diag = gasnett_diagnostic_gethandlers();
    int ndiag = 0;
    while (diag[ndiag].fnptr != NULL)
        ndiag++;
    gasnet_handlerentry_t *table = malloc((size_t)(ndiag + 5) * sizeof *table);
    memcpy(table, diag, (size_t)ndiag * sizeof *table);
    memcpy(table + ndiag, mine, sizeof mine);
    if (gasnet_attach(table, ndiag + 5, 4u << 20, 0) != GASNET_OK)
        return 1;
    gasnet_seginfo_t *seg = calloc(n, sizeof *seg);
    gasnet_getSegmentInfo(seg, (int)n);
    CHECK(hook_calls == 1 && hook_base == seg[me].addr && hook_size == seg[me].size,
          "gasnet_client_attach_hook: %d calls with %p + %lu", hook_calls, hook_base,
          (unsigned long)hook_size);
    nodeinfo(late, "after");
    for (gasnet_node_t i = 0; i < n; i++)
        CHECK(early[i].host == late[i].host && early[i].supernode == late[i].supernode,
              "node %u: locality before attach (%u/%u) differs from after (%u/%u)", i,
              early[i].host, early[i].supernode, late[i].host, late[i].supernode);

    /* The hang this guards against: spin on a flag a loopback handler sets, doing only puts. */
    flag = 0;
    gasnet_AMRequestShort1(me, H_SET, 7);
    time_t start = time(NULL);
    uint64_t word = me, puts = 0;
    while (!flag && time(NULL) - start < 5) {
        gasnet_put(peer, (char *)seg[peer].addr + 64 * me, &word, sizeof word);
        puts++;
    }
    CHECK(flag == 7, "the loopback handler had not run after %llu puts and 5 s of spinning",
          (unsigned long long)puts);

    for (size_t i = 0; i < sizeof payload; i++)
        payload[i] = (unsigned char)(i * 7 + 3);
    reply_ran = 0;
    gasnet_AMRequestMedium0(me, H_MEDIUM, payload, sizeof payload);
    CHECK(reply_ran == 1, "Medium loopback: the reply had not run when the request returned");
    for (size_t i = 0; i < sizeof payload; i++)
        payload[i] = (unsigned char)(i * 7 + 5);
    reply_ran = 0;
    gasnet_AMRequestLong0(me, H_LONG, payload, sizeof payload, (char *)seg[me].addr + 8192);
    CHECK(reply_ran == 1, "Long loopback: the reply had not run when the request returned");

    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
    int diag_failures = gasnett_run_diagnostics(3, 4, NULL, seg);
    CHECK(diag_failures == 0, "gasnett_run_diagnostics: %d failures", diag_failures);
    if (failures == 0)
        printf("call_rules: node %u of %u ok (regsize_%d)\n", me, n, PASTE(regsize_, SIZEOF_GASNET_REGISTER_VALUE_T));
    fflush(stdout);
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_exit(failures ? 1 : 0);
}
