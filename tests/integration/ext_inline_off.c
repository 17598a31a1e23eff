/*
 * ext_inline built as a client that turns gasnet.h's inline puts and gets
 * off: every form must then reach the library, never the table's decoy.
 */
#define GP_NO_INLINE_RMA 1
#include "ext_inline.c"
