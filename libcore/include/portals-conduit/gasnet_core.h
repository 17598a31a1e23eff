/*
 * portals-conduit/gasnet_core.h: the core API header of the conduit, at the
 * path GASNet's layout gives it (clients' build systems test for it; the
 * fragments put this directory on the include path).  gp declares the
 * core and extended API together in gasnet.h, so this header is that one.
 */
#ifndef _GASNET_CORE_H
#define _GASNET_CORE_H
#include "../gasnet.h"
#endif
