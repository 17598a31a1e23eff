/*
 * Bootstrap under a PMIx server: Slurm's srun --mpi=pmix, Open MPI's
 * mpirun, or any launcher that starts processes with a PMIx server beside
 * them (PMIx 4, Debian's libpmix-dev).
 *
 * A process is under PMIx when GP_BOOT_ADDR is unset (gp-run's channel
 * always wins) and the launcher left PMIX_NAMESPACE and PMIX_RANK in its
 * environment.  Then:
 *
 *   rank, size   PMIx_Init's answer and the namespace's PMIX_JOB_SIZE;
 *   job id       a 64-bit FNV-1a hash of the namespace, as 16 hex digits
 *                (the namespace is unique per job step, and gp names its
 *                /dev/shm objects with the id);
 *   job key      drawn by rank 0, published with PMIx_Put and read by the
 *                others after the first fence.  The PMIx server hands a
 *                process's data only to clients it has admitted (the job's
 *                own processes, authenticated by uid over its local socket),
 *                so the key, as under gp-run, never appears on a command
 *                line or in the environment; as there, only the user's own
 *                processes (which could read any rank's memory) can see it;
 *   collectives  each rank PMIx_Puts its part under a key numbered by the
 *                round ("gp.coll.N"), commits, and PMIx_Fence_nb with
 *                PMIX_COLLECT_DATA; once the fence completes every part is
 *                read back with PMIx_Get.  A barrier is a fence without
 *                data.  The non-blocking fence lets the wait hook run while
 *                the round waits (a peer may need this process to serve its
 *                tcp traffic before it can reach the same round);
 *   abort        PMIx_Abort(code, why): the launcher ends the whole job;
 *   fini         PMIx_Finalize (without the optional embedded barrier: a
 *                process that exits alone must not wait for the others).
 *
 * libpmix is loaded (dlopen, boot/pmix_lib.h) by gp_boot_pmix_init: no
 * other process maps it.
 *
 * Every key a round publishes stays in the server until the job ends; the
 * collectives run at start-up and shutdown only, so that is a handful.
 */
#include "boot/bootint.h"

#include "boot/pmix_lib.h"   /* <pmix.h>, its calls onto the table loaded at init */
#include "boot/wire.h"
#include "util/log.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define KEY_JOBKEY "gp.key"
/* Seconds a PMIx_Get of a round's part may take (see get_bytes). */
#define GET_TIMEOUT_S 60

static pmix_proc_t self;          /* namespace and rank from PMIx_Init */
static int pmix_up;               /* PMIx_Init succeeded and Finalize not yet called */
static unsigned long round_seq;   /* numbers the rounds' keys; equal in every rank */
static char host_name[256];       /* PMIX_HOSTNAME of this process, "" if not given */
static uint32_t lowest_local = UINT32_MAX; /* lowest rank in PMIX_LOCAL_PEERS */

int gp_boot_pmix_detect(void)
{
    const char *nspace = getenv("PMIX_NAMESPACE"), *rank = getenv("PMIX_RANK");
    return nspace != NULL && *nspace != '\0' && rank != NULL && *rank != '\0';
}

/* ---- waiting for PMIx ----------------------------------------------------- */

/* Filled in by PMIx's progress thread when a non-blocking call completes. */
struct op_wait {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    pmix_status_t status;
};

static void op_done(pmix_status_t status, void *cbdata)
{
    struct op_wait *w = cbdata;
    pthread_mutex_lock(&w->lock);
    w->status = status;
    w->done = 1;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* The same for calls that answer with information (which we don't need). */
static void op_info_done(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                         pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)info;
    (void)ninfo;
    op_done(status, cbdata);
    if (release_fn != NULL)
        release_fn(release_cbdata);
}

/*
 * A fence over the whole namespace, collecting the data put so far when
 * collect is set.  Returns the fence's status.  Waits without limit, as
 * gp-run's rounds do: the launcher, not this process, decides that a job
 * has failed (it aborts the fence, or kills us).
 */
static pmix_status_t fence(int collect)
{
    struct op_wait w = { .done = 0, .status = PMIX_SUCCESS };
    pmix_info_t info;
    bool yes = true;
    pthread_mutex_init(&w.lock, NULL);
    pthread_cond_init(&w.cond, NULL);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    /* The info stays alive until the callback: PMIx may read it from its thread. */
    pmix_status_t rc = PMIx_Fence_nb(NULL, 0, collect ? &info : NULL, collect ? 1 : 0,
                                     op_done, &w);
    if (rc == PMIX_OPERATION_SUCCEEDED) {
        w.done = 1; /* completed at once; the callback will not run */
    } else if (rc != PMIX_SUCCESS) {
        w.done = 1;
        w.status = rc;
    }
    pthread_mutex_lock(&w.lock);
    while (!w.done) {
        if (gp_boot_wait_hook_pending()) {
            /* Transport progress between short waits, as coll.c does between polls. */
            pthread_mutex_unlock(&w.lock);
            gp_boot_wait_hook_run();
            pthread_mutex_lock(&w.lock);
            if (w.done)
                break;
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_nsec += 1000 * 1000;
            if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&w.cond, &w.lock, &until);
        } else {
            pthread_cond_wait(&w.cond, &w.lock);
        }
    }
    pthread_mutex_unlock(&w.lock);
    pthread_cond_destroy(&w.cond);
    pthread_mutex_destroy(&w.lock);
    PMIX_INFO_DESTRUCT(&info);
    return w.status;
}

