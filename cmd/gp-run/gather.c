/*
 * Collective rounds on gp-run's side.
 *
 * Every rank sends one COLL message per collective (kind, root, length,
 * contribution).  gp-run keeps one contribution per rank; when all have
 * arrived it checks that they describe the same collective, builds the
 * result (the concatenation for allgather, the root's bytes for
 * broadcast, nothing for barrier) and answers each rank.  A rank that
 * ends without joining a round others wait in would leave them waiting for
 * ever, so that ends the job instead; so does a mismatch, which is a bug in
 * the program.  A rank that lives on but never joins (a deadlock, a lost
 * call, a process stuck before it) would too: a round that has waited
 * GP_BOOT_TIMEOUT seconds ends the job, naming the ranks it waits for.
 * The rounds are start-up and shutdown steps (init, attach, the
 * transports' exchanges), so the bound is generous, and off under
 * GASNET_FREEZE, where a debugger holds ranks on purpose.
 */
#include "gp_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gather_init(struct run_round *round, int nprocs)
{
    memset(round, 0, sizeof *round);
    round->parts = calloc((size_t)nprocs, sizeof *round->parts);
    round->present = calloc((size_t)nprocs, 1);
    return round->parts != NULL && round->present != NULL ? 0 : -1;
}

static void reset(struct run_round *round, int nprocs)
{
    for (int rank = 0; rank < nprocs; rank++) {
        free(round->parts[rank]);
        round->parts[rank] = NULL;
        round->present[rank] = 0;
    }
    round->count = 0;
}

void gather_free(struct run_round *round, int nprocs)
{
    if (round->parts != NULL)
        reset(round, nprocs);
    free(round->parts);
    free(round->present);
    round->parts = NULL;
    round->present = NULL;
}

static const char *describe(uint32_t kind, uint32_t root, uint32_t len, char *buf, size_t size)
{
    if (kind == GP_WIRE_COLL_BROADCAST)
        snprintf(buf, size, "broadcast of %u bytes from rank %u", len, root);
    else if (kind == GP_WIRE_COLL_ALLGATHER)
        snprintf(buf, size, "allgather of %u bytes", len);
    else
        snprintf(buf, size, "%s", gp_wire_coll_str(kind));
    return buf;
}

/* Whether a contribution of data_len bytes fits the collective it names. */
static int well_formed(const struct run_job *job, int rank, uint32_t kind, uint32_t root,
                       uint32_t len, uint32_t data_len)
{
    switch (kind) {
    case GP_WIRE_COLL_BARRIER:
        return len == 0 && data_len == 0;
    case GP_WIRE_COLL_ALLGATHER:
        return data_len == len && len <= GP_WIRE_MAX_PAYLOAD / (uint32_t)job->nprocs;
    case GP_WIRE_COLL_BROADCAST:
        return root < (uint32_t)job->nprocs && data_len == ((uint32_t)rank == root ? len : 0);
    default:
        return 0;
    }
}

static void complete(struct run_server *srv)
{
    struct run_round *round = &srv->round;
    int nprocs = srv->job->nprocs;
    uint8_t *result = NULL;
    uint32_t result_len = 0;
    if (round->kind == GP_WIRE_COLL_ALLGATHER) {
        result_len = round->len * (uint32_t)nprocs;
        result = malloc(result_len ? result_len : 1);
        if (result == NULL) {
            job_fail(srv, 1, "out of memory for an allgather of %u bytes", result_len);
            return;
        }
        for (int rank = 0; rank < nprocs; rank++)
            memcpy(result + (size_t)rank * round->len, round->parts[rank], round->len);
    } else if (round->kind == GP_WIRE_COLL_BROADCAST) {
        result_len = round->len;
        result = round->parts[round->root];
    }
    for (int rank = 0; rank < nprocs; rank++)
        if (srv->job->procs[rank].conn >= 0)
            conn_send(srv, srv->job->procs[rank].conn, GP_WIRE_COLL_RESULT, result, result_len);
    if (round->kind == GP_WIRE_COLL_ALLGATHER)
        free(result);
    reset(round, nprocs);
}

/* Keeps rank's contribution; 0, or -1 when out of memory. */
static int record(struct run_round *round, int rank, uint32_t kind, uint32_t root, uint32_t len,
                  const uint8_t *data, uint32_t data_len)
{
    if (round->count == 0) {
        round->kind = kind;
        round->root = root;
        round->len = len;
        round->first_rank = rank;
        round->started = run_now();
    }
    round->parts[rank] = malloc(data_len ? data_len : 1);
    if (round->parts[rank] == NULL)
        return -1;
    memcpy(round->parts[rank], data, data_len);
    round->present[rank] = 1;
    round->count++;
    return 0;
}

