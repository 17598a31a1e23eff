/*
 * The conformance programs: gp's integration test programs, each run the
 * way its script in tests/integration runs it, with the exit status and
 * the output line that say it passed.  Together they cover the bootstrap,
 * the ptl layer, every AM category and argument count (packed and
 * unpacked Longs), flow control with credits under a flood, every
 * put/get/memset form as direct copies and through the Portals protocol,
 * random mixes checked by checksums, threads (in PAR builds), barriers,
 * the later additions (variable-argument AMs, barrier_result, collectives),
 * the VIS puts and gets (copies and packed messages) and the ways a job can
 * exit.
 *
 * Where they are: in a build tree, build/VARIANT/tests/integration next to
 * build/VARIANT/bin; installed, PREFIX/libexec/gp/conformance next to
 * PREFIX/bin (make install puts them there).  Both are found relative to
 * gp-check's own directory, so an installed tree can be moved.
 */
#include "gp_check.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Relative to the directory holding gp-check. */
static const char *const suite_dirs[] = { "../libexec/gp/conformance", "../tests/integration" };

#define EXIT_ENV "GASNET_EXITTIMEOUT=3"

static const struct suite_prog programs[] = {
    { "bootstrap", "boot_collectives", "%n", "%n", NULL, 0, NULL },
    { "ptl_exchange", "ptl_exchange", "", "", NULL, 0, "every byte verified" },
    { "am_core", "am_core", "2", "1", NULL, 0, "every category and argument count verified" },
    { "am_core_unpacked_longs", "am_core", "1", NULL, "GASNET_PORTAL_PACKED_LONG=0", 0,
      "every category and argument count verified" },
    { "am_flood_credits", "am_flood", "400 1", "100 0", "GASNET_PORTAL_AMRECV_SPACE=64K", 0,
      "arrived exactly once" },
    { "am_threads", "am_threads", "4 1500", NULL, NULL, 0, "each run exactly once" },
    { "ext_core", "ext_core", "10000", "100", NULL, 0, "every put/get/memset form verified" },
    { "ext_core_protocol", "ext_core", "200", NULL, "GP_DIRECT_RMA=0", 0,
      "every put/get/memset form verified" },
    { "ext_stress", "ext_stress", "2000 %n", "300 %n", NULL, 0, "every area's checksum matched" },
    { "ext_stress_protocol", "ext_stress", "2000 %n", NULL, "GP_DIRECT_RMA=0", 0,
      "every area's checksum matched" },
    { "ext_threads", "ext_threads", "4 20", NULL, NULL, 0, "puts and gets verified" },
    { "am_varargs", "later_api", "varargs", "varargs", NULL, 0,
      "varargs AMs with 0..16 arguments" },
    { "barrier_result", "later_api", "barrier", NULL, NULL, 0,
      "barrier_result and relaxed flag matching verified" },
    { "collectives", "later_api", "coll 1", NULL, NULL, 0,
      "broadcasts (every IN x OUT flag pair, SINGLE and LOCAL)" },
    { "vis", "vis", "all", "all", NULL, 0,
      "vector, indexed and strided puts and gets, blocking, nb, nbi and in access regions" },
    { "vis_packed", "vis", "all", NULL, "GP_DIRECT_RMA=0", 0,
      "vector, indexed and strided puts and gets, blocking, nb, nbi and in access regions" },
    { "exit_collective", "exit_cases", "collective 7", "collective 7", EXIT_ENV, 7, NULL },
    { "exit_in_request_handler", "exit_cases", "request_handler 7", NULL, EXIT_ENV, 7, NULL },
    { "exit_one_while_polling", "exit_cases", "one_polling 7", NULL, EXIT_ENV, 7, NULL },
    { "exit_return_from_main", "exit_cases", "return_one 7", NULL, EXIT_ENV, 7, NULL },
};

const struct suite_prog *suite_programs(size_t *count)
{
    *count = sizeof programs / sizeof programs[0];
    return programs;
}

static int executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *check_bin_dir(void)
{
    char path[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", path, sizeof path - 1);
    if (len <= 0)
        return NULL;
    path[len] = '\0';
    char *slash = strrchr(path, '/');
    if (slash == NULL)
        return NULL;
    *slash = '\0';
    return strdup(path[0] ? path : "/");
}

char *suite_find_dir(const char *bin_dir, char *tried, size_t tried_len)
{
    size_t used = 0;
    tried[0] = '\0';
    for (size_t i = 0; bin_dir != NULL && i < sizeof suite_dirs / sizeof suite_dirs[0]; i++) {
        char *dir = NULL, *probe = NULL;
        if (asprintf(&dir, "%s/%s", bin_dir, suite_dirs[i]) < 0)
            return NULL;
        int found = asprintf(&probe, "%s/%s", dir, programs[0].program) >= 0 &&
                    executable(probe);
        free(probe);
        if (found) {
            char *clean = realpath(dir, NULL);
            free(clean != NULL ? dir : clean);
            return clean != NULL ? clean : dir;
        }
        int n = snprintf(tried + used, tried_len - used, "%s%s", used ? " or " : "", dir);
        used += n > 0 && (size_t)n < tried_len - used ? (size_t)n : 0;
        free(dir);
    }
    return NULL;
}

char *check_find_gp_run(const char *bin_dir)
{
    char *path = NULL;
    if (bin_dir != NULL && asprintf(&path, "%s/gp-run", bin_dir) >= 0 && executable(path))
        return path;
    free(path);
    const char *search = getenv("PATH");
    for (const char *dir = search; dir != NULL && *dir != '\0';) {
        size_t len = strcspn(dir, ":");
        path = NULL;
        if (len > 0 && asprintf(&path, "%.*s/gp-run", (int)len, dir) >= 0 && executable(path))
            return path;
        free(path);
        dir += len + (dir[len] == ':');
    }
    return NULL;
}