/* ---- reading and writing the server's data -------------------------------- */

static pmix_status_t put_bytes(const char *key, const void *bytes, size_t len)
{
    pmix_value_t value;
    PMIX_VALUE_CONSTRUCT(&value);
    value.type = PMIX_BYTE_OBJECT;
    value.data.bo.bytes = (char *)bytes;
    value.data.bo.size = len;
    /* PMIx_Put copies the value; ours stays the caller's. */
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &value);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Commit();
    return rc;
}

/* rank's bytes under key, which must be exactly len long; 0, or -1 after saying why. */
static int get_bytes(uint32_t rank, const char *key, void *out, size_t len, const char *what)
{
    pmix_proc_t proc;
    pmix_value_t *value = NULL;
    pmix_info_t timeout;
    /* After the fence the server holds every part; a part it lacks means the
     * ranks called different collectives, and must not wait for ever. */
    int seconds = GET_TIMEOUT_S;
    PMIX_INFO_LOAD(&timeout, PMIX_TIMEOUT, &seconds, PMIX_INT);
    PMIX_LOAD_PROCID(&proc, self.nspace, rank);
    pmix_status_t rc = PMIx_Get(&proc, key, &timeout, 1, &value);
    PMIX_INFO_DESTRUCT(&timeout);
    if (rc != PMIX_SUCCESS || value == NULL) {
        gp_error("boot", "%s: PMIx_Get of %s from rank %u failed: %s", what, key, rank,
                 PMIx_Error_string(rc));
        return -1;
    }
    int ok = value->type == PMIX_BYTE_OBJECT && value->data.bo.size == len;
    if (ok && len > 0)
        memcpy(out, value->data.bo.bytes, len);
    else if (!ok)
        gp_error("boot", "%s: rank %u published %s as %s of %zu bytes, expected %zu bytes "
                 "(do all ranks call the same collectives in the same order?)", what, rank,
                 key, PMIx_Data_type_string(value->type),
                 value->type == PMIX_BYTE_OBJECT ? value->data.bo.size : (size_t)0, len);
    PMIX_VALUE_RELEASE(value);
    return ok ? 0 : -1;
}

/* A value of the namespace (PMIX_RANK_WILDCARD) or of this process, as text or uint32. */
static pmix_status_t get_info(int of_job, const char *key, pmix_value_t **value)
{
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, self.nspace, of_job ? PMIX_RANK_WILDCARD : self.rank);
    return PMIx_Get(&proc, key, NULL, 0, value);
}

static int get_uint32(int of_job, const char *key, uint32_t *out)
{
    pmix_value_t *value = NULL;
    pmix_status_t rc = get_info(of_job, key, &value);
    if (rc != PMIX_SUCCESS || value == NULL)
        return -1;
    int ok = 1;
    switch (value->type) {
    case PMIX_UINT32: *out = value->data.uint32; break;
    case PMIX_UINT16: *out = value->data.uint16; break;
    case PMIX_INT: ok = value->data.integer >= 0; *out = (uint32_t)value->data.integer; break;
    default: ok = 0;
    }
    PMIX_VALUE_RELEASE(value);
    return ok ? 0 : -1;
}

/* ---- locality ------------------------------------------------------------- */

/*
 * The node as PMIx sees it: PMIX_HOSTNAME, and the lowest rank of
 * PMIX_LOCAL_PEERS (the job's ranks on this node, "0,1,2,3").  The second
 * is a node's identity within the job even where hostnames repeat (cloned
 * containers), so the host identity is both (gp_boot_pmix_host_identity).
 */
