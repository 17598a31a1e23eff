/*
 * libibverbs, loaded when a job first wants verbs (ibv_verbs.h).
 */
#include "nal/ibv/ibv_verbs.h"

#include <dirent.h>
#include <string.h>

#include "util/dynlib.h"
#include "util/log.h"

#define VERBS_SONAME "libibverbs.so.1"

struct gp_verbs gp_verbs;

static struct gp_dynlib_once library;

int ibv_verbs_load(const char *needed_by, int fatal)
{
    /* The slots of the table, each under the library's name for it. */
    const struct gp_dynsym syms[] = {
        { "ibv_get_device_list", (void **)&gp_verbs.get_device_list },
        { "ibv_free_device_list", (void **)&gp_verbs.free_device_list },
        { "ibv_get_device_name", (void **)&gp_verbs.get_device_name },
        { "ibv_open_device", (void **)&gp_verbs.open_device },
        { "ibv_close_device", (void **)&gp_verbs.close_device },
        { "ibv_query_device", (void **)&gp_verbs.query_device },
        { "ibv_query_port", (void **)&gp_verbs.query_port },
        { "ibv_query_gid", (void **)&gp_verbs.query_gid },
        { "ibv_alloc_pd", (void **)&gp_verbs.alloc_pd },
        { "ibv_dealloc_pd", (void **)&gp_verbs.dealloc_pd },
        { "ibv_reg_mr", (void **)&gp_verbs.reg_mr },
        { "ibv_dereg_mr", (void **)&gp_verbs.dereg_mr },
        { "ibv_create_comp_channel", (void **)&gp_verbs.create_comp_channel },
        { "ibv_destroy_comp_channel", (void **)&gp_verbs.destroy_comp_channel },
        { "ibv_get_cq_event", (void **)&gp_verbs.get_cq_event },
        { "ibv_ack_cq_events", (void **)&gp_verbs.ack_cq_events },
        { "ibv_create_cq", (void **)&gp_verbs.create_cq },
        { "ibv_destroy_cq", (void **)&gp_verbs.destroy_cq },
        { "ibv_create_qp", (void **)&gp_verbs.create_qp },
        { "ibv_modify_qp", (void **)&gp_verbs.modify_qp },
        { "ibv_destroy_qp", (void **)&gp_verbs.destroy_qp },
        { "ibv_create_srq", (void **)&gp_verbs.create_srq },
        { "ibv_destroy_srq", (void **)&gp_verbs.destroy_srq },
        { "ibv_wc_status_str", (void **)&gp_verbs.wc_status_str },
        { "ibv_port_state_str", (void **)&gp_verbs.port_state_str },
    };
    static const char *const names[] = { VERBS_SONAME, NULL };
    int opened = gp_dynlib_open_once(&library, names, syms, sizeof syms / sizeof syms[0]);
    if (opened == 1)
        return 0;
    if (fatal)
        gp_fatal("%s needs the verbs library " VERBS_SONAME ", which cannot be loaded: %s "
                 "(install libibverbs1 and the providers of the HCA, e.g. Debian's "
                 "ibverbs-providers; or set GP_TRANSPORT=tcp)", needed_by, library.why);
    if (opened == 0 && needed_by != NULL) {   /* said once: the hybrid asks at each attach */
        gp_warn("ibv", "%s would use this host's verbs devices, but " VERBS_SONAME " cannot be "
                "loaded: %s; other hosts are reached over tcp (install libibverbs1, or set "
                "GP_TRANSPORT=tcp to say so)", needed_by, library.why);
    }
    return -1;
}

const char *ibv_verbs_why(void)
{
    return library.why;
}

int ibv_verbs_devices_present(void)
{
    DIR *dir = opendir("/sys/class/infiniband_verbs");
    if (dir == NULL)
        return 0;
    int found = 0;
    for (struct dirent *entry; !found && (entry = readdir(dir)) != NULL;)
        found = strncmp(entry->d_name, "uverbs", 6) == 0;
    closedir(dir);
    return found;
}
