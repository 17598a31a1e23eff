/*
 * The conduit's rows: seed 000's GASNET_PORTAL_* variables, the standard
 * GASNet ones (segment size, exit timeout, backtrace, freeze, trace and
 * statistics files), and gp's own that the conduit reads.
 *
 * Choices the seeds left open, recorded here next to the values:
 *   - chunks are 1024 bytes (a full Medium is 4 credits), so the bounce
 *     limits default to, and may not exceed, 1024;
 *   - GASNET_PORTAL_SB_CHUNKS and RPL_CHUNKS default to 1024 each: four
 *     times GASNET_PORTAL_MSG_LIMIT, so the chunk pools are not what stalls
 *     a sender, for 1 MiB of memory each;
 *   - the seed's XXX knobs gasnetc_lender_limit, gasnetc_revoke_limit and
 *     gasnetc_num_scavenge default to 64, 64 and 8;
 *   - GASNET_MAX_SEGSIZE defaults to 4G, GASNet-1's configure default for
 *     --with-segment-mmap-max; GASNET_PHYSMEM_PINNABLE_RATIO bounds it
 *     further against physical memory;
 *   - GASNET_PACKEDLONG_LIMIT (seed 003) takes GASNet's fixed bound, 4012: a
 *     4K buffer less its header.
 */
#include "conduit/am/am_ring.h"
#include "config/rows.h"

#include <math.h>

/* The chunk size fixes every bounce limit's ceiling; see the file comment. */
#define CHUNK_BYTES 1024.0

