/*
 * Helpers for the AM integration tests: macros that spell a handler's
 * M arguments, a CHECK that ends the job with a message, and an AM barrier
 * (the extended API's barrier comes later; these tests need one now).
 * Public API only.
 */
#ifndef GP_TESTS_AMTEST_H
#define GP_TESTS_AMTEST_H

#include <gasnet.h>
#include <stdio.h>
#include <stdlib.h>

/* DECL_M: ", gasnet_handlerarg_t a0, ..."; LIST_M: ", a0, ..."; R_M: ", r[0], ..." */
#define DECL_0
#define DECL_1 DECL_0, gasnet_handlerarg_t a0
#define DECL_2 DECL_1, gasnet_handlerarg_t a1
#define DECL_3 DECL_2, gasnet_handlerarg_t a2
#define DECL_4 DECL_3, gasnet_handlerarg_t a3
#define DECL_5 DECL_4, gasnet_handlerarg_t a4
#define DECL_6 DECL_5, gasnet_handlerarg_t a5
#define DECL_7 DECL_6, gasnet_handlerarg_t a6
#define DECL_8 DECL_7, gasnet_handlerarg_t a7
#define DECL_9 DECL_8, gasnet_handlerarg_t a8
#define DECL_10 DECL_9, gasnet_handlerarg_t a9
#define DECL_11 DECL_10, gasnet_handlerarg_t a10
#define DECL_12 DECL_11, gasnet_handlerarg_t a11
#define DECL_13 DECL_12, gasnet_handlerarg_t a12
#define DECL_14 DECL_13, gasnet_handlerarg_t a13
#define DECL_15 DECL_14, gasnet_handlerarg_t a14
#define DECL_16 DECL_15, gasnet_handlerarg_t a15

#define LIST_0
#define LIST_1 LIST_0, a0
#define LIST_2 LIST_1, a1
#define LIST_3 LIST_2, a2
#define LIST_4 LIST_3, a3
#define LIST_5 LIST_4, a4
#define LIST_6 LIST_5, a5
#define LIST_7 LIST_6, a6
#define LIST_8 LIST_7, a7
#define LIST_9 LIST_8, a8
#define LIST_10 LIST_9, a9
#define LIST_11 LIST_10, a10
#define LIST_12 LIST_11, a11
#define LIST_13 LIST_12, a12
#define LIST_14 LIST_13, a13
#define LIST_15 LIST_14, a14
#define LIST_16 LIST_15, a15

#define R_0
#define R_1 R_0, r[0]
#define R_2 R_1, r[1]
#define R_3 R_2, r[2]
#define R_4 R_3, r[3]
#define R_5 R_4, r[4]
#define R_6 R_5, r[5]
#define R_7 R_6, r[6]
#define R_8 R_7, r[7]
#define R_9 R_8, r[8]
#define R_10 R_9, r[9]
#define R_11 R_10, r[10]
#define R_12 R_11, r[11]
#define R_13 R_12, r[12]
#define R_14 R_13, r[13]
#define R_15 R_14, r[14]
#define R_16 R_15, r[15]

/* Calls f with arguments that contain R_M: expanded before the call is. */
#define AMCALL(f, ...) f(__VA_ARGS__)

#define AMTEST_ARRIVE 250
#define AMTEST_RELEASE 251

#define CHECK(cond, ...)                                                            \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "%s node %u: check failed: %s: ", amtest_name,          \
                    gasnet_mynode(), #cond);                                        \
            fprintf(stderr, __VA_ARGS__);                                           \
            fputc('\n', stderr);                                                    \
            fflush(stderr);                                                         \
            gasnet_exit(1);                                                         \
        }                                                                           \
    } while (0)

static const char *amtest_name = "amtest";
static volatile int amtest_arrived;
static volatile int amtest_released;

static inline void amtest_arrive(gasnet_token_t token)
{
    (void)token;
    __atomic_fetch_add(&amtest_arrived, 1, __ATOMIC_SEQ_CST);
}

static inline void amtest_release(gasnet_token_t token, gasnet_handlerarg_t phase)
{
    (void)token;
    __atomic_store_n(&amtest_released, phase, __ATOMIC_SEQ_CST);
}

#define AMTEST_HANDLERS                                         \
    { AMTEST_ARRIVE, amtest_arrive },               \
    { AMTEST_RELEASE, amtest_release }

/* Every node arrives at node 0, which releases them all. */
static inline void amtest_barrier(void)
{
    static int phase;
    phase++;
    CHECK(gasnet_AMRequestShort0(0, AMTEST_ARRIVE) == GASNET_OK, "barrier arrive");
    if (gasnet_mynode() == 0) {
        GASNET_BLOCKUNTIL(amtest_arrived >= phase * (int)gasnet_nodes());
        for (gasnet_node_t node = 0; node < gasnet_nodes(); node++)
            CHECK(gasnet_AMRequestShort1(node, AMTEST_RELEASE, phase) == GASNET_OK, "release");
    }
    GASNET_BLOCKUNTIL(amtest_released >= phase);
}

#endif
