/*
 * gasnet.h's inline puts and gets to a mapped peer, with real
 * processes.  Usage: ext_inline direct|protocol -- what the library was
 * told (GP_DIRECT_RMA=1 or 0), so what its table must say:
 *   - before attach the table maps nothing (every call reaches the library,
 *     which refuses it for the call phase: ext_misuse put_before_attach);
 *   - after attach a node is mapped in the table exactly where the library
 *     copies directly: on shm every node when direct, none with protocol;
 *   - 8-byte put, put_bulk, put_nbi, put_val, get, get_bulk, get_nbi and
 *     get_val move the right bytes into and out of every node's segment;
 *   - the inline path is the one taken: with the table's entry for a node
 *     pointed at a decoy buffer, each inline form copies into or out of the
 *     decoy, while the exported function, (gasnet_put), reaches the real
 *     segment.  Built with GP_NO_INLINE_RMA (ext_inline_off.c) every form
 *     must reach the real segment instead.
 * Prints "ext_inline: node I of N ok (inline|library)" when every check held.
 */
#include <string.h>

#include "amtest.h"

#ifdef GP_NO_INLINE_RMA
#define INLINE_EXPECTED 0
#define PATH_NAME "library"
#else
#define INLINE_EXPECTED 1
#define PATH_NAME "inline"
#endif

static gasnet_handlerentry_t table[] = { AMTEST_HANDLERS };
static gasnet_node_t me, nodes;
static gasnet_seginfo_t *seg;

/* This node's 8-byte slot in the given node's segment, one cache line per writer. */
static char *slot(gasnet_node_t owner, gasnet_node_t writer, int round)
{
    return (char *)seg[owner].addr + 64 * ((size_t)round * nodes + writer);
}

static uint64_t word(gasnet_node_t writer, gasnet_node_t owner, int round)
{
    return 0x0123456789abcdefull ^ ((uint64_t)writer << 40) ^ ((uint64_t)owner << 20) ^
           (uint64_t)round;
}

enum { R_PUT, R_PUT_BULK, R_PUT_NBI, R_PUT_VAL, ROUNDS };

/* Every node puts a word into every node's slot by each put form; each then reads them back. */
static void moves_the_bytes(void)
{
    for (gasnet_node_t to = 0; to < nodes; to++) {
        uint64_t w[ROUNDS];
        for (int r = 0; r < ROUNDS; r++)
            w[r] = word(me, to, r);
        gasnet_put(to, slot(to, me, R_PUT), &w[R_PUT], 8);
        gasnet_put_bulk(to, slot(to, me, R_PUT_BULK), &w[R_PUT_BULK], 8);
        gasnet_put_nbi(to, slot(to, me, R_PUT_NBI), &w[R_PUT_NBI], 8);
        gasnet_put_val(to, slot(to, me, R_PUT_VAL), (gasnet_register_value_t)w[R_PUT_VAL], 8);
    }
    gasnet_wait_syncnbi_puts();
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    for (gasnet_node_t from = 0; from < nodes; from++)
        for (int r = 0; r < ROUNDS; r++) {
            uint64_t got;
            memcpy(&got, slot(me, from, r), 8);
            CHECK(got == word(from, me, r), "round %d: node %u's 8 bytes arrived as %016llx, "
                  "not %016llx", r, from, (unsigned long long)got,
                  (unsigned long long)word(from, me, r));
        }
    for (gasnet_node_t at = 0; at < nodes; at++) {
        uint64_t got[4] = { 0 };
        gasnet_get(&got[0], at, slot(at, me, R_PUT), 8);
        gasnet_get_bulk(&got[1], at, slot(at, me, R_PUT_BULK), 8);
        gasnet_get_nbi(&got[2], at, slot(at, me, R_PUT_NBI), 8);
        gasnet_wait_syncnbi_gets();
        got[3] = (uint64_t)gasnet_get_val(at, slot(at, me, R_PUT_VAL), 8);
        for (int r = 0; r < ROUNDS; r++)
            CHECK(got[r] == word(me, at, r), "get form %d from node %u read %016llx, not %016llx",
                  r, at, (unsigned long long)got[r], (unsigned long long)word(me, at, r));
        uint64_t low = (uint64_t)gasnet_get_val(at, slot(at, me, R_PUT_VAL), 3);
        CHECK(low == (word(me, at, R_PUT_VAL) & 0xffffff), "3-byte gasnet_get_val read %llx",
              (unsigned long long)low);
    }
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
}

/* With the table's entry for node to pointed at a decoy, every inline form
 * copies into or out of the decoy; the library's functions never do. */
