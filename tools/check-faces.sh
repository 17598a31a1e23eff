#!/bin/sh
# The face rule of doc/architecture.md ("libcore/api/"): the API layer holds
# one folder per face, side by side, and each face calls the conduit, never
# the other face.  A file of the GASNet-EX face (api/ex/) may not call a
# gasnet_ or gasnetc_ function, those are the GASNet-1 face's, except the
# ones api/common/ defines for both faces (gasnet_ErrorName, ...); and no
# face includes another face's headers (api/gasnet1/ from api/ex/, or the
# reverse).  Comments and string literals are not read.  A violation is an
# error naming the file, the line and the rule.  Run by make lint, beside
# tools/check-layers.sh, and by the layers integration test.
# usage: tools/check-faces.sh [LIBCORE_DIR]   (exit 1 on a violation)
dir=${1:-$(dirname "$0")/../libcore}
[ -d "$dir/api" ] || exit 0
files=$(cd "$dir" && find api -name '*.[ch]' | sort)
[ -z "$files" ] && exit 0
# api/common/ sorts before api/ex/: its names are known before ex/'s calls are read.
# shellcheck disable=SC2086
cd "$dir" && exec awk '
BEGIN { bad = 0 }
FNR == 1 {
    face = FILENAME
    sub(/^api\//, "", face)
    if (index(face, "/") == 0)
        face = ""          # a file at api/ itself: no face
    else
        sub(/\/.*/, "", face)
    in_comment = 0
}
{
    # the line without comments and string or character literals
    line = $0
    text = ""
    while (line != "") {
        if (in_comment) {
            end = index(line, "*/")
            if (end == 0) { line = ""; break }
            line = substr(line, end + 2)
            in_comment = 0
            continue
        }
        if (!match(line, /\/\*|\/\/|"|'\''/)) { text = text line; break }
        text = text substr(line, 1, RSTART - 1)
        token = substr(line, RSTART, RLENGTH)
        line = substr(line, RSTART + RLENGTH)
        if (token == "/*") {
            in_comment = 1
        } else if (token == "//") {
            line = ""
        } else {
            # a literal: skip to its closing quote (escapes taken whole)
            while (line != "" && substr(line, 1, 1) != token)
                line = substr(line, (substr(line, 1, 1) == "\\") ? 3 : 2)
            line = substr(line, 2)
            text = text " "
        }
    }
}
face != "" && match($0, /^[ \t]*#[ \t]*include[ \t]*"api\/[a-z0-9_]+\//) {
    other = substr($0, RSTART, RLENGTH)
    sub(/^[^"]*"api\//, "", other)
    sub(/\/$/, "", other)
    if (other != face && other != "common") {
        printf "libcore/%s:%d: the %s face includes a header of the %s face (faces call the conduit and api/common/, never each other)\n", FILENAME, FNR, face, other
        bad = 1
    }
    next
}
face == "common" {
    rest = text
    while (match(rest, /gasnetc?_[A-Za-z0-9_]*[ \t]*\(/)) {
        name = substr(rest, RSTART, RLENGTH)
        sub(/[ \t]*\($/, "", name)
        shared[name] = 1
        rest = substr(rest, RSTART + RLENGTH)
    }
}
face == "ex" {
    rest = text
    while (match(rest, /(^|[^A-Za-z0-9_])gasnetc?_[A-Za-z0-9_]*[ \t]*\(/)) {
        name = substr(rest, RSTART, RLENGTH)
        sub(/^[^g]*/, "", name)
        sub(/[ \t]*\($/, "", name)
        rest = substr(rest, RSTART + RLENGTH)
        if (!(name in shared)) {
            printf "libcore/%s:%d: the EX face calls %s, a function of the GASNet-1 face (api/ex/ calls the conduit and api/common/, never api/gasnet1/)\n", FILENAME, FNR, name
            bad = 1
        }
    }
}
END { exit bad }
' $files
