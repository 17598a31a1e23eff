/*
 * gasnet_rma_inline.h: puts and gets to a peer whose segment this process
 * maps (the shm transport), compiled into the client as a bounds check and
 * a copy.  Included by gasnet.h; not for direct inclusion.
 *
 * The library publishes, per node, where the peer's segment is mapped here
 * -- only where the library itself would do the operation as a plain copy
 * (GP_DIRECT_RMA, a mapped segment, after attach).  Everything else (before
 * attach, unmapped peers, GP_DIRECT_RMA=0, an address outside the segment,
 * a bad node) goes to the exported function, which keeps every check and
 * its error message.  Unlike the exported function, the inline path does
 * not detect a call from inside an AM handler, as GASNet's own inline paths
 * in non-debug builds do not.
 *
 * Defining GP_NO_INLINE_RMA before including gasnet.h calls the exported
 * functions always.  (gasnet_put)(...) and &gasnet_put name them too.
 */
#ifndef _GASNET_RMA_INLINE_H
#define _GASNET_RMA_INLINE_H

/*
 * Version 1 of the table (doc/decisions.md): a layout change is a new
 * symbol, _gasnet_rma_map_v2, so binaries built against this header keep
 * reading the layout they were compiled for.  Written by gasnet_attach
 * before it returns and never after.
 */
struct _gasnet_rma_peer_v1 {
    char *local;    /* the peer's segment as mapped here; NULL: not a plain copy */
    uintptr_t base; /* the segment's address in the peer's own process */
    uintptr_t size;
};
struct _gasnet_rma_map_v1 {
    gasnet_node_t nodes; /* 0 until attach: every call goes out of line */
    const struct _gasnet_rma_peer_v1 *peers;
};
extern struct _gasnet_rma_map_v1 _gasnet_rma_map_v1;

/* Where [addr, addr + nbytes) on node lies in this process, or NULL where
 * the library must see the call (it then also reports any error).  Zero
 * bytes go to the library too, which copies nothing and checks nothing. */
static inline char *_gasnet_rma_local(gasnet_node_t node, const void *addr, size_t nbytes)
{
    if (node >= _gasnet_rma_map_v1.nodes)
        return NULL;
    const struct _gasnet_rma_peer_v1 *peer = &_gasnet_rma_map_v1.peers[node];
    uintptr_t offset = (uintptr_t)addr - peer->base; /* below base wraps past size */
    if (peer->local == NULL || nbytes - 1 >= peer->size || offset > peer->size - nbytes)
        return NULL;
    return peer->local + offset;
}

/*
 * A loop of plain copies never enters the library, so it would never serve
 * the requests its peers send here: every _GASNET_RMA_CALLS_PER_PROGRESS-th
 * copy of a thread calls the library, which looks at the rings and, every
 * so many such calls, runs the whole poll (doc/progress.md).  The countdown
 * is the thread's own: a shared one would put every put's store on one line.
 * A SEQ client has one thread in GASNet, so its countdown is a plain global:
 * one read-modify-write of memory and a branch on the sign, with no thread
 * pointer to load first (libgp resets both countdowns, so a client built
 * against either form runs with either library).
 */
#define _GASNET_RMA_CALLS_PER_PROGRESS 64
extern __thread unsigned _gasnet_rma_calls_left_v1;
extern int _gasnet_rma_seq_calls_left_v1;
extern void _gasnet_rma_progress_v1(void);
static inline void _gasnet_rma_count_call(void)
{
#if defined(GASNET_SEQ)
    if (__builtin_expect(--_gasnet_rma_seq_calls_left_v1 < 0, 0))
        _gasnet_rma_progress_v1();
#else
    if (__builtin_expect(_gasnet_rma_calls_left_v1 == 0, 0))
        _gasnet_rma_progress_v1();
    else
        _gasnet_rma_calls_left_v1--;
#endif
}

