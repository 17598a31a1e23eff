/*
 * The transports built into libgp, in one explicit list: adding one is a
 * line here and a file set of its own, never an #ifdef in shared code.
 */
#include "nal/nal.h"

#include <pthread.h>
#include <string.h>

#include "util/log.h"

static const struct nal_ops *const transports[] = {
    &nal_hybrid_ops,
    &nal_shm_ops,
    &nal_tcp_ops,
    &nal_ibv_ops,
    &nal_ofi_ops,
    &nal_loop_ops,
};
#define TRANSPORT_COUNT (sizeof transports / sizeof transports[0])

const struct nal_ops *nal_find(const char *name)
{
    for (unsigned i = 0; i < TRANSPORT_COUNT; i++)
        if (strcmp(transports[i]->name, name) == 0)
            return transports[i];
    return NULL;
}

/* Room for every name the registry holds; a list that outgrew it is an error naming the name. */
static char all_names[256], selectable_names[256];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void append_name(char *list, size_t size, const char *name)
{
    size_t used = strlen(list), len = strlen(name);
    if (used + (used != 0) + len + 1 > size) {
        gp_error("nal", "the transport list has no room for '%s' after '%s' (nal/registry.c)",
                 name, list);
        return;
    }
    if (used != 0)
        list[used++] = '|';
    memcpy(list + used, name, len + 1);
}

static void join_names(void)
{
    for (unsigned i = 0; i < TRANSPORT_COUNT; i++) {
        append_name(all_names, sizeof all_names, transports[i]->name);
        if (transports[i]->user_selectable)
            append_name(selectable_names, sizeof selectable_names, transports[i]->name);
    }
}

const char *nal_names(void)
{
    pthread_once(&names_once, join_names);
    return all_names;
}

const char *nal_selectable_names(void)
{
    pthread_once(&names_once, join_names);
    return selectable_names;
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
