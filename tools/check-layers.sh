#!/bin/sh
# The include rule of doc/architecture.md: dependencies point down.  Each
# directory of libcore/ is a layer with a rank; a file may include headers
# of its own layer and of layers ranked below it, never above.  The public
# headers (<gasnet.h>, <gasnet_tools.h>, ...) belong to the API: only the
# layers that implement it (tools, conduit, api) include them.
#
#   util < config < boot < tools < nal < ptl < conduit < api
#
# One edge still points up, named here until the step that removes it
# (issue 21, item 3): transports call back into ptl (ptl_initiator_event,
# ptl_target_*) and read struct ptl_ni.  Any other upward include is an
# error naming the file, the line and the two layers.
# usage: tools/check-layers.sh [LIBCORE_DIR]   (exit 1 on a violation)
dir=${1:-$(dirname "$0")/../libcore}
ranks="util:0 config:1 boot:2 tools:3 nal:4 ptl:5 conduit:6 api:7"
allowed_up="nal->ptl"
public_ok="tools conduit api include"

rank_of() {
    for pair in $ranks; do
        [ "${pair%%:*}" = "$1" ] && { echo "${pair#*:}"; return; }
    done
    echo ""
}

status=0
violations=$(mktemp /tmp/gp-layers.XXXXXX)
trap 'rm -f "$violations"' EXIT
for file in $(cd "$dir" && find . -name '*.[ch]' | sed 's#^\./##' | sort); do
    layer=${file%%/*}
    [ "$layer" = include ] && continue
    own=$(rank_of "$layer")
    if [ -z "$own" ]; then
        echo "check-layers: libcore/$file: directory '$layer' has no rank (add it to tools/check-layers.sh and doc/architecture.md)"
        status=1
        continue
    fi
    grep -n '^[[:space:]]*#[[:space:]]*include' "$dir/$file" | while IFS= read -r line; do
        number=${line%%:*}
        target=$(printf '%s\n' "$line" | sed -n 's/.*#[[:space:]]*include[[:space:]]*"\([a-z_]*\)\/.*/\1/p')
        public=$(printf '%s\n' "$line" | sed -n 's/.*#[[:space:]]*include[[:space:]]*[<"]\(gasnet[a-z_]*\.h\)[>"].*/\1/p')
        if [ -n "$public" ]; then
            case " $public_ok " in *" $layer "*) ;; *)
                echo "libcore/$file:$number: the $layer layer includes the public header $public (only $public_ok may)"
                echo fail >&3 ;;
            esac
            continue
        fi
        [ -z "$target" ] && continue
        [ "$target" = "$layer" ] && continue
        theirs=$(rank_of "$target")
        [ -z "$theirs" ] && continue   # a system or generated header
        if [ "$theirs" -gt "$own" ]; then
            case " $allowed_up " in *" $layer->$target "*) continue ;; esac
            echo "libcore/$file:$number: the $layer layer includes $target, a layer above it ($target/ may include $layer/, not the reverse)"
            echo fail >&3
        fi
    done 3>>"$violations"
done
[ -s "$violations" ] && status=1
exit $status