/*
 * The ordering a plain copy into or out of a peer's segment needs on a
 * weakly ordered CPU (doc/memory-model.md): a put's stores come after the
 * caller's earlier stores and before its later ones (the put of a flag after
 * the put of the data it announces; a peer that sees the flag, with a fence
 * or acquire of its own, sees the data), and a get's loads come after the
 * caller's earlier loads and before its later loads and stores (the get of
 * the data after the load or get of the flag).  The same instructions as
 * the library's gp_fence_store and gp_fence_load (libcore/util/fence.h),
 * which this installed header cannot include: on x86 (TSO) only compiler
 * barriers, so the inline path costs nothing there.
 */
#if defined(__x86_64__) || defined(__i386__)
#define _gp_fence_store() __asm__ __volatile__("" ::: "memory")
#elif defined(__aarch64__)
#define _gp_fence_store() __asm__ __volatile__("dmb ishst" ::: "memory")
#elif defined(__powerpc64__) || defined(__powerpc__)
#define _gp_fence_store() __asm__ __volatile__("lwsync" ::: "memory")
#else
#define _gp_fence_store() __atomic_thread_fence(__ATOMIC_RELEASE)
#endif
#define _gp_fence_load() __atomic_thread_fence(__ATOMIC_ACQUIRE)

#ifndef GP_NO_INLINE_RMA

/*
 * A put's copy, between the store fences that order it after the caller's
 * earlier stores and before its later ones (the pair: the reader's fence or
 * acquire between its flag and data).  A word-sized size known only at run
 * time is a load and a store here, not a call to memcpy (which costs more
 * than the rest of the put).  Each case has its own closing fence: one
 * fence after both made gcc move the word case out of a loop of puts, a
 * taken jump more per put.
 */
static inline void _gasnet_rma_put_copy(char *at, const void *src, size_t nbytes)
{
    _gp_fence_store();
    if (!__builtin_constant_p(nbytes) && __builtin_expect(nbytes == 8, 1)) {
        memcpy(at, src, 8);
        _gp_fence_store();
    } else {
        memcpy(at, src, nbytes);
        _gp_fence_store();
    }
    _gasnet_rma_count_call();
}

/* A get's copy, between the load fences that order it after the caller's earlier loads (the
 * flag that said the data are there) and before its later loads and stores (the data a flag
 * fetched by this get announces).  The pair: the writer's store fence between data and flag. */
static inline void _gasnet_rma_get_copy(void *dest, const char *at, size_t nbytes)
{
    _gp_fence_load();
    if (!__builtin_constant_p(nbytes) && __builtin_expect(nbytes == 8, 1)) { /* as in _gasnet_rma_put_copy */
        memcpy(dest, at, 8);
        _gp_fence_load();
    } else {
        memcpy(dest, at, nbytes);
        _gp_fence_load();
    }
    _gasnet_rma_count_call();
}

static inline void _gasnet_put_inline(gasnet_node_t node, void *dest, void *src, size_t nbytes)
{
    char *at = _gasnet_rma_local(node, dest, nbytes);
    if (__builtin_expect(at != NULL, 1))
        _gasnet_rma_put_copy(at, src, nbytes);
    else
        gasnet_put(node, dest, src, nbytes);
}

static inline void _gasnet_put_bulk_inline(gasnet_node_t node, void *dest, void *src,
                                           size_t nbytes)
{
    char *at = _gasnet_rma_local(node, dest, nbytes);
    if (__builtin_expect(at != NULL, 1))
        _gasnet_rma_put_copy(at, src, nbytes);
    else
        gasnet_put_bulk(node, dest, src, nbytes);
}

static inline void _gasnet_get_inline(void *dest, gasnet_node_t node, void *src, size_t nbytes)
{
    const char *at = _gasnet_rma_local(node, src, nbytes);
    if (__builtin_expect(at != NULL, 1))
        _gasnet_rma_get_copy(dest, at, nbytes);
    else
        gasnet_get(dest, node, src, nbytes);
}

static inline void _gasnet_get_bulk_inline(void *dest, gasnet_node_t node, void *src,
                                           size_t nbytes)
{
    const char *at = _gasnet_rma_local(node, src, nbytes);
    if (__builtin_expect(at != NULL, 1))
        _gasnet_rma_get_copy(dest, at, nbytes);
    else
        gasnet_get_bulk(dest, node, src, nbytes);
}