static const struct gp_cfg_row conduit_rows[] = {
    /* ---- seed 000: GASNET_PORTAL_* ---- */
    { .name = "GASNET_PORTAL_MSG_LIMIT", .type = GP_CFG_INT, .default_text = "250",
      .min = 2, .max = 65535, .transport = "all", .offset = GP_CFG_FIELD(portal_msg_limit),
      .doc = "the conduit's send tickets: messages a node has initiated and not yet seen "
             "complete (an AM request or reply, a Long's payload, a put, a get; a non-packed "
             "Long takes 2), on every transport alike; 250 is kept from SeaStar's 256 DMA "
             "slots.  Below it each transport has its own bound: tcp 128 operations awaiting "
             "an answer and 64 queued requests per peer, ibv GASNET_NETWORKDEPTH_PP and "
             "_TOTAL, shm none; puts and gets that are plain copies (GP_DIRECT_RMA) take no "
             "ticket.  At least 2: a request handler's reply holds 2" },
    { .name = "GASNET_PORTAL_NUM_TMPMD", .type = GP_CFG_INT, .default_text = "1024",
      .min = 1, .max = 1048576, .transport = "all", .offset = GP_CFG_FIELD(portal_num_tmpmd),
      .doc = "temporary memory descriptors available at once, for out-of-segment Long "
             "payloads and (without firehose) out-of-segment puts and gets" },
    { .name = "GASNET_PORTAL_PACKED_LONG", .type = GP_CFG_BOOL, .default_text = "1",
      .transport = "all", .offset = GP_CFG_FIELD(portal_packed_long),
      .doc = "pack short-payload AM Longs into a request chunk instead of a header plus a put" },
    { .name = "GASNET_PORTAL_FLOW_CONTROL", .type = GP_CFG_BOOL, .default_text = "1",
      .transport = "all", .offset = GP_CFG_FIELD(portal_flow_control),
      .doc = "credit-based AM flow control; without it a flooded receiver can overflow" },
    { .name = "GASNET_PORTAL_DYNAMIC_CREDITS", .type = GP_CFG_BOOL, .default_text = "1",
      .transport = "all", .offset = GP_CFG_FIELD(portal_dynamic_credits),
      .doc = "lend banked credits to the peers a node has been talking to recently" },
    { .name = "GASNET_PORTAL_SB_CHUNKS", .type = GP_CFG_INT, .default_text = "1024",
      .min = 8, .max = 1048576, .transport = "all", .offset = GP_CFG_FIELD(portal_sb_chunks),
      .doc = "1024-byte chunks in the request send buffer; one is held per AM request until "
             "its reply, and small puts/gets bounce through them" },
    { .name = "GASNET_PORTAL_RPL_CHUNKS", .type = GP_CFG_INT, .default_text = "1024",
      .min = 8, .max = 1048576, .transport = "all", .offset = GP_CFG_FIELD(portal_rpl_chunks),
      .doc = "1024-byte chunks in the reply buffer; one is held per AM reply until it has "
             "left the node" },
    { .name = "GASNET_PORTAL_SAFE_LIMIT", .type = GP_CFG_INT, .default_text = "12",
      .min = 1, .max = 65535, .transport = "all", .offset = GP_CFG_FIELD(portal_safe_limit),
      .doc = "SAFE event-queue events handled per poll" },
    { .name = "GASNET_PORTAL_AM_LIMIT", .type = GP_CFG_INT, .default_text = "8",
      .min = 1, .max = 65535, .transport = "all", .offset = GP_CFG_FIELD(portal_am_limit),
      .doc = "AM event-queue events handled per poll" },
    { .name = "GASNET_PORTAL_SYS_LIMIT", .type = GP_CFG_INT, .default_text = "0",
      .min = 0, .max = 65535, .transport = "all", .offset = GP_CFG_FIELD(portal_sys_limit),
      .doc = "SYS event-queue events handled per poll; 0 means all of them" },
    { .name = "GASNET_PORTAL_MAX_CRED_PER_NODE", .type = GP_CFG_INT, .default_text = "400",
      .min = 4, .max = 65535, .transport = "all", .offset = GP_CFG_FIELD(portal_max_cred_per_node),
      .doc = "most credits a node may hold for sending to one peer (gasnetc_max_cpn)" },
    { .name = "GASNET_PORTAL_ACCEL", .type = GP_CFG_BOOL, .default_text = "0",
      .transport = "all", .offset = GP_CFG_FIELD(portal_accel), .flags = GP_CFG_F_NO_EFFECT,
      .doc = "Sandia accelerated Portals on Catamount; accepted for compatibility only" },
    { .name = "GASNET_PORTAL_CREDIT_STATS", .type = GP_CFG_BOOL, .default_text = "0",
      .transport = "all", .offset = GP_CFG_FIELD(portal_credit_stats),
      .doc = "at exit each node writes its credit statistics to gp-credits.JOBID.RANK in its "
             "working directory: a node line, then one key=value line per peer; not for "
             "performance runs" },
    { .name = "GASNET_PORTAL_EPOCH_DURATION", .type = GP_CFG_INT, .default_text = "1024",
      .min = 1, .max = GP_CFG_INT32_TOP, .transport = "all", .offset = GP_CFG_FIELD(portal_epoch_duration),
      .doc = "AM requests a node receives before it ends its credit epoch" },
    { .name = "GASNET_PORTAL_CRED_PER_NODE", .type = GP_CFG_INT, .default_text = NULL,
      .min = 1, .max = 65535, .transport = "all", .offset = GP_CFG_FIELD(portal_cred_per_node),
      .unset_means = "from the credit table by job size", .unset_value = 0,
      .doc = "credits each peer starts with for sending to this node; below 4 (a full "
             "Medium) a peer asks this node for the rest when a message needs more" },
    { .name = "GASNET_PORTAL_BANKED_CREDITS", .type = GP_CFG_INT, .default_text = NULL,
      .min = 0, .max = GP_CFG_INT32_TOP, .transport = "all", .offset = GP_CFG_FIELD(portal_banked_credits),
      .unset_means = "from the credit table by job size", .unset_value = -1,
      .doc = "credits a node keeps in its bank at start-up to lend on demand" },
    { .name = "GASNET_PORTAL_AMRECV_SPACE", .type = GP_CFG_SIZE, .default_text = NULL,
      .min = 64 * GP_CFG_KIB, .max = GP_CFG_TIB, .transport = "all", .offset = GP_CFG_FIELD(portal_amrecv_space),
      .unset_means = "from the credit table by job size", .unset_value = 0,
      .doc = "bytes of request receive buffer (ReqRB) space" },
    { .name = "GASNET_PORTAL_PUT_BOUNCE_LIMIT", .type = GP_CFG_INT, .default_text = NULL,
      .min = 0, .max = CHUNK_BYTES, .transport = "all", .offset = GP_CFG_FIELD(portal_put_bounce_limit),
      .unset_means = "GASNET_PORTAL_PUTGET_BOUNCE_LIMIT", .unset_value = -1,
      .fallback = "GASNET_PORTAL_PUTGET_BOUNCE_LIMIT",
      .doc = "largest out-of-segment put copied through a bounce chunk (at most the "
             "1024-byte chunk)" },
    { .name = "GASNET_PORTAL_GET_BOUNCE_LIMIT", .type = GP_CFG_INT, .default_text = NULL,
      .min = 0, .max = CHUNK_BYTES, .transport = "all", .offset = GP_CFG_FIELD(portal_get_bounce_limit),
      .unset_means = "GASNET_PORTAL_PUTGET_BOUNCE_LIMIT", .unset_value = -1,
      .fallback = "GASNET_PORTAL_PUTGET_BOUNCE_LIMIT",
      .doc = "largest out-of-segment get copied through a bounce chunk (1024 means the "
             "chunk less a pointer)" },
    { .name = "GASNET_PORTAL_PUTGET_BOUNCE_LIMIT", .type = GP_CFG_INT, .default_text = "1024",
      .min = 0, .max = CHUNK_BYTES, .transport = "all",
      .offset = GP_CFG_FIELD(portal_putget_bounce_limit),
      .doc = "bounce limit for puts and gets whose own limit is unset; chunks are 1024 bytes" },
    { .name = "GASNET_PORTAL_LENDER_LIMIT", .type = GP_CFG_INT, .default_text = "64",
      .min = 1, .max = 65535, .transport = "all", .offset = GP_CFG_FIELD(portal_lender_limit),
      .doc = "most credits lent to one peer per epoch (the seed's gasnetc_lender_limit)" },
    { .name = "GASNET_PORTAL_REVOKE_LIMIT", .type = GP_CFG_INT, .default_text = "64",
      .min = 1, .max = 65535, .transport = "all", .offset = GP_CFG_FIELD(portal_revoke_limit),
      .doc = "most credits a node gives back to one lender per epoch "
             "(the seed's gasnetc_revoke_limit)" },
    { .name = "GASNET_PORTAL_NUM_SCAVENGE", .type = GP_CFG_INT, .default_text = "8",
      .min = 1, .max = 65535, .transport = "all", .offset = GP_CFG_FIELD(portal_num_scavenge),
      .doc = "peers asked to return credits per scavenge pass (the seed's gasnetc_num_scavenge)" },

    /* ---- standard GASNet variables ---- */
    { .name = "GASNET_VERBOSEENV", .type = GP_CFG_BOOL, .default_text = "0",
      .transport = "all", .offset = GP_CFG_FIELD(verboseenv),
      .doc = "print every variable of this table with its value and source at start-up" },
    { .name = "GASNET_MAX_SEGSIZE", .type = GP_CFG_SIZE, .default_text = "4G",
      .min = 64 * GP_CFG_KIB, .max = 256 * GP_CFG_TIB, .transport = "all", .offset = GP_CFG_FIELD(max_segsize),
      .doc = "largest segment gasnet_attach may map; also bounded by this host's "
             "GASNET_PHYSMEM_PINNABLE_RATIO of physical memory and, on shm and the default "
             "transport, its /dev/shm free space (less 8 MiB), each shared among the job's "
             "processes on this host; pages are committed as they are touched" },
    { .name = "GASNET_PHYSMEM_PINNABLE_RATIO", .type = GP_CFG_DOUBLE, .default_text = "0.75",
      .min = 0, .max = 1, .flags = GP_CFG_F_MIN_EXCLUSIVE, .transport = "all",
      .offset = GP_CFG_FIELD(physmem_pinnable_ratio),
      .doc = "fraction of this host's physical memory the segments of the job's processes on "
             "it may use together (for ibv also bounded by ulimit -l)" },
    { .name = "GASNET_EXITTIMEOUT", .type = GP_CFG_DOUBLE, .default_text = NULL,
      .min = 0, .max = INFINITY, .flags = GP_CFG_F_MIN_EXCLUSIVE, .transport = "all",
      .offset = GP_CFG_FIELD(exittimeout), .unset_value = 0,
      .unset_means = "min(GASNET_EXITTIMEOUT_MAX, GASNET_EXITTIMEOUT_MIN + "
                     "GASNET_EXITTIMEOUT_FACTOR * nodes)",
      .doc = "seconds the graceful exit waits for the other nodes before forcing the end; "
             "no upper bound, as in GASNet: from 2147483646 (OpenSHMEM's \"never\") on, no "
             "alarm backs the wait" },
    { .name = "GASNET_EXITTIMEOUT_MAX", .type = GP_CFG_DOUBLE, .default_text = "360",
      .min = 0, .max = INFINITY, .flags = GP_CFG_F_MIN_EXCLUSIVE, .transport = "all",
      .offset = GP_CFG_FIELD(exittimeout_max),
      .doc = "upper bound, in seconds, of the derived GASNET_EXITTIMEOUT" },
    { .name = "GASNET_EXITTIMEOUT_MIN", .type = GP_CFG_DOUBLE, .default_text = "2",
      .min = 0, .max = INFINITY, .transport = "all", .offset = GP_CFG_FIELD(exittimeout_min),
      .doc = "seconds of the derived GASNET_EXITTIMEOUT before the per-node part" },
    { .name = "GASNET_EXITTIMEOUT_FACTOR", .type = GP_CFG_DOUBLE, .default_text = "0.25",
      .min = 0, .max = INFINITY, .transport = "all", .offset = GP_CFG_FIELD(exittimeout_factor),
      .doc = "seconds per node added to GASNET_EXITTIMEOUT_MIN in the derived timeout" },
    { .name = "GASNET_BACKTRACE", .type = GP_CFG_BOOL, .default_text = "0",
      .transport = "all", .offset = GP_CFG_FIELD(backtrace),
      .doc = "print a backtrace when a fatal error or fatal signal ends the process" },
    { .name = "GASNET_FREEZE", .type = GP_CFG_BOOL, .default_text = "0",
      .transport = "all", .offset = GP_CFG_FIELD(freeze),
      .doc = "stop in gasnet_init until a debugger attaches and clears gasnet_frozen" },
    { .name = "GASNET_FREEZE_ON_ERROR", .type = GP_CFG_BOOL, .default_text = "0",
      .transport = "all", .offset = GP_CFG_FIELD(freeze_on_error),
      .doc = "on a fatal error or signal, stop until a debugger attaches" },
    { .name = "GASNET_TRACEFILE", .type = GP_CFG_STRING, .default_text = NULL,
      .transport = "all", .offset = GP_CFG_FIELD(tracefile), .flags = GP_CFG_NO_EFFECT_YET,
      .doc = "GASNet's file for trace output ('%' the node number, '-' stderr); gp has no "
             "tracing of GASNet's kind yet (GP_LOG_LEVEL=trace logs to stderr)" },
    { .name = "GASNET_STATSFILE", .type = GP_CFG_STRING, .default_text = NULL,
      .transport = "all", .offset = GP_CFG_FIELD(statsfile), .flags = GP_CFG_NO_EFFECT_YET,
      .doc = "GASNet's file for statistics output ('%' the node number, '-' stderr); gp "
             "writes no such file yet (gp-top(1) shows a running job's counters)" },


    /* ---- gp's own ---- */
    { .name = "GP_LOG_LEVEL", .type = GP_CFG_STRING, .default_text = "warn",
      .choices = "error|warn|info|debug|trace", .transport = "all",
      .offset = GP_CFG_FIELD(gp_log_level),
      .doc = "least severe log messages printed" },
    { .name = "GP_DIRECT_RMA", .type = GP_CFG_BOOL, .default_text = "1", .transport = "all",
      .offset = GP_CFG_FIELD(gp_direct_rma),
      .doc = "puts and gets to a peer whose segment is mapped here are plain copies, and puts "
             "over tcp are counted (no MD, no ticket, the ACK a count, not an event); 0 sends "
             "them through the Portals protocol (tickets, handles, ACK events), for tests" },
    { .name = "GP_SHM_AM_RING", .type = GP_CFG_BOOL, .default_text = "1", .transport = "shm",
      .offset = GP_CFG_FIELD(gp_shm_am_ring),
      .doc = "active messages to a peer whose region is mapped here go through a ring of "
             "slots in the peer's memory (the slots are the credits; hosts of up to "
             "GP_SHM_AM_RING_RANKS nodes, GASNET_PORTAL_FLOW_CONTROL on); 0 sends them through "
             "the Portals protocol (credits, ReqRB, events), for tests" },
    { .name = "GP_SHM_AM_RING_RANKS", .type = GP_CFG_INT, .default_text = "64", .min = 2,
      .max = GPC_RING_MAX_LOCAL_NODES, .transport = "shm", .offset = GP_CFG_FIELD(gp_shm_am_ring_ranks),
      .doc = "the most nodes of one host whose active messages to each other take the rings "
             "(GP_SHM_AM_RING): a host with more sends them through the Portals protocol, "
             "whatever the job's size; a host's rings cost each of its nodes 2 x 17.5 KiB "
             "per node of the host; lower it for tests" },
    { .name = "GP_DOZE_MAX_US", .type = GP_CFG_INT, .default_text = "10000", .min = 50,
      .max = 60000000, .transport = "all", .offset = GP_CFG_FIELD(gp_doze_max_us),
      .doc = "microseconds a doze sleeps at most: a wait in GASNET_WAIT_BLOCK or "
             "GASNET_WAIT_SPINBLOCK mode that keeps finding nothing sleeps until a peer on "
             "this host posts to it (SEQ builds, every peer on this host: progress.c), 50 us "
             "at first and twice as long after each sleep that nothing woke, up to this; it "
             "bounds what a wait for something that wakes nobody costs (a flag a peer stores "
             "with a put)" },
    /* ---- seed 003 lists these with ibv; the conduit (and util/slowwait.c) read them ---- */
    { .name = "GASNET_PACKEDLONG_LIMIT", .type = GP_CFG_INT, .default_text = "4012", .min = 0,
      .max = 4012, .transport = "all", .offset = GP_CFG_FIELD(packedlong_limit),
      .doc = "largest AM Long payload packed with its header (a ReqSB chunk bounds it further, "
             "to about 960 bytes); 0 sends header and payload apart" },
    { .name = "GP_EXIT_FAULT", .type = GP_CFG_STRING, .default_text = "none",
      .choices = "none|abort", .transport = "all", .offset = GP_CFG_FIELD(gp_exit_fault),
      .doc = "for tests: abort raises SIGABRT inside the exit's work, which must still end the "
             "process with the exit's code (seed 003)" },
    { .name = "GP_SLOW_WAIT_MS", .type = GP_CFG_INT, .default_text = "10000", .min = 1,
      .max = 86400000, .transport = "all", .offset = GP_CFG_NO_FIELD,
      .doc = "milliseconds a wait for credits, send tickets, chunks or operation records lasts "
             "before it prints one line naming the resource and the peer (it then keeps "
             "waiting); util/slowwait.c reads it, tests shorten it" },
};

