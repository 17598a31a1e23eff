/*
 * libfabric, loaded when a job first wants the ofi transport (ofi_fabric.h).
 */
#include "nal/ofi/ofi_fabric.h"

#include "util/dynlib.h"
#include "util/log.h"

#define FABRIC_SONAME "libfabric.so.1"

struct gp_fabric gp_fabric;

static struct gp_dynlib_once library;

int ofi_fabric_load(const char *needed_by, int fatal)
{
    const struct gp_dynsym syms[] = {
        { "fi_getinfo", (void **)&gp_fabric.getinfo },
        { "fi_freeinfo", (void **)&gp_fabric.freeinfo },
        { "fi_dupinfo", (void **)&gp_fabric.dupinfo },
        { "fi_fabric", (void **)&gp_fabric.fabric },
        { "fi_strerror", (void **)&gp_fabric.strerror },
        { "fi_tostr", (void **)&gp_fabric.tostr },
        { "fi_version", (void **)&gp_fabric.version },
    };
    static const char *const names[] = { FABRIC_SONAME, NULL };
    int opened = gp_dynlib_open_once(&library, names, syms, sizeof syms / sizeof syms[0]);
    if (opened == 1)
        return 0;
    if (fatal)
        gp_fatal("%s needs the libfabric library " FABRIC_SONAME ", which cannot be loaded: %s "
                 "(install Debian's libfabric1, or set GP_TRANSPORT=tcp)", needed_by, library.why);
    if (opened == 0) {
        gp_warn("ofi", "%s would use libfabric, but " FABRIC_SONAME " cannot be loaded: %s "
                "(install libfabric1)", needed_by, library.why);
    }
    return -1;
}
