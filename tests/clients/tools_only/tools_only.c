/*
 * A program of gasnet_tools.h alone (no gasnet.h, no conduit, no launcher):
 * timers, atomics, locks, the environment and number parsing.  Prints
 * "tools_only: <mode> ok" when everything answered as documented.
 */
#include <gasnet_tools.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    int bad = 0;
    gasnett_tick_t start = gasnett_ticks_now();
    gasnett_atomic_t a = gasnett_atomic_init(41);
    gasnett_atomic_increment(&a, 0);
    bad += gasnett_atomic_read(&a, 0) != 42;
    gasnett_mutex_t lock = GASNETT_MUTEX_INITIALIZER;
    gasnett_mutex_lock(&lock);
    gasnett_mutex_unlock(&lock);
    bad += gasnett_parse_int("4K", 1) != 4096;
    bad += strcmp(gasnett_getenv_withdefault("GP_TOOLS_ONLY_UNSET", "dflt"), "dflt") != 0;
    bad += gasnett_cpu_count() < 0;
    bad += gasnett_ticks_to_ns(gasnett_ticks_now() - start) > 60ull * 1000000000ull;
#ifdef GASNETT_THREAD_SAFE
    const char *mode = "thread-safe";
#else
    const char *mode = "single";
#endif
    if (bad) {
        printf("tools_only: %d checks failed\n", bad);
        return 1;
    }
    printf("tools_only: %s ok\n", mode);
    return 0;
}
