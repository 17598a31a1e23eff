#!/bin/sh
# The include rule of doc/architecture.md: dependencies point down.  Each
# directory of libcore/ is a layer with a rank; a file may include headers
# of its own layer and of layers ranked below it, never above.  The public
# headers (<gasnet.h>, <gasnet_tools.h>, ...) belong to the API: only the
# layers that implement it (tools, conduit, api) include them.
#
#   util < config < boot < tools < nal < ptl < conduit < api
#
# A header is named from libcore/ ("conduit/am/am_ring.h", "api/common/
# export.h"): its first component is its layer, whatever folders follow.
# An upward include is an error naming the file, the line and the two
# layers; so is a cycle of includes (a header that reaches itself), named
# by its files.  allowed_up names "lower->upper" edges tolerated while a
# planned step removes them; it is empty (transports call up into ptl
# through nal/upcalls.h, which ptl implements, and see only struct nal_ni
# of its NI).
# usage: tools/check-layers.sh [LIBCORE_DIR]   (exit 1 on a violation)
dir=${1:-$(dirname "$0")/../libcore}
ranks="util:0 config:1 boot:2 tools:3 nal:4 ptl:5 conduit:6 api:7"
allowed_up=""
public_ok="tools conduit api include"

# One awk over every file: a process per include line took a minute on a loaded machine.
files=$(cd "$dir" && find . -name '*.[ch]' | sed 's#^\./##' | sort)
[ -z "$files" ] && exit 0
# shellcheck disable=SC2086
cd "$dir" && exec awk -v ranks="$ranks" -v allowed_up="$allowed_up" -v public_ok="$public_ok" '
BEGIN {
    n = split(ranks, pairs, " ")
    for (i = 1; i <= n; i++) {
        split(pairs[i], kv, ":")
        rank[kv[1]] = kv[2] + 0
    }
    bad = 0
}
FNR == 1 {
    layer = FILENAME
    sub(/\/.*/, "", layer)
    skip = (layer == "include")
    if (!skip && !(layer in rank)) {
        printf "check-layers: libcore/%s: directory '\''%s'\'' has no rank (add it to tools/check-layers.sh and doc/architecture.md)\n", FILENAME, layer
        bad = 1
        skip = 1
    }
}
FNR == 1 { known[FILENAME] = 1; order[++nfiles] = FILENAME }
skip || !/^[ \t]*#[ \t]*include/ { next }
match($0, /#[ \t]*include[ \t]*"[a-z_]+(\/[a-z0-9_]+)+\.h"/) {
    header = substr($0, RSTART, RLENGTH - 1)
    sub(/^.*"/, "", header)
    edges[FILENAME] = edges[FILENAME] " " header
}
match($0, /#[ \t]*include[ \t]*[<"]gasnet[a-z_]*\.h[>"]/) {
    public = substr($0, RSTART, RLENGTH)
    sub(/^.*[<"]/, "", public)
    sub(/[>"]$/, "", public)
    if (index(" " public_ok " ", " " layer " ") == 0) {
        printf "libcore/%s:%d: the %s layer includes the public header %s (only %s may)\n", FILENAME, FNR, layer, public, public_ok
        bad = 1
    }
    next
}
match($0, /#[ \t]*include[ \t]*"[a-z_]+\//) {   # the layer is the first component
    target = substr($0, RSTART, RLENGTH - 1)
    sub(/^.*"/, "", target)
    if (target == layer || !(target in rank))   # own layer, or a system or generated header
        next
    if (rank[target] > rank[layer] && index(" " allowed_up " ", " " layer "->" target " ") == 0) {
        printf "libcore/%s:%d: the %s layer includes %s, a layer above it (%s/ may include %s/, not the reverse)\n", FILENAME, FNR, layer, target, target, layer
        bad = 1
    }
}
# A header that includes itself through others: its guard hides one of them from the other.
function visit(file,    list, count, i, next_file, j, path) {
    state[file] = 1
    stack[++depth] = file
    count = split(edges[file], list, " ")
    for (i = 1; i <= count; i++) {
        next_file = list[i]
        if (!(next_file in known))
            continue
        if (state[next_file] == 1) {
            path = ""
            for (j = depth; stack[j] != next_file; j--)
                ;
            for (; j <= depth; j++)
                path = path "libcore/" stack[j] " -> "
            printf "check-layers: the includes run in a cycle: %slibcore/%s\n", path, next_file
            bad = 1
        } else if (state[next_file] == 0) {
            visit(next_file)
        }
    }
    depth--
    state[file] = 2
}
END {
    for (i = 1; i <= nfiles; i++)   # in the sorted order of the files: the same report each run
        if (order[i] in edges && state[order[i]] == 0)
            visit(order[i])
    exit bad
}
' $files