void gather_contribute(struct run_server *srv, int rank, const uint8_t *body, uint32_t len)
{
    struct run_round *round = &srv->round;
    char mine[96], theirs[96];
    if (srv->job->phase >= PHASE_TERM)
        return; /* the job is ending; nobody will be answered */
    int fixed = len >= GP_WIRE_COLL_FIXED;
    uint32_t kind = fixed ? gp_wire_get32(body) : 0;
    uint32_t root = fixed ? gp_wire_get32(body + 4) : 0;
    uint32_t coll_len = fixed ? gp_wire_get32(body + 8) : 0;
    uint32_t data_len = fixed ? len - GP_WIRE_COLL_FIXED : 0;
    if (!fixed || !well_formed(srv->job, rank, kind, root, coll_len, data_len)) {
        job_fail(srv, 1, "rank %d sent a malformed collective message (%u bytes)", rank, len);
        return;
    }
    describe(kind, root, coll_len, mine, sizeof mine);
    int same = kind == round->kind && root == round->root && coll_len == round->len;
    if (round->present[rank])
        job_fail(srv, 1, "rank %d started a %s before its previous collective ended", rank, mine);
    else if (round->count > 0 && !same)
        job_fail(srv, 1, "collective mismatch: rank %d called %s while rank %d called %s", rank,
                 mine, round->first_rank,
                 describe(round->kind, round->root, round->len, theirs, sizeof theirs));
    else if (record(round, rank, kind, root, coll_len, body + GP_WIRE_COLL_FIXED, data_len) != 0)
        job_fail(srv, 1, "out of memory for rank %d's %s", rank, mine);
    else if (round->count == srv->job->nprocs)
        complete(srv);
    else
        gather_check_stuck(srv); /* a rank may have ended before this round began */
}

void gather_check_stuck(struct run_server *srv)
{
    struct run_round *round = &srv->round;
    struct run_job *job = srv->job;
    char what[96];
    if (round->count == 0 || job->phase >= PHASE_TERM)
        return;
    for (int rank = 0; rank < job->nprocs; rank++) {
        if (round->present[rank] || job->procs[rank].running)
            continue;
        job_fail(srv, 1, "rank %d (pid %d) ended without joining the %s that rank %d waits in",
                 rank, (int)job->procs[rank].pid,
                 describe(round->kind, round->root, round->len, what, sizeof what),
                 round->first_rank);
        return;
    }
}

double gather_deadline(const struct run_server *srv)
{
    const struct run_round *round = &srv->round;
    if (round->count == 0 || srv->job->boot_timeout <= 0 || srv->job->phase >= PHASE_TERM)
        return 0;
    return round->started + srv->job->boot_timeout;
}

void gather_resume(struct run_server *srv)
{
    if (srv->round.count > 0)
        srv->round.started = run_now();
}

/* "rank 2 (pid 812)" or "ranks 2, 5, 7" for the live ranks missing from the round. */
static const char *missing_ranks(const struct run_server *srv, char *buf, size_t size)
{
    const struct run_job *job = srv->job;
    int missing = 0, first = -1;
    size_t used = 0;
    for (int rank = 0; rank < job->nprocs; rank++)
        if (!srv->round.present[rank] && (missing++ == 0))
            first = rank;
    if (missing == 1) {
        snprintf(buf, size, "rank %d (pid %d)", first, (int)job->procs[first].pid);
        return buf;
    }
    used = (size_t)snprintf(buf, size, "ranks ");
    for (int rank = 0; rank < job->nprocs && used + 24 < size; rank++)
        if (!srv->round.present[rank])
            used += (size_t)snprintf(buf + used, size - used, "%s%d",
                                     rank == first ? "" : ", ", rank);
    if (used + 24 >= size)
        snprintf(buf + used, size - used, ", ... (%d in all)", missing);
    return buf;
}

/* Ends the round for the ranks waiting in it: each gets why, as an ERROR, and
 * ends through its fatal path (the SIGTERM that follows may find it in a read). */
static void refuse_waiting(struct run_server *srv, const char *why)
{
    uint32_t len = (uint32_t)strlen(why);
    if (len > GP_WIRE_MAX_TEXT)
        len = GP_WIRE_MAX_TEXT;
    for (int rank = 0; rank < srv->job->nprocs; rank++)
        if (srv->round.present[rank] && srv->job->procs[rank].conn >= 0)
            conn_send(srv, srv->job->procs[rank].conn, GP_WIRE_ERROR, why, len);
}

void gather_tick(struct run_server *srv, double now)
{
    double deadline = gather_deadline(srv);
    char who[256], what[96], why[512];
    if (deadline == 0 || now < deadline)
        return;
    struct run_round *round = &srv->round;
    missing_ranks(srv, who, sizeof who);
    snprintf(why, sizeof why, "%s never joined the %s that rank %d waits in after %.15g s "
             "(GP_BOOT_TIMEOUT)", who,
             describe(round->kind, round->root, round->len, what, sizeof what),
             round->first_rank, srv->job->boot_timeout);
    refuse_waiting(srv, why);
    job_fail(srv, 1, "%s", why);
}
