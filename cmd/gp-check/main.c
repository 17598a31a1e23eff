/*
 * gp-check: does gp work on this system?
 *
 * With no mode option it runs the system checks, in an order where each
 * can use what the ones before established: the environment first (it
 * loads the configuration the later checks measure against), then
 * shared-memory space, the locked-memory limit, what each transport finds
 * here (RDMA devices, libfabric's providers), host names and ssh.  --env
 * prints the configuration table, --run the conformance programs.  The
 * pieces are listed in gp_check.h; the behaviour is in gp-check(1).
 */
#include "gp_check.h"

#include <stdio.h>
#include <string.h>

static int system_checks(const struct check_opts *opts)
{
    int nprocs = check_system_nprocs(opts);
    printf("gp-check " GP_VERSION ": system checks for jobs of %d process%s on this host "
           "(-n to change)\n", nprocs, nprocs == 1 ? "" : "es");
    check_env();
    check_shm(opts);
    check_memlock(opts);
    check_transports();
    struct host_list hosts;
    int hosts_read = hosts_load(&hosts) == 0;
    check_hostname(hosts_read ? &hosts : NULL);
    check_ssh(opts, hosts_read ? &hosts : NULL);
    host_list_free(&hosts);
    return check_failures() > 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
    struct check_opts opts;
    memset(&opts, 0, sizeof opts);
    int status = check_parse_options(argc, (const char **)argv, &opts);
    if (status == CHECK_CONTINUE) {
        switch (opts.mode) {
        case MODE_SYSTEM:
            status = system_checks(&opts);
            break;
        case MODE_ENV:
            if (opts.man)
                check_env_man();
            status = opts.man ? 0 : check_env_list(&opts);
            break;
        case MODE_RUN:
            status = check_run_suite(&opts);
            break;
        }
    }
    check_free_options(&opts);
    return status;
}
