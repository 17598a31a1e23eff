/*
 * The libfabric calls libgp makes, reached through a table that
 * ofi_fabric_load fills from libfabric.so.1 the first time a job wants the
 * ofi transport (util/dynlib.h), as ibv_verbs.h does for libibverbs: a
 * process that never uses ofi never maps libfabric.  Only the few entry
 * points that are library functions need a slot (fi_getinfo and its kin);
 * everything past the fabric object -- domains, endpoints, registration,
 * sends, RMA, completion queues -- is an inline dispatch through the
 * provider's own ops tables, which needs no symbol.
 */
#ifndef GP_NAL_OFI_FABRIC_H
#define GP_NAL_OFI_FABRIC_H

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

struct gp_fabric {
    int (*getinfo)(uint32_t version, const char *node, const char *service, uint64_t flags,
                   const struct fi_info *hints, struct fi_info **info);
    void (*freeinfo)(struct fi_info *info);
    struct fi_info *(*dupinfo)(const struct fi_info *info);
    int (*fabric)(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
    const char *(*strerror)(int errnum);
    char *(*tostr)(const void *data, enum fi_type datatype);
    uint32_t (*version)(void);
};

extern struct gp_fabric gp_fabric;

/*
 * Loads libfabric.so.1 once (later calls answer at once).  needed_by names
 * what wanted it ("GP_TRANSPORT=ofi").  0; or, when it cannot be loaded:
 * with fatal set, ends the job naming the library, needed_by and the
 * loader's words; without, warns once and returns -1.
 */
int ofi_fabric_load(const char *needed_by, int fatal);

#undef fi_allocinfo
#define fi_getinfo(v, n, s, f, h, i) gp_fabric.getinfo(v, n, s, f, h, i)
#define fi_freeinfo(info) gp_fabric.freeinfo(info)
#define fi_dupinfo(info) gp_fabric.dupinfo(info)
#define fi_allocinfo() gp_fabric.dupinfo(NULL)
#define fi_fabric(attr, fab, ctx) gp_fabric.fabric(attr, fab, ctx)
#define fi_strerror(err) gp_fabric.strerror(err)
#define fi_tostr(data, type) gp_fabric.tostr(data, type)
#define fi_version() gp_fabric.version()

#endif
