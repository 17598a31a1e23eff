/*
 * dlopen with a table of symbols (dynlib.h).  RTLD_NOW: a missing symbol is
 * found here, where the error can name it, not at some later call;
 * RTLD_GLOBAL: the library's own plugins (PMIx components, verbs
 * providers) see its symbols as they would had the program been linked
 * with it.
 */
#include "util/dynlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int gp_dynlib_open(const char *const *names, const struct gp_dynsym *syms, size_t nsyms,
                   char *why, size_t why_len)
{
    void *handle = NULL;
    size_t used = 0;
    why[0] = '\0';
    for (const char *const *name = names; *name != NULL && handle == NULL; name++) {
        handle = dlopen(*name, RTLD_NOW | RTLD_GLOBAL);
        if (handle == NULL && used < why_len) {
            const char *err = dlerror();
            int n = snprintf(why + used, why_len - used, "%s%s", used > 0 ? "; " : "",
                             err != NULL ? err : *name);
            used += n > 0 ? (size_t)n : 0;
        }
    }
    if (handle == NULL)
        return -1;
    /* Every symbol is checked before any slot is written. */
    for (size_t i = 0; i < nsyms; i++) {
        dlerror();
        if (dlsym(handle, syms[i].name) == NULL) {
            const char *err = dlerror();
            snprintf(why, why_len, "%s (the library is older than gp needs)",
                     err != NULL ? err : syms[i].name);
            dlclose(handle);
            return -1;
        }
    }
    for (size_t i = 0; i < nsyms; i++)
        *syms[i].slot = dlsym(handle, syms[i].name);
    return 0; /* the handle stays open for the life of the process */
}

int gp_dynlib_open_once(struct gp_dynlib_once *once, const char *const *names,
                        const struct gp_dynsym *syms, size_t nsyms)
{
    if (once->state == 0)
        once->state = gp_dynlib_open(names, syms, nsyms, once->why, sizeof once->why) == 0 ? 1 : -1;
    if (once->state == -1) {
        once->state = -2;
        return 0;
    }
    return once->state == 1 ? 1 : -1;
}
