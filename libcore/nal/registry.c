/*
 * The transports built into libgp, in one explicit list: adding one is a
 * line here and a file set of its own, never an #ifdef in shared code.
 */
#include "nal/nal.h"

#include <string.h>

static const struct nal_ops *const transports[] = {
    &nal_hybrid_ops,
    &nal_shm_ops,
    &nal_tcp_ops,
    &nal_ibv_ops,
    &nal_loop_ops,
};

const struct nal_ops *nal_find(const char *name)
{
    for (unsigned i = 0; i < sizeof transports / sizeof transports[0]; i++)
        if (strcmp(transports[i]->name, name) == 0)
            return transports[i];
    return NULL;
}

const char *nal_names(void)
{
    return "hybrid|shm|tcp|ibv|loop";
}

int nal_unsupported_op(struct ptl_ni *ni, const struct nal_op *op)
{
    (void)ni;
    (void)op;
    return PTL_FAIL;
}

int nal_no_progress(struct ptl_ni *ni)
{
    (void)ni;
    return PTL_OK;
}

void nal_no_report(struct ptl_ni *ni)
{
    (void)ni;
}