static void learn_locality(void)
{
    pmix_value_t *value = NULL;
    if (get_info(0, PMIX_HOSTNAME, &value) == PMIX_SUCCESS && value != NULL) {
        if (value->type == PMIX_STRING && value->data.string != NULL)
            snprintf(host_name, sizeof host_name, "%s", value->data.string);
        PMIX_VALUE_RELEASE(value);
    }
    value = NULL;
    if (get_info(1, PMIX_LOCAL_PEERS, &value) == PMIX_SUCCESS && value != NULL) {
        if (value->type == PMIX_STRING && value->data.string != NULL) {
            const char *p = value->data.string;
            while (*p != '\0') {
                char *end = NULL;
                unsigned long r = strtoul(p, &end, 10);
                if (end == p)
                    break; /* not a rank list: leave the locality to the hostname */
                if (r < lowest_local)
                    lowest_local = (uint32_t)r;
                p = *end == ',' ? end + 1 : end;
            }
        }
        PMIX_VALUE_RELEASE(value);
    }
    gp_debug("boot", "PMIx locality: host '%s', lowest local peer %ld", host_name,
             lowest_local == UINT32_MAX ? -1L : (long)lowest_local);
}

int gp_boot_pmix_host_identity(char *out, size_t len)
{
    if (!gp_boot.pmix || (host_name[0] == '\0' && lowest_local == UINT32_MAX))
        return -1;
    if (lowest_local == UINT32_MAX)
        snprintf(out, len, "pmix:%s", host_name);
    else
        snprintf(out, len, "pmix:%s#%u", host_name, lowest_local);
    return 0;
}

/* The source address the kernel would use to reach dst (no packet is sent). */
static int source_toward(const struct sockaddr_in *dst, uint32_t *ipv4)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in local;
    socklen_t len = sizeof local;
    int ok = fd >= 0 && connect(fd, (const struct sockaddr *)dst, sizeof *dst) == 0 &&
             getsockname(fd, (struct sockaddr *)&local, &len) == 0 &&
             local.sin_addr.s_addr != htonl(INADDR_ANY);
    if (ok)
        *ipv4 = local.sin_addr.s_addr;
    if (fd >= 0)
        close(fd);
    return ok ? 0 : -1;
}

/*
 * There is no gp-run to face, so: the address PMIX_HOSTNAME resolves to
 * when that is not loopback (the name the resource manager knows the node
 * by is, on a cluster, the one on the network its jobs use); else the
 * source address of the default route (192.0.2.1 is TEST-NET-1, never
 * local, so the route lookup lands on the default); else loopback.  GP_TCP_ADDR
 * overrides all of it in the tcp transport.
 */
void gp_boot_pmix_local_ipv4(uint32_t *ipv4)
{
    struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(9) };
    *ipv4 = htonl(INADDR_LOOPBACK);
    if (host_name[0] != '\0') {
        struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_DGRAM }, *res = NULL;
        if (getaddrinfo(host_name, NULL, &hints, &res) == 0) {
            for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
                dst.sin_addr = ((struct sockaddr_in *)ai->ai_addr)->sin_addr;
                if ((ntohl(dst.sin_addr.s_addr) >> 24) != 127 && source_toward(&dst, ipv4) == 0) {
                    freeaddrinfo(res);
                    return;
                }
            }
            freeaddrinfo(res);
        }
    }
    inet_pton(AF_INET, "192.0.2.1", &dst.sin_addr);
    if (source_toward(&dst, ipv4) != 0)
        *ipv4 = htonl(INADDR_LOOPBACK);
}

/* ---- leftovers ------------------------------------------------------------ */

/*
 * Under gp-run, gp-run removes a job's leftover /dev/shm objects (a rank
 * killed before it unlinked them).  Under PMIx nobody outlives the job on
 * gp's side, so each rank asks the PMIx server to remove its own objects
 * when it terminates, however it does (PMIX_REGISTER_CLEANUP; the server
 * library carries this out for Open MPI and Slurm alike).  The names are
 * those nal/shm/shm.c (the region, "gp-JOBID-RANK") and conduit/core/stats.c (the
 * statistics page, "gp-JOBID-stats-RANK") give them; tests/integration/pmix.sh
 * checks that a killed rank leaves neither behind.  A server without the
 * feature only costs the leftovers, as a process killed outside any launcher
 * would.
 */
