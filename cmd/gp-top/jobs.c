/*
 * Finding jobs: every process of a job has a page /dev/shm/gp-JOBID-stats-RANK,
 * mode 0600, owned by the job's user.  gp-top lists only the pages owned
 * by the user running it -- even root, who could read them all, sees only
 * its own jobs -- and calls a job as new as its newest page.
 */
#include "gp_top.h"

#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int jobs_parse_name(const char *name, char *jobid, uint32_t *rank)
{
    if (strncmp(name, "gp-", 3) != 0)
        return 0;
    const char *tail = NULL;
    for (const char *p = strstr(name + 3, "-stats-"); p != NULL; p = strstr(p + 1, "-stats-"))
        tail = p; /* the last one: a job id could hold "-stats-" itself */
    if (tail == NULL || tail == name + 3 || (size_t)(tail - (name + 3)) >= TOP_JOBID_MAX)
        return 0;
    const char *digits = tail + 7;
    if (*digits < '0' || *digits > '9' || strspn(digits, "0123456789") != strlen(digits) ||
        strlen(digits) > 9)
        return 0;
    memcpy(jobid, name + 3, (size_t)(tail - (name + 3)));
    jobid[tail - (name + 3)] = '\0';
    *rank = (uint32_t)strtoul(digits, NULL, 10);
    return 1;
}

static struct top_job *find_or_add(struct top_job **jobs, size_t *count, const char *jobid)
{
    for (size_t i = 0; i < *count; i++)
        if (strcmp((*jobs)[i].jobid, jobid) == 0)
            return &(*jobs)[i];
    struct top_job *grown = realloc(*jobs, (*count + 1) * sizeof **jobs);
    if (grown == NULL)
        return NULL;
    *jobs = grown;
    struct top_job *job = &grown[(*count)++];
    memset(job, 0, sizeof *job);
    snprintf(job->jobid, sizeof job->jobid, "%s", jobid);
    job->pid = -1;
    return job;
}

/* The command name of pid, from /proc (empty if it has gone). */
static void program_of(pid_t pid, char *buf, size_t len)
{
    char path[64];
    buf[0] = '\0';
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    if (fgets(buf, (int)len, f) != NULL)
        buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}

/* Fills the size, host and program of a job from its lowest rank's page. */
static void describe(struct top_job *job, uint32_t lowest)
{
    struct gp_stats_page page;
    if (gp_stats_read(job->jobid, lowest, &page, 0) != 0 || page.version != GP_STATS_VERSION)
        return; /* nodes stays 0: the job is listed, and named unreadable when opened */
    job->nodes = page.nodes;
    job->pid = (pid_t)page.pid;
    snprintf(job->host, sizeof job->host, "%.*s", (int)sizeof page.host - 1, page.host);
    program_of(job->pid, job->program, sizeof job->program);
}

static int newest_first(const void *a, const void *b)
{
    const struct top_job *x = a, *y = b;
    if (x->started != y->started)
        return x->started > y->started ? -1 : 1;
    return strcmp(x->jobid, y->jobid);
}

int jobs_find(struct top_job **jobs, size_t *count, size_t *foreign)
{
    *jobs = NULL;
    *count = 0;
    *foreign = 0;
    DIR *dir = opendir(TOP_SHM_DIR);
    if (dir == NULL)
        return -1;
    uint32_t *lowest = NULL;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        char jobid[TOP_JOBID_MAX], path[512];
        uint32_t rank;
        struct stat st;
        if (!jobs_parse_name(entry->d_name, jobid, &rank))
            continue;
        snprintf(path, sizeof path, "%s/%s", TOP_SHM_DIR, entry->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (st.st_uid != getuid()) {
            (*foreign)++;
            continue;
        }
        size_t before = *count;
        struct top_job *job = find_or_add(jobs, count, jobid);
        if (job == NULL)
            break;
        if (*count != before) {
            uint32_t *grown = realloc(lowest, *count * sizeof *lowest);
            if (grown == NULL)
                break;
            lowest = grown;
            lowest[*count - 1] = rank;
        }
        size_t index = (size_t)(job - *jobs);
        if (rank < lowest[index])
            lowest[index] = rank;
        job->pages++;
        if (st.st_ctime > job->started)
            job->started = st.st_ctime;
    }
    closedir(dir);
    for (size_t i = 0; i < *count && lowest != NULL; i++)
        describe(&(*jobs)[i], lowest[i]);
    free(lowest);
    if (*count > 1)
        qsort(*jobs, *count, sizeof **jobs, newest_first);
    return 0;
}

int jobs_owner(const char *jobid, char *who, size_t wholen)
{
    DIR *dir = opendir(TOP_SHM_DIR);
    if (dir == NULL)
        return -1;
    int owner = -1;
    struct dirent *entry;
    while (owner != 0 && (entry = readdir(dir)) != NULL) {
        char id[TOP_JOBID_MAX], path[512];
        uint32_t rank;
        struct stat st;
        if (!jobs_parse_name(entry->d_name, id, &rank) || strcmp(id, jobid) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", TOP_SHM_DIR, entry->d_name);
        if (stat(path, &st) != 0)
            continue;
        if (st.st_uid == getuid()) {
            owner = 0;
        } else {
            owner = 1;
            const struct passwd *pw = getpwuid(st.st_uid);
            if (pw != NULL)
                snprintf(who, wholen, "%s", pw->pw_name);
            else
                snprintf(who, wholen, "uid %u", (unsigned)st.st_uid);
        }
    }
    closedir(dir);
    return owner;
}

int jobs_newest(char *jobid, size_t len, char *why, size_t whylen)
{
    struct top_job *jobs;
    size_t count, foreign;
    if (jobs_find(&jobs, &count, &foreign) != 0) {
        snprintf(why, whylen, "cannot list %s: %s", TOP_SHM_DIR, strerror(errno));
        return -1;
    }
    /* the newest job gp-top can read: a job of another gp version is listed, not picked */
    size_t pick = 0;
    while (pick < count && jobs[pick].nodes == 0)
        pick++;
    int rc = pick < count ? 0 : -1;
    if (pick < count)
        snprintf(jobid, len, "%s", jobs[pick].jobid);
    else if (count > 0)
        snprintf(why, whylen, "your %zu gp job%s on this host publish%s statistics pages of "
                 "another gp version (gp-top reads version %d)", count, count > 1 ? "s" : "",
                 count > 1 ? "" : "es", GP_STATS_VERSION);
    else if (foreign > 0)
        snprintf(why, whylen, "no running gp job of yours on this host (%zu statistics pages "
                 "of other users' jobs are not shown)", foreign);
    else
        snprintf(why, whylen, "no running gp job of yours on this host (no %s/gp-*-stats-* "
                 "pages)", TOP_SHM_DIR);
    free(jobs);
    return rc;
}
