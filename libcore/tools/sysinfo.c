/*
 * What the tools tell about this machine and ask of it: host name, CPUs,
 * physical memory, yielding, processor affinity, resource limits, flushing
 * the standard streams, and anonymous mappings.
 */
#include <gasnet_tools.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "util/export.h"
#include "util/log.h"

static pthread_once_t hostname_once = PTHREAD_ONCE_INIT;
static char hostname[256];

static void read_hostname(void)
{
    if (gethostname(hostname, sizeof hostname - 1) != 0 || hostname[0] == '\0')
        snprintf(hostname, sizeof hostname, "unknown-host");
    hostname[sizeof hostname - 1] = '\0';
}

GP_EXPORT const char *gasnett_gethostname(void)
{
    pthread_once(&hostname_once, read_hostname);
    return hostname;
}

GP_EXPORT int gasnett_cpu_count(void)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 0;
}

GP_EXPORT uint64_t gasnett_getPhysMemSz(int failureIsFatal)
{
    long pages = sysconf(_SC_PHYS_PAGES);
    long page_size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page_size > 0)
        return (uint64_t)pages * (uint64_t)page_size;
    if (failureIsFatal)
        gp_fatal("gasnett_getPhysMemSz: sysconf cannot tell the physical memory size: %s",
                 strerror(errno));
    return 0;
}

/* GASNet's gasnett_mmap returns only a mapping: a caller never checks for
 * failure, so a refused one stops here, naming what was asked. */
GP_EXPORT void *gasnett_mmap(uintptr_t size)
{
    if (size == 0)
        gp_fatal("gasnett_mmap: size 0 (accepted: 1 byte or more, rounded up to whole pages)");
    void *p = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        gp_fatal("gasnett_mmap: cannot map %llu bytes of anonymous memory: %s",
                 (unsigned long long)size, strerror(errno));
    return p;
}

GP_EXPORT int gasnett_sched_yield(void)
{
    return sched_yield();
}

/* The processors this process was allowed when first asked, so repeated calls agree. */
static pthread_once_t allowed_once = PTHREAD_ONCE_INIT;
static cpu_set_t allowed;
static int allowed_count;

static void read_allowed(void)
{
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        allowed_count = CPU_COUNT(&allowed);
}

GP_EXPORT int gasnett_set_affinity(int rank)
{
    pthread_once(&allowed_once, read_allowed);
    if (allowed_count <= 0)
        return -1;
    int wanted = (int)(((long)rank % allowed_count + allowed_count) % allowed_count);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed) || wanted-- > 0)
            continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        /* Best effort, as GASNet's: a refusal leaves the thread where it was. */
        int rc = pthread_setaffinity_np(pthread_self(), sizeof one, &one);
        if (rc != 0)
            gp_debug("tools", "gasnett_set_affinity(%d): cannot bind to cpu %d", rank, cpu);
        return rc;
    }
    return -1;
}

GP_EXPORT void gasnett_nsleep(uint64_t ns)
{
    struct timespec left = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
    while (nanosleep(&left, &left) != 0 && errno == EINTR)
        continue;
}

GP_EXPORT void gasnett_flush_streams(void)
{
    fflush(NULL);
}

/*
 * Soft limits up to the hard ones.  The stack limit is left alone: raising
 * it changes the default stack of every new thread.  GASNet's per-limit
 * GASNET_MAXIMIZE_<RLIMIT> switches are not read (gp has no rows for them).
 */
GP_EXPORT int gasnett_maximize_rlimits(void)
{
    static const int resources[] = { RLIMIT_CPU, RLIMIT_DATA, RLIMIT_RSS, RLIMIT_AS,
                                     RLIMIT_NOFILE, RLIMIT_NPROC, RLIMIT_MEMLOCK };
    int all_raised = 1;
    for (size_t i = 0; i < sizeof resources / sizeof resources[0]; i++) {
        struct rlimit limit;
        if (getrlimit(resources[i], &limit) != 0) {
            all_raised = 0;
            continue;
        }
        if (limit.rlim_cur == limit.rlim_max)
            continue;
        limit.rlim_cur = limit.rlim_max;
        if (setrlimit(resources[i], &limit) != 0) {
            gp_debug("tools", "gasnett_maximize_rlimits: resource %d: %m", resources[i]);
            all_raised = 0;
        }
    }
    return all_raised;
}