/* Checks between rows that a per-row range cannot express. */
static int check_conduit_rows(const void *next, char *errbuf, size_t errlen)
{
    const struct gp_config *cfg = next;
    if (cfg->portal_cred_per_node > cfg->portal_max_cred_per_node) {
        gp_config_error(errbuf, errlen, "GASNET_PORTAL_CRED_PER_NODE='%lld' is not valid: "
                        "expected at most GASNET_PORTAL_MAX_CRED_PER_NODE (%lld)",
                        (long long)cfg->portal_cred_per_node,
                        (long long)cfg->portal_max_cred_per_node);
        return GP_CFG_ERR_BAD_ARG;
    }
    if (cfg->exittimeout_min > cfg->exittimeout_max) {
        gp_config_error(errbuf, errlen, "GASNET_EXITTIMEOUT_MIN='%g' is not valid: expected at "
                        "most GASNET_EXITTIMEOUT_MAX (%g)", cfg->exittimeout_min,
                        cfg->exittimeout_max);
        return GP_CFG_ERR_BAD_ARG;
    }
    return GP_CFG_OK;
}

const struct gp_cfg_group gp_cfg_group_conduit = {
    .layer = "conduit", GP_CFG_GROUP_ROWS(conduit_rows), GP_CFG_GROUP_VALUES(gp_cfg),
    .check = check_conduit_rows,
};