static void takes_the_inline_path(gasnet_node_t to)
{
    struct _gasnet_rma_peer_v1 *peers = (struct _gasnet_rma_peer_v1 *)_gasnet_rma_map_v1.peers;
    struct _gasnet_rma_peer_v1 saved = peers[to];
    static uint64_t decoy[64];
    const uint64_t mark = 0xfeedfacecafebeefull;
    uint64_t before, src = mark, got;
    char *at = slot(to, me, 0);
    memset(decoy, 0, sizeof decoy);
    gasnet_get(&before, to, at, 8);
    peers[to].local = (char *)decoy;
    peers[to].base = (uintptr_t)at;
    peers[to].size = sizeof decoy;

    const char *forms[] = { "gasnet_put", "gasnet_put_bulk", "gasnet_put_nbi", "gasnet_put_val" };
    for (int f = 0; f < 4; f++) {
        decoy[0] = 0;
        switch (f) {
        case 0: gasnet_put(to, at, &src, 8); break;
        case 1: gasnet_put_bulk(to, at, &src, 8); break;
        case 2: gasnet_put_nbi(to, at, &src, 8); gasnet_wait_syncnbi_puts(); break;
        default: gasnet_put_val(to, at, (gasnet_register_value_t)src, 8); break;
        }
        CHECK((decoy[0] == mark) == INLINE_EXPECTED, "%s to node %u: the decoy holds %016llx "
              "(expected the %s path)", forms[f], to, (unsigned long long)decoy[0], PATH_NAME);
    }
    /* The exported function ignores the table: the real segment gets the bytes. */
    uint64_t real = word(me, to, 99);
    decoy[0] = 0;
    (gasnet_put)(to, at, &real, 8);
    CHECK(decoy[0] == 0, "(gasnet_put) to node %u wrote the inline path's decoy", to);
    decoy[0] = mark;
    const char *gets[] = { "gasnet_get", "gasnet_get_bulk", "gasnet_get_nbi", "gasnet_get_val" };
    for (int f = 0; f < 4; f++) {
        got = 0;
        switch (f) {
        case 0: gasnet_get(&got, to, at, 8); break;
        case 1: gasnet_get_bulk(&got, to, at, 8); break;
        case 2: gasnet_get_nbi(&got, to, at, 8); gasnet_wait_syncnbi_gets(); break;
        default: got = (uint64_t)gasnet_get_val(to, at, 8); break;
        }
        CHECK(got == (INLINE_EXPECTED ? mark : real), "%s from node %u read %016llx (expected "
              "the %s path)", gets[f], to, (unsigned long long)got, PATH_NAME);
    }
    peers[to] = saved;
    gasnet_get(&got, to, at, 8);
    CHECK(got == real, "(gasnet_put) to node %u: the segment holds %016llx, not %016llx", to,
          (unsigned long long)got, (unsigned long long)real);
    gasnet_put(to, at, &before, 8);
}

int main(int argc, char **argv)
{
    amtest_name = "ext_inline";
    int direct = argc > 1 && strcmp(argv[1], "direct") == 0;
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    CHECK(_gasnet_rma_map_v1.nodes == 0, "before attach the table covers %u nodes, not 0",
          _gasnet_rma_map_v1.nodes);
    CHECK(gasnet_attach(table, 2, 1 << 20, 0) == GASNET_OK, "attach");
    me = gasnet_mynode();
    nodes = gasnet_nodes();
    seg = calloc(nodes, sizeof *seg);
    CHECK(seg != NULL && gasnet_getSegmentInfo(seg, (int)nodes) == GASNET_OK, "segment info");

    CHECK(_gasnet_rma_map_v1.nodes == nodes, "after attach the table covers %u nodes, not %u",
          _gasnet_rma_map_v1.nodes, nodes);
    gasnet_nodeinfo_t *info = calloc(nodes, sizeof *info);
    CHECK(info != NULL && gasnet_getNodeInfo(info, (int)nodes) == GASNET_OK, "node info");
    for (gasnet_node_t n = 0; n < nodes; n++) {
        const struct _gasnet_rma_peer_v1 *p = &_gasnet_rma_map_v1.peers[n];
        CHECK(p->base == (uintptr_t)seg[n].addr && p->size == seg[n].size,
              "node %u: the table's segment [%#lx + %lu] is not gasnet_getSegmentInfo's", n,
              (unsigned long)p->base, (unsigned long)p->size);
        if (direct)
            CHECK(p->local == (char *)seg[n].addr + info[n].offset,
                  "node %u: mapped at %p in the table, getNodeInfo says %p", n, (void *)p->local,
                  (void *)((char *)seg[n].addr + info[n].offset));
        else
            CHECK(p->local == NULL, "node %u: mapped in the table with GP_DIRECT_RMA=0", n);
    }

    moves_the_bytes();
    for (gasnet_node_t to = 0; to < nodes; to++)
        takes_the_inline_path(to);
    printf("ext_inline: node %u of %u ok (%s)\n", me, nodes, PATH_NAME);
    fflush(stdout);
    /* gasnet_exit on one node ends the others: first every node has said so. */
    gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_exit(0);
}
