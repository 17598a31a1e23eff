/*
 * CPU memory fences: the one place where libcore says which instruction
 * orders which accesses on which CPU (doc/memory-model.md says what gp
 * promises its clients and which fence on which path delivers it).  UCX's
 * ucs_memory_cpu_fence / cpu_store_fence / cpu_load_fence are the model.
 *
 * Every fence is also a compiler barrier.  Each use stands beside a comment
 * that names the accesses it orders and the fence or atomic on the other
 * side that it pairs with; a fence without a partner orders nothing.
 *
 *   gp_fence_store()   earlier stores before later stores (a copy into a peer's
 *                      segment before the flag or header that announces it)
 *   gp_fence_load()    earlier loads before later loads and stores (a flag or a
 *                      get before what is read on its strength); also the C11
 *                      acquire fence
 *   gp_fence_release() earlier loads and stores before later stores: the C11
 *                      release fence, for a writer whose data are loads too
 *   gp_fence_full()    everything, store-to-load included (a store, then a
 *                      load of another word that a peer stores: Dekker)
 *   gp_fence_full_after_rmw()
 *                      gp_fence_full() right after an atomic read-modify-write:
 *                      on x86 a locked instruction is already a full fence,
 *                      while an LL/SC pair (aarch64 without LSE, POWER) lets a
 *                      later load pass the store half of the RMW
 *
 * Costs: on x86-64 (TSO: stores leave in order, loads are not reordered
 * with older loads nor with newer stores) the store and load fences and
 * gp_fence_full_after_rmw are only compiler barriers, and gp_fence_full is
 * an mfence.  glibc's memcpy streams large copies with non-temporal stores,
 * but it ends them with its own sfence, so a copy followed by
 * gp_fence_store() is still ordered.  On aarch64 they are dmb ishst,
 * dmb ishld and dmb ish; on POWER lwsync, lwsync and sync.  Elsewhere the
 * C11 fence of the matching strength.
 *
 * The public inline RMA header (include/gasnet_rma_inline.h) cannot include
 * this file and carries its own two, _gp_fence_store and _gp_fence_load:
 * a change here is a change there.
 */
#ifndef GP_UTIL_FENCE_H
#define GP_UTIL_FENCE_H

#define gp_compiler_barrier() __asm__ __volatile__("" ::: "memory")

#if defined(__x86_64__) || defined(__i386__)
#define gp_fence_store() gp_compiler_barrier()
#define gp_fence_full_after_rmw() gp_compiler_barrier()
#elif defined(__aarch64__)
#define gp_fence_store() __asm__ __volatile__("dmb ishst" ::: "memory")
#define gp_fence_full_after_rmw() __asm__ __volatile__("dmb ish" ::: "memory")
#elif defined(__powerpc64__) || defined(__powerpc__)
#define gp_fence_store() __asm__ __volatile__("lwsync" ::: "memory")
#define gp_fence_full_after_rmw() __asm__ __volatile__("sync" ::: "memory")
#else
#define gp_fence_store() __atomic_thread_fence(__ATOMIC_RELEASE)
#define gp_fence_full_after_rmw() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif

/* What the compilers emit for these C11 fences is already the right instruction on every CPU
 * above (x86: none; aarch64: dmb ishld, dmb ish, dmb ish; POWER: lwsync, lwsync, sync), and
 * being C11 fences they also pair with C11 atomics in the compiler's own reasoning. */
#define gp_fence_load() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define gp_fence_release() __atomic_thread_fence(__ATOMIC_RELEASE)
#define gp_fence_full() __atomic_thread_fence(__ATOMIC_SEQ_CST)

#endif
