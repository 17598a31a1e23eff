/*
 * An idle job, for the footprint (tests/integration/footprint.sh and
 * tests/scale/06-footprint.sh): every node attaches a segment of the size
 * given, checks that none of the optional libraries (libibverbs and libnl,
 * libpmix, libcrypto) is mapped into it unless the job uses them, writes
 * DIR/ready-RANK holding its pid, and then sleeps (no gasnet call, so it
 * neither polls nor touches anything) until DIR/go exists.
 *
 * Usage: idle_hold DIR SEGMENT_BYTES [LIBRARY...]
 *   LIBRARY: a name (e.g. "libibverbs") that must NOT be in /proc/self/maps;
 *   "+NAME" says it MUST be there instead.
 */
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "amtest.h"

static gasnet_handlerentry_t table[] = { AMTEST_HANDLERS };

static int exists(const char *dir, const char *name)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

/* 1 if a mapping of this process names a file whose name holds lib. */
static int mapped(const char *lib)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    CHECK(maps != NULL, "cannot read /proc/self/maps");
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, maps) != NULL) {
        const char *path = strchr(line, '/');
        found = path != NULL && strstr(path, lib) != NULL;
    }
    fclose(maps);
    return found;
}

int main(int argc, char **argv)
{
    amtest_name = "idle_hold";
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    CHECK(argc >= 3, "usage: idle_hold DIR SEGMENT_BYTES [LIBRARY...]");
    const char *dir = argv[1];
    uintptr_t seg = (uintptr_t)strtoull(argv[2], NULL, 0);
    CHECK(gasnet_attach(table, (int)(sizeof table / sizeof table[0]), seg, 0) == GASNET_OK,
          "attach");
    gasnet_node_t me = gasnet_mynode();
    for (int i = 3; i < argc; i++) {
        int want = argv[i][0] == '+';
        const char *lib = argv[i] + want;
        CHECK(mapped(lib) == want, "%s is %s /proc/self/maps", lib,
              want ? "missing from" : "loaded: found in");
    }
    amtest_barrier();
    char path[512], tmp[512];
    snprintf(tmp, sizeof tmp, "%s/ready-%u.tmp", dir, (unsigned)me);
    snprintf(path, sizeof path, "%s/ready-%u", dir, (unsigned)me);
    FILE *ready = fopen(tmp, "w");
    CHECK(ready != NULL, "cannot write %s", tmp);
    fprintf(ready, "%ld\n", (long)getpid());
    fclose(ready);
    CHECK(rename(tmp, path) == 0, "cannot rename %s", tmp);
    struct timespec pause_20ms = { 0, 20 * 1000 * 1000 };
    for (int waited = 0; !exists(dir, "go"); waited++) {
        CHECK(waited < 30 * 50, "%s/go did not appear within 30 s", dir);
        nanosleep(&pause_20ms, NULL);
    }
    amtest_barrier();
    gasnet_exit(0);
    return 0;
}
