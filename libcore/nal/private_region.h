/*
 * The registered region of a transport whose peers reach it only through
 * this process (tcp, ibv, ofi, loop): private anonymous memory as
 * ni->region (populate: every page faulted in now, for a transport that
 * registers it whole), PTL_OK or PTL_NO_SPACE after a line naming the
 * transport; its release at fini; and the peer table with only this
 * process's own region in it (what ptl_direct_address reaches).  shm maps
 * its peers' regions instead.
 */
#ifndef GP_NAL_PRIVATE_REGION_H
#define GP_NAL_PRIVATE_REGION_H

#include <stdint.h>

#include "nal/nal.h"

int nal_private_region(struct nal_ni *ni, uint64_t bytes, int populate, const char *transport);
void nal_private_region_free(struct nal_ni *ni);
int nal_own_region_only(struct nal_ni *ni);

#endif
