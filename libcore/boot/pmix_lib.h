/*
 * The PMIx client calls of boot/pmix.c, reached through a table that
 * gp_pmix_lib_load fills from libpmix the first time a process finds
 * itself under a PMIx server (util/dynlib.h): a process started by gp-run
 * maps neither libpmix nor what it pulls in (libevent, hwloc, munge...).
 * Included by pmix.c right after <pmix.h>: each call, and the two that
 * pmix.h's own macros make (PMIX_INFO_LOAD, PMIX_VALUE_RELEASE), is
 * redefined onto its slot, so the code reads as plain PMIx.
 */
#ifndef GP_BOOT_PMIX_LIB_H
#define GP_BOOT_PMIX_LIB_H

#include <pmix.h>
#include <stddef.h>

/* Each slot has the type pmix.h declares for the call. */
struct gp_pmix_lib {
    __typeof__(PMIx_Init) *init;
    __typeof__(PMIx_Finalize) *finalize;
    __typeof__(PMIx_Abort) *abort;
    __typeof__(PMIx_Put) *put;
    __typeof__(PMIx_Commit) *commit;
    __typeof__(PMIx_Fence_nb) *fence_nb;
    __typeof__(PMIx_Get) *get;
    __typeof__(PMIx_Job_control_nb) *job_control_nb;
    __typeof__(PMIx_Error_string) *error_string;
    __typeof__(PMIx_Data_type_string) *data_type_string;
    __typeof__(PMIx_Info_load) *info_load;
    __typeof__(PMIx_Value_destruct) *value_destruct;
};

extern struct gp_pmix_lib gp_pmix_lib;

/* Loads libpmix once; 0, or -1 with why holding the loader's words. */
int gp_pmix_lib_load(char *why, size_t why_len);

#define PMIx_Init(...) gp_pmix_lib.init(__VA_ARGS__)
#define PMIx_Finalize(...) gp_pmix_lib.finalize(__VA_ARGS__)
#define PMIx_Abort(...) gp_pmix_lib.abort(__VA_ARGS__)
#define PMIx_Put(...) gp_pmix_lib.put(__VA_ARGS__)
#define PMIx_Commit() gp_pmix_lib.commit()
#define PMIx_Fence_nb(...) gp_pmix_lib.fence_nb(__VA_ARGS__)
#define PMIx_Get(...) gp_pmix_lib.get(__VA_ARGS__)
#define PMIx_Job_control_nb(...) gp_pmix_lib.job_control_nb(__VA_ARGS__)
#define PMIx_Error_string(...) gp_pmix_lib.error_string(__VA_ARGS__)
#define PMIx_Data_type_string(...) gp_pmix_lib.data_type_string(__VA_ARGS__)
#define PMIx_Info_load(...) gp_pmix_lib.info_load(__VA_ARGS__)
#define PMIx_Value_destruct(...) gp_pmix_lib.value_destruct(__VA_ARGS__)

#endif
