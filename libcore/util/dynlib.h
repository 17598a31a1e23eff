/*
 * Libraries loaded when first needed (dlopen), not at program start: the
 * verbs library (with libnl behind it) only for a job that crosses hosts
 * over ibv, libpmix only for a process started under a PMIx server.  An
 * idle shm process then maps neither (doc/scale.md, item 6), and a program
 * linked with libgp.a needs neither to link.
 *
 * The user of a library keeps a struct of function pointers and names each
 * slot in a table of gp_dynsym; gp_dynlib_open fills the slots or says why
 * it could not.
 */
#ifndef GP_UTIL_DYNLIB_H
#define GP_UTIL_DYNLIB_H

#include <stddef.h>

struct gp_dynsym {
    const char *name;   /* the library's symbol */
    void **slot;        /* where its address goes (a function pointer's storage) */
};

/*
 * Opens the first file of names (NULL-terminated: a soname, then fallbacks
 * such as the path the build found the library at) that loads, and
 * resolves every symbol of syms into its slot.  0; or -1 with why holding
 * the loader's words (the names tried, the missing symbol), every slot left
 * as it was and nothing kept open.
 */
int gp_dynlib_open(const char *const *names, const struct gp_dynsym *syms, size_t nsyms,
                   char *why, size_t why_len);

/*
 * A library opened at most once per process, its failure kept: the loaders
 * of libibverbs and libfabric are asked at every attach (the hybrid asks each
 * transport), but must try once and warn once.
 */
struct gp_dynlib_once {
    int state;          /* 0 not tried; 1 loaded; -1 failed, not yet said; -2 failed and said */
    char why[512];      /* gp_dynlib_open's words for the failure */
};

/*
 * Opens the library the first time (gp_dynlib_open), later returns what that
 * did: 1 loaded; 0 failed and the caller should say so now (once); -1 failed
 * and said before.
 */
int gp_dynlib_open_once(struct gp_dynlib_once *once, const char *const *names,
                        const struct gp_dynsym *syms, size_t nsyms);

#endif
