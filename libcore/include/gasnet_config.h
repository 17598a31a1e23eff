/*
 * gasnet_config.h: how this gp was configured, in the form GASNet users'
 * build systems grep for (configure scripts read the RELEASE lines below).
 *
 * The release numbers are gp's own numbering of the GASNet-1 interface it
 * provides, not a GASNet release: 1.30.0 means "every GASNet-1 feature a
 * client can test for with a release check up to 1.30 is here" --
 * gasnet_getNodeInfo and supernodes (1.18), the relaxed barrier flag
 * matching (1.20), gasnet_barrier, gasnet_barrier_result,
 * GASNET_BARRIERFLAG_UNNAMED and the variable-argument AM calls (1.22),
 * gasnet_coll_* on GASNET_TEAM_ALL, and gasnet_tools.h.  gp's own package
 * version (gp-run --version) is GP_PACKAGE_VERSION.
 */
#ifndef _GASNET_CONFIG_H
#define _GASNET_CONFIG_H

#define GASNET_RELEASE_VERSION_MAJOR 1
#define GASNET_RELEASE_VERSION_MINOR 30
#define GASNET_RELEASE_VERSION_PATCH 0

/* gp itself: the library and commands of this install. */
#define GP_PACKAGE_VERSION_MAJOR 0
#define GP_PACKAGE_VERSION_MINOR 1
#define GP_PACKAGE_VERSION_PATCH 0

/* The one conduit gp builds: the Portals-conduit design over gp's transports. */
#define GASNET_CONDUIT_PORTALS 1
#define GASNET_SEGMENT_FAST 1
#define GASNET_PSHM 1

#endif
