/*
 * The GASNet-EX objects, shared by both faces (gex_objects.c).  A process
 * has one client, one endpoint and one primordial team, made by gex_Client_Init or, for a GASNet-1
 * client, by gasnet_init (gasnet_QueryGexObjects hands them out), and at
 * most one segment: the conduit's, whose address and size are read from the
 * conduit rather than kept twice.
 */
#ifndef GP_API_COMMON_GEX_OBJECTS_H
#define GP_API_COMMON_GEX_OBJECTS_H
#include <gasnetex.h>

struct _gex_client {
    const char *name;
    gex_Flags_t flags;
    void *cdata;
};
struct _gex_ep {
    void *cdata;
};
struct _gex_segment {
    void *cdata;
};
struct _gex_tm {
    void *cdata;
};

extern struct _gex_client gpx_client;
extern struct _gex_ep gpx_ep;
extern struct _gex_segment gpx_segment;
extern struct _gex_tm gpx_tm0;

/* api/ex/client.c.  Fatal unless tm is the primordial team and rank one of its members. */
void gpx_check_tm_rank(const char *call, gex_TM_t tm, gex_Rank_t rank);
/* Fatal unless the segment is attached and the caller is not in a handler. */
void gpx_check_callable(const char *call);
#endif
