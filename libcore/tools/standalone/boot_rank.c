/*
 * The tools-only library (libgasnet_tools-*.a, GASNet's way for programs
 * that use gasnet_tools.h without a conduit) has no bootstrap: such a
 * program is one process, node 0 of its own world.  This is the one boot
 * call the tools make (gasnett_verboseenv: only node 0 reports); in libgp
 * the real one in boot/boot.c answers instead.  Outside the libcore/DIR/
 * files that make libgp, on purpose, so libgp never links it.
 */
#include "boot/boot.h"

int gp_boot_rank(void)
{
    return 0;
}
