/*
 * GASNet-EX's memory-kinds header.  gp has the host kind only
 * (GEX_MK_HOST, in gasnetex.h): no gex_MK_Create and no
 * GASNET_HAVE_MK_CLASS_* macro, so clients that test those compile their
 * device paths out.  GASNet's tests include this header unconditionally.
 */
#ifndef _INCLUDED_GASNET_MK_H
#define _INCLUDED_GASNET_MK_H
#include "gasnetex.h"
#endif