static void register_cleanup(void)
{
    char paths[2 * (sizeof "/dev/shm/gp--stats-" + GP_BOOT_JOBID_LEN + 12)];
    snprintf(paths, sizeof paths, "/dev/shm/gp-%s-%u,/dev/shm/gp-%s-stats-%u", gp_boot.jobid,
             self.rank, gp_boot.jobid, self.rank);
    struct op_wait w = { .done = 0, .status = PMIX_SUCCESS };
    pmix_info_t info;
    pmix_proc_t target;
    pthread_mutex_init(&w.lock, NULL);
    pthread_cond_init(&w.cond, NULL);
    PMIX_INFO_LOAD(&info, PMIX_REGISTER_CLEANUP, paths, PMIX_STRING);
    PMIX_LOAD_PROCID(&target, self.nspace, self.rank);
    pmix_status_t rc = PMIx_Job_control_nb(&target, 1, &info, 1, op_info_done, &w);
    if (rc == PMIX_SUCCESS) {
        pthread_mutex_lock(&w.lock);
        while (!w.done)
            pthread_cond_wait(&w.cond, &w.lock);
        pthread_mutex_unlock(&w.lock);
        rc = w.status;
    }
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED)
        gp_debug("boot", "the PMIx server won't remove %s when this process ends: %s", paths,
                 PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&info);
    pthread_cond_destroy(&w.cond);
    pthread_mutex_destroy(&w.lock);
}

/* ---- init, collectives, abort, fini --------------------------------------- */

/* 64-bit FNV-1a of the namespace as GP_BOOT_JOBID_LEN hex digits. */
static void jobid_of(const char *nspace, char *out)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *p = nspace; *p != '\0'; p++)
        h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
    snprintf(out, GP_BOOT_JOBID_LEN + 1, "%016llx", (unsigned long long)h);
}

int gp_boot_pmix_init(void)
{
    char why[512];
    if (gp_pmix_lib_load(why, sizeof why) != 0) {
        gp_error("boot", "PMIX_NAMESPACE=%s is set, so this process was started under a PMIx "
                 "server, and it needs the PMIx client library libpmix.so.2, which cannot be "
                 "loaded: %s (install libpmix2, or unset the PMIX_* variables to run the "
                 "process alone)", getenv("PMIX_NAMESPACE"), why);
        return GP_BOOT_ERR_RESOURCE;
    }
    pmix_status_t rc = PMIx_Init(&self, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        gp_error("boot", "PMIX_NAMESPACE=%s is set, so this process was started under a PMIx "
                 "server, but PMIx_Init failed: %s (the server is gone, or this process was "
                 "started by hand with a launcher's environment: unset the PMIX_* variables to "
                 "run it alone)", getenv("PMIX_NAMESPACE"), PMIx_Error_string(rc));
        return GP_BOOT_ERR_RESOURCE;
    }
    pmix_up = 1;
    uint32_t size = 0;
    if (get_uint32(1, PMIX_JOB_SIZE, &size) != 0 || size < 1 || size > (1u << 24) ||
        self.rank >= size) {
        gp_error("boot", "PMIx namespace %s: no usable PMIX_JOB_SIZE (got %u, rank %u; "
                 "expected 1 to %u ranks)", self.nspace, size, self.rank, 1u << 24);
        return GP_BOOT_ERR_RESOURCE;
    }
    gp_boot.rank = (int)self.rank;
    gp_boot.size = (int)size;
    jobid_of(self.nspace, gp_boot.jobid);
    learn_locality();
    register_cleanup();
    /* Rank 0's key reaches the others through the server (see the top). */
    if (self.rank == 0) {
        if (gp_wire_random(gp_boot.key, sizeof gp_boot.key) != GP_WIRE_OK) {
            gp_error("boot", "cannot draw the job key from getrandom: %m");
            return GP_BOOT_ERR_RESOURCE;
        }
        rc = put_bytes(KEY_JOBKEY, gp_boot.key, sizeof gp_boot.key);
        if (rc != PMIX_SUCCESS) {
            gp_error("boot", "PMIx_Put of the job key failed: %s", PMIx_Error_string(rc));
            return GP_BOOT_ERR_RESOURCE;
        }
    }
    rc = fence(1);
    if (rc != PMIX_SUCCESS) {
        gp_error("boot", "the first PMIx fence of namespace %s failed: %s", self.nspace,
                 PMIx_Error_string(rc));
        return GP_BOOT_ERR_RESOURCE;
    }
    if (self.rank != 0 && get_bytes(0, KEY_JOBKEY, gp_boot.key, sizeof gp_boot.key,
                                    "the job key") != 0)
        return GP_BOOT_ERR_RESOURCE;
    gp_boot.pmix = 1;
    return GP_BOOT_OK;
}

