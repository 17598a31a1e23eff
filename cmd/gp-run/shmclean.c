/*
 * Removal of the job's leftover shared-memory objects.
 *
 * libgp names every shared-memory object of a job "gp-JOBID-...", and
 * unlinks each as soon as all peers have mapped it; a process that dies
 * in between leaves the object behind in /dev/shm, where it would hold
 * memory until reboot.  gp-run, which outlives every process of the job,
 * removes whatever is left -- or, with -k, keeps and lists it.
 */
#include "gp_run.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SHM_DIR "/dev/shm"

void shm_cleanup(const char *jobid, int keep)
{
    char prefix[GP_BOOT_JOBID_LEN + 8];
    snprintf(prefix, sizeof prefix, "gp-%s-", jobid);
    DIR *dir = opendir(SHM_DIR);
    if (dir == NULL)
        return;
    int dir_fd = dirfd(dir);
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        if (strncmp(entry->d_name, prefix, strlen(prefix)) != 0)
            continue;
        if (keep) {
            run_note("kept %s/%s (-k)", SHM_DIR, entry->d_name);
        } else if (unlinkat(dir_fd, entry->d_name, 0) == 0) {
            run_note("removed the job's leftover %s/%s", SHM_DIR, entry->d_name);
        } else if (errno != ENOENT) {
            run_say("cannot remove the job's leftover %s/%s: %m", SHM_DIR, entry->d_name);
        }
    }
    closedir(dir);
}
