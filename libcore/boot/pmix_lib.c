/*
 * libpmix, loaded when a process finds itself under a PMIx server
 * (pmix_lib.h).  The soname first, as the loader's search path finds it;
 * then the file in the directory the build found PMIx in (Debian keeps it
 * under pmix2/lib, which a program linked with -lpmix reached by an rpath).
 */
#include "boot/pmix_lib.h"

#include "util/dynlib.h"

#define PMIX_SONAME "libpmix.so.2"

struct gp_pmix_lib gp_pmix_lib;

int gp_pmix_lib_load(char *why, size_t why_len)
{
    static int loaded;
    const struct gp_dynsym syms[] = {
        { "PMIx_Init", (void **)&gp_pmix_lib.init },
        { "PMIx_Finalize", (void **)&gp_pmix_lib.finalize },
        { "PMIx_Abort", (void **)&gp_pmix_lib.abort },
        { "PMIx_Put", (void **)&gp_pmix_lib.put },
        { "PMIx_Commit", (void **)&gp_pmix_lib.commit },
        { "PMIx_Fence_nb", (void **)&gp_pmix_lib.fence_nb },
        { "PMIx_Get", (void **)&gp_pmix_lib.get },
        { "PMIx_Job_control_nb", (void **)&gp_pmix_lib.job_control_nb },
        { "PMIx_Error_string", (void **)&gp_pmix_lib.error_string },
        { "PMIx_Data_type_string", (void **)&gp_pmix_lib.data_type_string },
        { "PMIx_Info_load", (void **)&gp_pmix_lib.info_load },
        { "PMIx_Value_destruct", (void **)&gp_pmix_lib.value_destruct },
    };
    static const char *const names[] = {
        PMIX_SONAME,
#ifdef GP_PMIX_LIBDIR
        GP_PMIX_LIBDIR "/" PMIX_SONAME,
#endif
        NULL,
    };
    if (!loaded && gp_dynlib_open(names, syms, sizeof syms / sizeof syms[0], why, why_len) == 0)
        loaded = 1;
    return loaded ? 0 : -1;
}