/*
 * Fatal: the launcher broke off the round, because a rank ended before it
 * (the usual cause) or the job is being taken down.  The launcher reports
 * the first failure it learns of as the job's status, and the rank that
 * ended may have exited with a code of its own that must reach the user
 * (gasnet_exit(7) where the others wait in attach).  So this process waits
 * a while for the launcher to end it -- it does, for a rank that failed --
 * and only then aborts with the fatal code: that covers a rank that
 * returned 0 before a round every other rank waits in.
 */
static _Noreturn void round_failed(const char *what, pmix_status_t rc)
{
    gp_error("boot", "PMIx fence during %s failed: %s; waiting up to %d ms for the launcher "
             "to end the job", what, PMIx_Error_string(rc), GP_BOOT_PMIX_GRACE_MS);
    struct timespec pause_10ms = { 0, 10 * 1000 * 1000 };
    for (int waited = 0; waited < GP_BOOT_PMIX_GRACE_MS; waited += 10)
        nanosleep(&pause_10ms, NULL);
    gp_fatal("PMIx fence during %s failed: %s (a rank ended before it and the launcher did "
             "not end this one, or the ranks called different collectives)", what, PMIx_Error_string(rc));
}

int gp_boot_pmix_allgather(const void *mine, void *all, size_t len)
{
    char key[64];
    gp_boot_round_lock();
    snprintf(key, sizeof key, "gp.coll.%lu", round_seq++);
    pmix_status_t rc = len > 0 ? put_bytes(key, mine, len) : PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS)
        gp_fatal("PMIx_Put of %zu bytes for gp_boot_allgather failed: %s", len,
                 PMIx_Error_string(rc));
    rc = fence(len > 0);
    if (rc != PMIX_SUCCESS)
        round_failed("gp_boot_allgather", rc);
    /* mine may lie inside all (the singleton path allows it): copy ours last. */
    for (int r = 0; len > 0 && r < gp_boot.size; r++)
        if (r != gp_boot.rank &&
            get_bytes((uint32_t)r, key, (uint8_t *)all + (size_t)r * len, len,
                      "gp_boot_allgather") != 0)
            gp_fatal("gp_boot_allgather: cannot read rank %d's part from the PMIx server", r);
    if (len > 0)
        memmove((uint8_t *)all + (size_t)gp_boot.rank * len, mine, len);
    gp_boot_round_unlock();
    return GP_BOOT_OK;
}

int gp_boot_pmix_barrier(void)
{
    gp_boot_round_lock();
    round_seq++; /* keeps the numbering equal whatever mix of rounds ran */
    pmix_status_t rc = fence(0);
    gp_boot_round_unlock();
    if (rc != PMIX_SUCCESS)
        round_failed("gp_boot_barrier", rc);
    return GP_BOOT_OK;
}

int gp_boot_pmix_broadcast(void *buf, size_t len, int root)
{
    char key[64];
    gp_boot_round_lock();
    snprintf(key, sizeof key, "gp.coll.%lu", round_seq++);
    pmix_status_t rc = PMIX_SUCCESS;
    if (root == gp_boot.rank && len > 0)
        rc = put_bytes(key, buf, len);
    if (rc != PMIX_SUCCESS)
        gp_fatal("PMIx_Put of %zu bytes for gp_boot_broadcast failed: %s", len,
                 PMIx_Error_string(rc));
    rc = fence(len > 0);
    if (rc != PMIX_SUCCESS)
        round_failed("gp_boot_broadcast", rc);
    if (root != gp_boot.rank && len > 0 &&
        get_bytes((uint32_t)root, key, buf, len, "gp_boot_broadcast") != 0)
        gp_fatal("gp_boot_broadcast: cannot read root %d's bytes from the PMIx server", root);
    gp_boot_round_unlock();
    return GP_BOOT_OK;
}

int gp_boot_pmix_up(void)
{
    return pmix_up;
}

void gp_boot_pmix_abort(int exit_code, const char *why)
{
    if (!pmix_up)
        return;
    gp_error("boot", "aborting the job (exit code %d): %s", exit_code,
             why != NULL ? why : "no reason given");
    /* Returns only if the server could not be told; the caller then exits. */
    PMIx_Abort(exit_code, why != NULL ? why : "gp: job aborted", NULL, 0);
}

int gp_boot_pmix_fini(void)
{
    if (!pmix_up)
        return GP_BOOT_OK;
    pmix_up = 0;
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        gp_warn("boot", "PMIx_Finalize failed: %s", PMIx_Error_string(rc));
        return GP_BOOT_ERR_RESOURCE;
    }
    return GP_BOOT_OK;
}