/* Implicit-handle forms: a plain copy is complete, so there is nothing to count. */
static inline void _gasnet_put_nbi_inline(gasnet_node_t node, void *dest, void *src, size_t nbytes)
{
    char *at = _gasnet_rma_local(node, dest, nbytes);
    if (__builtin_expect(at != NULL, 1))
        _gasnet_rma_put_copy(at, src, nbytes);
    else
        gasnet_put_nbi(node, dest, src, nbytes);
}

static inline void _gasnet_put_nbi_bulk_inline(gasnet_node_t node, void *dest, void *src,
                                               size_t nbytes)
{
    char *at = _gasnet_rma_local(node, dest, nbytes);
    if (__builtin_expect(at != NULL, 1))
        _gasnet_rma_put_copy(at, src, nbytes);
    else
        gasnet_put_nbi_bulk(node, dest, src, nbytes);
}

static inline void _gasnet_get_nbi_inline(void *dest, gasnet_node_t node, void *src, size_t nbytes)
{
    const char *at = _gasnet_rma_local(node, src, nbytes);
    if (__builtin_expect(at != NULL, 1))
        _gasnet_rma_get_copy(dest, at, nbytes);
    else
        gasnet_get_nbi(dest, node, src, nbytes);
}

static inline void _gasnet_get_nbi_bulk_inline(void *dest, gasnet_node_t node, void *src,
                                               size_t nbytes)
{
    const char *at = _gasnet_rma_local(node, src, nbytes);
    if (__builtin_expect(at != NULL, 1))
        _gasnet_rma_get_copy(dest, at, nbytes);
    else
        gasnet_get_nbi_bulk(dest, node, src, nbytes);
}

/* Value forms: 1 to 8 bytes, the value's low-order bytes (as the library
 * copies them, little endian); other sizes get the library's error. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline void _gasnet_put_val_inline(gasnet_node_t node, void *dest,
                                          gasnet_register_value_t value, size_t nbytes)
{
    char *at = nbytes - 1 < sizeof value ? _gasnet_rma_local(node, dest, nbytes) : NULL;
    if (__builtin_expect(at != NULL, 1))
        _gasnet_rma_put_copy(at, &value, nbytes);
    else
        gasnet_put_val(node, dest, value, nbytes);
}

static inline gasnet_register_value_t _gasnet_get_val_inline(gasnet_node_t node, void *src,
                                                             size_t nbytes)
{
    gasnet_register_value_t value = 0; /* zero-extended (spec 4.9.2) */
    const char *at = nbytes - 1 < sizeof value ? _gasnet_rma_local(node, src, nbytes) : NULL;
    if (__builtin_expect(at == NULL, 0))
        return gasnet_get_val(node, src, nbytes);
    _gasnet_rma_get_copy(&value, at, nbytes);
    return value;
}
#define gasnet_put_val(node, dest, value, nbytes) _gasnet_put_val_inline(node, dest, value, nbytes)
#define gasnet_get_val(node, src, nbytes) _gasnet_get_val_inline(node, src, nbytes)
#endif

#define gasnet_put(node, dest, src, nbytes) _gasnet_put_inline(node, dest, src, nbytes)
#define gasnet_put_bulk(node, dest, src, nbytes) _gasnet_put_bulk_inline(node, dest, src, nbytes)
#define gasnet_get(dest, node, src, nbytes) _gasnet_get_inline(dest, node, src, nbytes)
#define gasnet_get_bulk(dest, node, src, nbytes) _gasnet_get_bulk_inline(dest, node, src, nbytes)
#define gasnet_put_nbi(node, dest, src, nbytes) _gasnet_put_nbi_inline(node, dest, src, nbytes)
#define gasnet_put_nbi_bulk(node, dest, src, nbytes) \
    _gasnet_put_nbi_bulk_inline(node, dest, src, nbytes)
#define gasnet_get_nbi(dest, node, src, nbytes) _gasnet_get_nbi_inline(dest, node, src, nbytes)
#define gasnet_get_nbi_bulk(dest, node, src, nbytes) \
    _gasnet_get_nbi_bulk_inline(dest, node, src, nbytes)

#endif /* GP_NO_INLINE_RMA */
#endif
