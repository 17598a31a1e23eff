/*
 * The transports built into libgp, in one explicit list: adding one is its
 * name here (declared and listed) and a folder of its own, never an #ifdef
 * in shared code.  Its configuration rows come with it (nal_ops.config_group).
 * The order is the order of preference, fastest first: among those that
 * can serve peers on other hosts (nal_ops.peers), the hybrid takes the
 * first that both ends can use unless GP_HYBRID_ORDER says otherwise.
 */
#include "nal/nal.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "config/rows.h"
#include "nal/firehose_config.h"
#include "util/log.h"

/* Each defined in its folder (nal/<name>/); named nowhere else. */
extern const struct nal_ops nal_hybrid_ops, nal_shm_ops, nal_ibv_ops, nal_ofi_ops, nal_tcp_ops,
    nal_loop_ops;

static const struct nal_ops *const transports[] = {
    &nal_hybrid_ops,
    &nal_shm_ops,
    &nal_ibv_ops,
    &nal_ofi_ops,               /* before tcp: it serves unasked only on hardware providers */
    &nal_tcp_ops,
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

const struct nal_ops *nal_at(unsigned index)
{
    return index < TRANSPORT_COUNT ? transports[index] : NULL;
}

/*
 * The layer's groups of rows: its own and the firehose cache's, which every transport may
 * use, then each transport's in the registry's order.
 */
static const struct gp_cfg_group *const shared_groups[] = { &nal_cfg_group, &firehose_cfg_group };
#define SHARED_GROUP_COUNT (sizeof shared_groups / sizeof shared_groups[0])

const struct gp_cfg_group *nal_config_group(unsigned index)
{
    if (index < SHARED_GROUP_COUNT)
        return shared_groups[index];
    index -= SHARED_GROUP_COUNT;
    for (unsigned i = 0; i < TRANSPORT_COUNT; i++)
        if (transports[i]->config_group != NULL && index-- == 0)
            return transports[i]->config_group;
    return NULL;
}

/* Room for every name the registry holds; a list that outgrew it is an error naming the name. */
static char all_names[256], selectable_names[256], routable_names[256];
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
        if (transports[i]->peers != NULL)
            append_name(routable_names, sizeof routable_names, transports[i]->name);
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

const char *nal_routable_names(void)
{
    pthread_once(&names_once, join_names);
    return routable_names;
}

/* The routable transport named by the len bytes at name; NULL if none. */
static const struct nal_ops *find_routable(const char *name, size_t len)
{
    for (unsigned i = 0; i < TRANSPORT_COUNT; i++)
        if (transports[i]->peers != NULL && strlen(transports[i]->name) == len &&
            strncmp(transports[i]->name, name, len) == 0)
            return transports[i];
    return NULL;
}

int nal_route_order(const char *variable, const char *text, const struct nal_ops **out,
                    char *errbuf, size_t errlen)
{
    int count = 0;
    if (text == NULL) {
        for (unsigned i = 0; i < TRANSPORT_COUNT && count < NAL_ROUTES_MAX; i++)
            if (transports[i]->peers != NULL)
                out[count++] = transports[i];
        return count;
    }
    const char *at = text;
    do {
        size_t len = strcspn(at, ",");
        const struct nal_ops *nal = find_routable(at, len);
        const char *problem = nal == NULL ? "is not a transport the hybrid routes through"
                                          : "is named twice";
        for (int i = 0; nal != NULL && i < count; i++)
            if (out[i] == nal)
                nal = NULL;
        if (count == NAL_ROUTES_MAX) {
            nal = NULL;
            problem = "is one more than a list holds";
        }
        if (nal == NULL) {
            snprintf(errbuf, errlen, "%s='%s' is not valid: '%.*s' %s; expected names from %s, "
                     "comma-separated, the preferred first", variable, text, (int)len, at,
                     problem, nal_routable_names());
            return -1;
        }
        out[count++] = nal;
        at += len;
    } while (*at++ == ',');
    return count;
}

int nal_unsupported_op(struct nal_ni *ni, const struct nal_op *op)
{
    (void)ni;
    (void)op;
    return PTL_FAIL;
}

int nal_counts_no_puts(struct nal_ni *ni, unsigned target)
{
    (void)ni;
    (void)target;
    return 0;
}

int nal_no_progress(struct nal_ni *ni)
{
    (void)ni;
    return PTL_OK;
}

void nal_no_report(struct nal_ni *ni)
{
    (void)ni;
}
