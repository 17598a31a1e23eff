#!/bin/sh
# The include rule (doc/architecture.md, "Layers"): tools/check-layers.sh
# passes on this tree, and fails, naming the file and the layers, on a copy
# with one include pointing up (and one from a transport into ptl: no edge
# is exempt), one public header below the API and one cycle of includes;
# and tools/check-faces.sh (the face rule, "libcore/api/") passes on this
# tree and fails on an api/ex/ file that calls gasnet_put or includes a
# gasnet1/ header.  Runs once (seq): the sources are the same for every
# variant.
. "$(dirname "$0")/../lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
T=layers
if [ "$GPTEST_VARIANT" != seq ]; then
    echo "skip $T/tree: the sources are checked once, with the seq variant"
    end_tests
    exit 0
fi
expect_rc "$T/tree" 0 60 sh "$top/tools/check-layers.sh" "$top/libcore" && pass "$T/tree"
expect_rc "$T/faces_tree" 0 60 sh "$top/tools/check-faces.sh" "$top/libcore" && pass "$T/faces_tree"

tmp=$(mktemp -d /tmp/gp-layers-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
cp -r "$top/libcore" "$tmp/libcore"
printf '#include "conduit/core/state.h"\n' >>"$tmp/libcore/config/rows.h"
expect_rc "$T/upward_include" 1 60 sh "$top/tools/check-layers.sh" "$tmp/libcore" &&
    check_line "$T/upward_include" "libcore/config/rows.h:[0-9]*: the config layer includes conduit, a layer above it"

cp "$top/libcore/config/rows.h" "$tmp/libcore/config/rows.h"
printf '#include <gasnet.h>\n' >>"$tmp/libcore/boot/boot.h"
expect_rc "$T/public_header_below_api" 1 60 sh "$top/tools/check-layers.sh" "$tmp/libcore" &&
    check_line "$T/public_header_below_api" "libcore/boot/boot.h:[0-9]*: the boot layer includes the public header gasnet.h"

cp "$top/libcore/boot/boot.h" "$tmp/libcore/boot/boot.h"
# (the cycle is reported from whichever of its headers the walk meets first)
printf '#include "conduit/core/state.h"\n' >>"$tmp/libcore/conduit/am/am.h"
expect_rc "$T/include_cycle" 1 60 sh "$top/tools/check-layers.sh" "$tmp/libcore" &&
    check_line "$T/include_cycle" "the includes run in a cycle: .*libcore/conduit/\(am/am.h -> libcore/conduit/core/state.h\|core/state.h -> libcore/conduit/am/am.h\) -> "

cp "$top/libcore/conduit/am/am.h" "$tmp/libcore/conduit/am/am.h"
printf '#include "ptl/ni.h"\n' >>"$tmp/libcore/nal/tcp/tcp.h"
expect_rc "$T/transport_includes_ptl" 1 60 sh "$top/tools/check-layers.sh" "$tmp/libcore" &&
    check_line "$T/transport_includes_ptl" "libcore/nal/tcp/tcp.h:[0-9]*: the nal layer includes ptl, a layer above it"

cp "$top/libcore/nal/tcp/tcp.h" "$tmp/libcore/nal/tcp/tcp.h"
mkdir "$tmp/libcore/newlayer" && printf 'int x;\n' >"$tmp/libcore/newlayer/x.c"
expect_rc "$T/unranked_directory" 1 60 sh "$top/tools/check-layers.sh" "$tmp/libcore" &&
    check_line "$T/unranked_directory" "directory 'newlayer' has no rank"

# The face rule: api/ex/ calls the conduit (and api/common/), never the GASNet-1 face.
rm -r "$tmp/libcore/newlayer"
mkdir -p "$tmp/libcore/api/ex"
printf '/* gasnet_get( in a comment is no call */\nint gex_x(void *a, void *b);\nint gex_x(void *a, void *b)\n{\n    gasnet_put(1, a, b, 8);\n    return (int)(gasnet_ErrorName(0) != 0);\n}\n' >"$tmp/libcore/api/ex/put.c"
expect_rc "$T/ex_calls_gasnet1" 1 60 sh "$top/tools/check-faces.sh" "$tmp/libcore" &&
    check_line "$T/ex_calls_gasnet1" "libcore/api/ex/put.c:5: the EX face calls gasnet_put, a function of the GASNet-1 face"
if printf '%s\n' "$out" | grep -q 'gasnet_ErrorName\|gasnet_get\|put.c:1:'; then
    fail "$T/ex_calls_common" "a name of api/common/ or a comment was taken for a GASNet-1 call: $out"
else
    pass "$T/ex_calls_common"
fi
printf '/* x */\n#include "api/gasnet1/diag.h"\n' >"$tmp/libcore/api/ex/put.c"
expect_rc "$T/ex_includes_gasnet1" 1 60 sh "$top/tools/check-faces.sh" "$tmp/libcore" &&
    check_line "$T/ex_includes_gasnet1" "libcore/api/ex/put.c:2: the ex face includes a header of the gasnet1 face"
end_tests
