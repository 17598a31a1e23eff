/*
 * The libfabric check: the providers this host's libfabric lists, those
 * that offer what the ofi transport needs (an FI_EP_RDM endpoint with
 * FI_MSG and FI_RMA), and the one GP_TRANSPORT=ofi would open here
 * (GP_OFI_PROVIDER, FI_PROVIDER, or libfabric's first that reaches other
 * hosts).  No libfabric, or no provider that fits, is a warning: only the
 * ofi transport needs one.
 */
#include "gp_check.h"

#include <stdlib.h>

#include "nal/ofi/ofi.h"

void check_fabric(void)
{
    if (ofi_fabric_load("gp-check's libfabric check", 0) != 0) {
        check_report(CHECK_WARN, "libfabric", "nothing to do unless you want GP_TRANSPORT=ofi: "
                     "then install libfabric1 (Debian) or your site's libfabric",
                     "libfabric.so.1 cannot be loaded");
        return;
    }
    char list[2048], chosen[256];
    ofi_info_list(list, sizeof list, chosen, sizeof chosen);
    const char *wanted = ofi_provider_wanted();
    if (chosen[0] != '\0')
        check_ok("libfabric", "providers: %s; GP_TRANSPORT=ofi would use %s%s%s", list, chosen,
                 wanted != NULL ? ", as asked: " : "", wanted != NULL ? wanted : "");
    else
        check_report(CHECK_WARN, "libfabric", "set GP_OFI_PROVIDER (or FI_PROVIDER) to one marked "
                     "(rdm+rma), or use GP_TRANSPORT=tcp",
                     "providers: %s; none %s offers an FI_EP_RDM endpoint with FI_MSG, FI_RMA and "
                     "ordered messages reaching other hosts", list[0] ? list : "none",
                     wanted != NULL ? "of those asked for" : "");
}
