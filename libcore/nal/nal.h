/*
 * The transport ops table.  A transport (network abstraction layer, in the
 * seed's Portals vocabulary) moves bytes between registered regions; it
 * knows nothing of AMs or credits.  Every transport fills every operation
 * slot: one it cannot do points at nal_unsupported_*, never at NULL (the
 * members whose comment allows NULL may be left out).
 */
#ifndef GP_NAL_NAL_H
#define GP_NAL_NAL_H

#include <stddef.h>
#include <stdint.h>

#include "nal/portals_types.h"
#include "util/counter.h"

struct ptl_md_local;
struct gp_cfg_group;

/*
 * The NI as a transport sees it: what its ops read and fill in.  ptl's NI
 * begins with it, so a transport reaches no other part of ptl's state.
 */
struct nal_ni {
    void *nal_state;                /* the transport's own */
    int rank;
    int size;
    void *region;                   /* this process's registered region */
    uint64_t region_bytes;
    void **peer_region;             /* where each peer's region is mapped here (shm, loop) */
};

/* One put or get as the ptl layer hands it to a transport. */
struct nal_op {
    unsigned target;
    unsigned pt_index;
    uint64_t match_bits;
    uint64_t remote_offset;
    uint64_t hdr_data;
    uint64_t length;
    void *local_addr;           /* source of a put, destination of a get */
    uint64_t local_offset;      /* from the local MD's start, for events */
    ptl_handle_md_t md;
    struct ptl_md_local *md_local;
    int ack_req;                /* PTL_ACK_DEFER arrives as PTL_ACK_REQ with hold set */
    int hold;                   /* PTL_*_DEFER: may wait for the transport's next pass */
    /* Non-NULL: a counted put (ptl_put_counted), which has no MD (md, md_local unset) and
     * posts no event: the source is the transport's to read only until put returns, and
     * its ACK, or its drop at a departed peer, subtracts one here. */
    gp_count_t *count_down;
};

/* Which peers' regions a transport maps into this process (its puts and gets to them are copies). */
enum nal_maps {
    NAL_MAPS_NONE,              /* none: every peer is reached through the transport (tcp, ibv) */
    NAL_MAPS_HOST_PEERS,        /* those on this host (hybrid) */
    NAL_MAPS_EVERY_PEER,        /* every peer, whatever host it names (shm; loop's only one) */
};

/*
 * How a transport serves a subset of a job's peers over a region another
 * transport made (the hybrid's shared-memory object): what the hybrid routes
 * the peers on other hosts through.  A transport that fills this joins the
 * routing; the registry's order is the order of preference (GP_HYBRID_ORDER
 * may name another).  The state is the transport's own.
 */
/* What the hybrid asks of a routed transport on this rank. */
enum nal_serving {
    NAL_TAKE_PART = 0,          /* reach nobody: only join the collective set-up */
    NAL_SERVE,                  /* reach peers where this way is the better one by default */
    NAL_SERVE_ASKED,            /* reach peers: GP_HYBRID_ORDER names this transport */
};

struct nal_peer_ops {
    /* Cheap, before the job's exchange, loading nothing: might this host serve peers this
     * way (how: NAL_SERVE or NAL_SERVE_ASKED)?  (ibv: verbs devices are present; ofi, unasked:
     * a device of a hardware provider.)  Two ranks are reached this way only when both say
     * yes and both opened. */
    int (*host_may_serve)(enum nal_serving how);
    /* Opens this rank's side: to reach peers (NULL, quietly, when this host turns out unable
     * to, or, for NAL_SERVE, when another way serves it better), or a state that only takes
     * part in the collective set-up (NAL_TAKE_PART). */
    void *(*open)(struct nal_ni *ni, enum nal_serving how);
    /* Collective, called by every rank when any pair of the job goes this way: connects the
     * peers marked in wanted[rank] (ni->peer_region is the caller's). */
    int (*connect)(void *state, const uint8_t *wanted);
    int (*put)(void *state, const struct nal_op *op);
    int (*get)(void *state, const struct nal_op *op);
    /* 1: put takes counted puts (nal_op.count_down), as nal_ops.counts_puts says. */
    int counts_puts;
    void (*progress)(void *state);
    /* After connect: flushes what can leave now and closes. */
    void (*close)(void *state);
    void (*free)(void *state);
    /* At the job's end, as nal_ops.report. */
    void (*report)(void *state);
};

/*
 * A transport's line among gp-check's system checks: what this host offers it (devices,
 * providers, the library it loads).  gp-check prints it as its other checks' lines, so a
 * transport's check comes with its folder, not as a file of gp-check's.
 */
enum nal_host_verdict {
    NAL_HOST_OK,                /* the transport can run here */
    NAL_HOST_WARN,              /* it cannot, or may not run well: only a job that wants it minds */
    NAL_HOST_FAIL,              /* a job that takes it by default will fail */
};

struct nal_host_report {
    enum nal_host_verdict verdict;
    const char *check;          /* the line's name ("rdma", "libfabric") */
    char finding[2048];         /* what was found, one sentence without the name */
    const char *fix;            /* warn and FAIL: what to do; NULL on ok */
};

