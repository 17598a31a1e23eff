/*
 * What this libgp is: the tools configuration string, embedded in the
 * library so that `strings` finds it in a statically linked program, and
 * the performance warning clients print at start-up.
 */
#include <gasnet_tools.h>

#include "util/export.h"

GASNETT_IDENT(gasnett_IdentString_Config, "$GASNetToolsConfig: (libgp) " GASNETT_CONFIG_STRING " $");

GP_EXPORT const char *gasnett_performance_warning_str(void)
{
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GP_TOOLS_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(GP_TOOLS_SANITIZED)
    return "WARNING: this libgp was built with AddressSanitizer and UBSan for testing;\n"
           "WARNING: its timings are not representative.\n";
#else
    return ""; /* optimized, no tracing, no statistics, no debug checks */
#endif
}
