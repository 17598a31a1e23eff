/*
 * ofi's line among gp-check's system checks ("libfabric"): the providers
 * this host's libfabric lists, those that offer what the ofi transport
 * needs (an FI_EP_RDM endpoint with FI_MSG and FI_RMA), and the one
 * GP_TRANSPORT=ofi would open here (GP_OFI_PROVIDER, FI_PROVIDER, or the
 * one ofi_info.c prefers among those that reach other hosts).  No libfabric, or no
 * provider that fits, is a warning: only the ofi transport needs one.
 */
#include "nal/ofi/ofi.h"

#define CHECK_NAME "libfabric"

void ofi_host_report(struct nal_host_report *out)
{
    if (ofi_fabric_load("gp-check's libfabric check", 0) != 0) {
        nal_host_say(out, NAL_HOST_WARN, CHECK_NAME, "nothing to do unless you want "
                     "GP_TRANSPORT=ofi: then install libfabric1 (Debian) or your site's libfabric",
                     "libfabric.so.1 cannot be loaded");
        return;
    }
    char list[2048], chosen[256];
    ofi_info_list(list, sizeof list, chosen, sizeof chosen);
    const char *wanted = ofi_provider_wanted();
    if (chosen[0] != '\0')
        nal_host_say(out, NAL_HOST_OK, CHECK_NAME, NULL,
                     "providers: %s; GP_TRANSPORT=ofi would use %s%s%s", list, chosen,
                     wanted != NULL ? ", as asked: " : "", wanted != NULL ? wanted : "");
    else
        nal_host_say(out, NAL_HOST_WARN, CHECK_NAME, "set GP_OFI_PROVIDER (or FI_PROVIDER) to "
                     "one marked (rdm+rma), or use GP_TRANSPORT=tcp",
                     "providers: %s; none %s offers an FI_EP_RDM endpoint with FI_MSG, FI_RMA and "
                     "ordered messages reaching other hosts", list[0] ? list : "none",
                     wanted != NULL ? "of those asked for" : "");
}