struct nal_ops {
    const char *name;
    /* What it runs over, in words ("TCP"): gp-env(7) titles the section of its configuration
     * rows "<title> (<name>)"; a selectable transport has one (unit test config). */
    const char *title;
    /* NULL, or the paragraph that opens that section. */
    const char *rows_intro;
    /* NULL, or the group of configuration rows it reads (its <name>_config.c): the registry
     * hands it to the table (nal_config_group, config/rows.h). */
    const struct gp_cfg_group *config_group;
    /* 1: GP_TRANSPORT may name it for every peer of a job (shm, tcp, ibv); the
     * hybrid is what GP_TRANSPORT unset means, and loop is the test double. */
    int user_selectable;
    /* 1: this process's region is a /dev/shm object (shm_open), so /dev/shm's
     * free space bounds the segment and a page it cannot supply is a SIGBUS. */
    int region_in_dev_shm;
    /* Whose regions connect maps here; the conduit numbers supernodes and sizes
     * its per-host shares by it. */
    enum nal_maps maps_peer_regions;
    /* 1: a job of this one process, started without a launcher (loop, the test double). */
    int one_process_world;
    /* Non-NULL: the hybrid may route peers on other hosts through it. */
    const struct nal_peer_ops *peers;
    /* Creates this process's registered region of the given size: sets ni->region. */
    int (*region_create)(struct nal_ni *ni, uint64_t bytes);
    /* Collective: learns every peer's region (shm maps them) and makes itself reachable. */
    int (*connect)(struct nal_ni *ni);
    int (*put)(struct nal_ni *ni, const struct nal_op *op);
    int (*get)(struct nal_ni *ni, const struct nal_op *op);
    /* After connect: 1 when put takes a counted put to target (nal_op.count_down): one
     * that is done with its source when put returns (a copy) and reports its ACK as a
     * count, not an event.  nal_counts_no_puts where none is. */
    int (*counts_puts)(struct nal_ni *ni, unsigned target);
    int (*progress)(struct nal_ni *ni);
    /* Collective: releases the region and every mapping. */
    void (*fini)(struct nal_ni *ni);
    /* At the job's end (the process exits without fini): the transport's own
     * summary lines, when asked for (GASNET_FIREHOSE_VERBOSE). */
    void (*report)(struct nal_ni *ni);
    /* NULL, or gp-check's line about this host for this transport (gp-check prints the lines
     * in the registry's order): outside any job, after the configuration is loaded; it may
     * load the transport's library, and says in the line when it cannot. */
    void (*host_report)(struct nal_host_report *out);
};

/*
 * The job's exit is under way as far as this process knows (departure.c).
 * Until then a peer whose connection is refused, reset or closed has
 * vanished mid-job, and an operation to it is a fatal error naming it;
 * afterwards it left in the exit, and what is sent to it is dropped quietly.
 */
void nal_note_job_ending(void);
int nal_job_ending(void);

/* The transport layer's own configuration rows (config_rows.c), which stay in gp_cfg. */
extern const struct gp_cfg_group nal_cfg_group;

/* The transports, in one explicit list (registry.c), fastest first. */
const struct nal_ops *nal_find(const char *name);
/* The index'th transport of that list; NULL past its end. */
const struct nal_ops *nal_at(unsigned index);
/* Names of the transports built in, in the registry's order, separated by '|'
 * ("hybrid|shm|ibv|ofi|tcp|loop"): for error messages. */
const char *nal_names(void);
/* The names GP_TRANSPORT accepts (user_selectable), the same way ("shm|ibv|ofi|tcp"):
 * the configuration row's choices, gp-check's --transport, their messages. */
const char *nal_selectable_names(void);
/* The names of the transports the hybrid may route through (peers != NULL), the
 * same way ("ibv|ofi|tcp"): GP_HYBRID_ORDER's choices, and its default order. */
const char *nal_routable_names(void);
/* The most transports a preference list may name. */
#define NAL_ROUTES_MAX 8
/*
 * A preference list of routable transports, comma-separated ("tcp" or "ibv,tcp";
 * NULL: every routable one in the registry's order), into out[]: their count,
 * or -1 with one sentence in errbuf naming the variable, the value and the
 * accepted names (an unknown or repeated name, an empty list).
 */
int nal_route_order(const char *variable, const char *text, const struct nal_ops **out,
                    char *errbuf, size_t errlen);

/* Fills out (host_report.c): the finding printf-style, cut at its size as gp-check cuts a
 * line; fix NULL on NAL_HOST_OK. */
void nal_host_say(struct nal_host_report *out, enum nal_host_verdict verdict, const char *check,
                  const char *fix, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

int nal_unsupported_op(struct nal_ni *ni, const struct nal_op *op);
int nal_counts_no_puts(struct nal_ni *ni, unsigned target);
int nal_no_progress(struct nal_ni *ni);
void nal_no_report(struct nal_ni *ni);


#endif
