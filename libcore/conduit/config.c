/*
 * The configuration table and everything derived from it.
 *
 * One static array, `rows`, names every environment variable gp knows.
 * The parser, the range check, the error sentence, the GASNET_VERBOSEENV
 * echo, gp-check --env and the man page all walk that array, so a variable
 * cannot be parsed in one place and documented differently in another.  The
 * table is also the allow-list for the unknown-variable warning: a
 * transport that reads a new variable adds a row here and nothing else.
 *
 * Parsing is strict in the way GASNet is strict: a value that is not
 * exactly of the row's form, or lies outside [min, max], is an error that
 * names the variable, the value and the accepted form.  Nothing is clamped,
 * because a silently clamped knob makes a tuning experiment measure
 * something other than what the user asked for.  config.c reports; the
 * caller decides that the error is fatal.
 *
 * A load parses into a scratch copy and commits only when every row is
 * good, so a failed reload leaves the previous configuration intact.
 *
 * Some variables have no constant default: the credit variables are
 * derived from the job size at attach (gp_config_set_derived), the PUT/GET
 * bounce limits take GASNET_PORTAL_PUTGET_BOUNCE_LIMIT's value, the
 * firehose victim pool is R regions of MAXREGION_SIZE, and the exit timeout
 * follows GASNet's formula over the node count.  Such rows have a NULL
 * default_text and an `unset_means` sentence, and the echo labels them
 * "derived".
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
 *   - the ibv rows keep seed 003's defaults; where it gives no bound, gp
 *     takes GASNet's fixed sizes: 4012 for GASNET_PACKEDLONG_LIMIT and 4092
 *     for GASNET_AMRDMA_LIMIT (a 4K buffer less its header), 64 queue pairs,
 *     1G of non-bulk put bouncing; GASNET_AM_CREDITS_TOTAL is -1 while unset
 *     (MAX(1024, nodes), resolved with the device in nal/ibv_limits.c);
 *   - GASNET_FIREHOSE_M has no main pool by default: gp pins each segment
 *     whole at attach (GASNet's SEGMENT_FAST), so a set value only holds
 *     pinnable memory back from the victim pool.
 */
#include "conduit/config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <gasnet.h>

#include "nal/ibv_ports.h"
#include "util/log.h"

struct gp_config gp_cfg;

#define FIELD(member) offsetof(struct gp_config, member)
#define KIB 1024.0
#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * MIB)
#define TIB (1024.0 * GIB)
#define INT32_TOP 2147483647.0

/* A row gp accepts but does not act on yet: a warning when set (warn_no_effect). */
#define NO_EFFECT_YET (GP_CFG_F_NO_EFFECT | GP_CFG_F_NOT_YET)

/* The chunk size fixes every bounce limit's ceiling; see the file comment. */
#define CHUNK_BYTES 1024.0

static const struct gp_cfg_row rows[] = {
    /* ---- seed 000: GASNET_PORTAL_* ---- */
    { .name = "GASNET_PORTAL_MSG_LIMIT", .type = GP_CFG_INT, .default_text = "250",
      .min = 2, .max = 65535, .transport = "all", .offset = FIELD(portal_msg_limit),
      .doc = "the conduit's send tickets: messages a node has initiated and not yet seen "
             "complete (an AM request or reply, a Long's payload, a put, a get; a non-packed "
             "Long takes 2), on every transport alike; 250 is kept from SeaStar's 256 DMA "
             "slots.  Below it each transport has its own bound: tcp 128 operations awaiting "
             "an answer and 64 queued requests per peer, ibv GASNET_NETWORKDEPTH_PP and "
             "_TOTAL, shm none; puts and gets that are plain copies (GP_DIRECT_RMA) take no "
             "ticket.  At least 2: a request handler's reply holds 2" },
    { .name = "GASNET_PORTAL_NUM_TMPMD", .type = GP_CFG_INT, .default_text = "1024",
      .min = 1, .max = 1048576, .transport = "all", .offset = FIELD(portal_num_tmpmd),
      .doc = "temporary memory descriptors available at once, for out-of-segment Long "
             "payloads and (without firehose) out-of-segment puts and gets" },
    { .name = "GASNET_PORTAL_PACKED_LONG", .type = GP_CFG_BOOL, .default_text = "1",
      .transport = "all", .offset = FIELD(portal_packed_long),
      .doc = "pack short-payload AM Longs into a request chunk instead of a header plus a put" },
    { .name = "GASNET_PORTAL_FLOW_CONTROL", .type = GP_CFG_BOOL, .default_text = "1",
      .transport = "all", .offset = FIELD(portal_flow_control),
      .doc = "credit-based AM flow control; without it a flooded receiver can overflow" },
    { .name = "GASNET_PORTAL_DYNAMIC_CREDITS", .type = GP_CFG_BOOL, .default_text = "1",
      .transport = "all", .offset = FIELD(portal_dynamic_credits),
      .doc = "lend banked credits to the peers a node has been talking to recently" },
    { .name = "GASNET_PORTAL_SB_CHUNKS", .type = GP_CFG_INT, .default_text = "1024",
      .min = 8, .max = 1048576, .transport = "all", .offset = FIELD(portal_sb_chunks),
      .doc = "1024-byte chunks in the request send buffer; one is held per AM request until "
             "its reply, and small puts/gets bounce through them" },
    { .name = "GASNET_PORTAL_RPL_CHUNKS", .type = GP_CFG_INT, .default_text = "1024",
      .min = 8, .max = 1048576, .transport = "all", .offset = FIELD(portal_rpl_chunks),
      .doc = "1024-byte chunks in the reply buffer; one is held per AM reply until it has "
             "left the node" },
    { .name = "GASNET_PORTAL_SAFE_LIMIT", .type = GP_CFG_INT, .default_text = "12",
      .min = 1, .max = 65535, .transport = "all", .offset = FIELD(portal_safe_limit),
      .doc = "SAFE event-queue events handled per poll" },
    { .name = "GASNET_PORTAL_AM_LIMIT", .type = GP_CFG_INT, .default_text = "8",
      .min = 1, .max = 65535, .transport = "all", .offset = FIELD(portal_am_limit),
      .doc = "AM event-queue events handled per poll" },
    { .name = "GASNET_PORTAL_SYS_LIMIT", .type = GP_CFG_INT, .default_text = "0",
      .min = 0, .max = 65535, .transport = "all", .offset = FIELD(portal_sys_limit),
      .doc = "SYS event-queue events handled per poll; 0 means all of them" },
    { .name = "GASNET_PORTAL_MAX_CRED_PER_NODE", .type = GP_CFG_INT, .default_text = "400",
      .min = 4, .max = 65535, .transport = "all", .offset = FIELD(portal_max_cred_per_node),
      .doc = "most credits a node may hold for sending to one peer (gasnetc_max_cpn)" },
    { .name = "GASNET_PORTAL_ACCEL", .type = GP_CFG_BOOL, .default_text = "0",
      .transport = "all", .offset = FIELD(portal_accel), .flags = GP_CFG_F_NO_EFFECT,
      .doc = "Sandia accelerated Portals on Catamount; accepted for compatibility only" },
    { .name = "GASNET_PORTAL_CREDIT_STATS", .type = GP_CFG_BOOL, .default_text = "0",
      .transport = "all", .offset = FIELD(portal_credit_stats),
      .doc = "at exit each node writes its credit statistics to gp-credits.JOBID.RANK in its "
             "working directory: a node line, then one key=value line per peer; not for "
             "performance runs" },
    { .name = "GASNET_PORTAL_EPOCH_DURATION", .type = GP_CFG_INT, .default_text = "1024",
      .min = 1, .max = INT32_TOP, .transport = "all", .offset = FIELD(portal_epoch_duration),
      .doc = "AM requests a node receives before it ends its credit epoch" },
    { .name = "GASNET_PORTAL_CRED_PER_NODE", .type = GP_CFG_INT, .default_text = NULL,
      .min = 4, .max = 65535, .transport = "all", .offset = FIELD(portal_cred_per_node),
      .unset_means = "from the credit table by job size", .unset_value = 0,
      .doc = "credits each peer starts with for sending to this node" },
    { .name = "GASNET_PORTAL_BANKED_CREDITS", .type = GP_CFG_INT, .default_text = NULL,
      .min = 0, .max = INT32_TOP, .transport = "all", .offset = FIELD(portal_banked_credits),
      .unset_means = "from the credit table by job size", .unset_value = -1,
      .doc = "credits a node keeps in its bank at start-up to lend on demand" },
    { .name = "GASNET_PORTAL_AMRECV_SPACE", .type = GP_CFG_SIZE, .default_text = NULL,
      .min = 64 * KIB, .max = TIB, .transport = "all", .offset = FIELD(portal_amrecv_space),
      .unset_means = "from the credit table by job size", .unset_value = 0,
      .doc = "bytes of request receive buffer (ReqRB) space" },
    { .name = "GASNET_PORTAL_PUT_BOUNCE_LIMIT", .type = GP_CFG_INT, .default_text = NULL,
      .min = 0, .max = CHUNK_BYTES, .transport = "all", .offset = FIELD(portal_put_bounce_limit),
      .unset_means = "GASNET_PORTAL_PUTGET_BOUNCE_LIMIT", .unset_value = -1,
      .fallback = "GASNET_PORTAL_PUTGET_BOUNCE_LIMIT",
      .doc = "largest out-of-segment put copied through a bounce chunk (at most the "
             "1024-byte chunk)" },
    { .name = "GASNET_PORTAL_GET_BOUNCE_LIMIT", .type = GP_CFG_INT, .default_text = NULL,
      .min = 0, .max = CHUNK_BYTES, .transport = "all", .offset = FIELD(portal_get_bounce_limit),
      .unset_means = "GASNET_PORTAL_PUTGET_BOUNCE_LIMIT", .unset_value = -1,
      .fallback = "GASNET_PORTAL_PUTGET_BOUNCE_LIMIT",
      .doc = "largest out-of-segment get copied through a bounce chunk (1024 means the "
             "chunk less a pointer)" },
    { .name = "GASNET_PORTAL_PUTGET_BOUNCE_LIMIT", .type = GP_CFG_INT, .default_text = "1024",
      .min = 0, .max = CHUNK_BYTES, .transport = "all",
      .offset = FIELD(portal_putget_bounce_limit),
      .doc = "bounce limit for puts and gets whose own limit is unset; chunks are 1024 bytes" },
    { .name = "GASNET_PORTAL_LENDER_LIMIT", .type = GP_CFG_INT, .default_text = "64",
      .min = 1, .max = 65535, .transport = "all", .offset = FIELD(portal_lender_limit),
      .doc = "most credits lent to one peer per epoch (the seed's gasnetc_lender_limit)" },
    { .name = "GASNET_PORTAL_REVOKE_LIMIT", .type = GP_CFG_INT, .default_text = "64",
      .min = 1, .max = 65535, .transport = "all", .offset = FIELD(portal_revoke_limit),
      .doc = "most credits a node gives back to one lender per epoch "
             "(the seed's gasnetc_revoke_limit)" },
    { .name = "GASNET_PORTAL_NUM_SCAVENGE", .type = GP_CFG_INT, .default_text = "8",
      .min = 1, .max = 65535, .transport = "all", .offset = FIELD(portal_num_scavenge),
      .doc = "peers asked to return credits per scavenge pass (the seed's gasnetc_num_scavenge)" },

    /* ---- standard GASNet variables ---- */
    { .name = "GASNET_VERBOSEENV", .type = GP_CFG_BOOL, .default_text = "0",
      .transport = "all", .offset = FIELD(verboseenv),
      .doc = "print every variable of this table with its value and source at start-up" },
    { .name = "GASNET_MAX_SEGSIZE", .type = GP_CFG_SIZE, .default_text = "4G",
      .min = 64 * KIB, .max = 256 * TIB, .transport = "all", .offset = FIELD(max_segsize),
      .doc = "largest segment gasnet_attach may map; also bounded by this host's "
             "GASNET_PHYSMEM_PINNABLE_RATIO of physical memory and, on shm and the default "
             "transport, its /dev/shm free space (less 8 MiB), each shared among the job's "
             "processes on this host; pages are committed as they are touched" },
    { .name = "GASNET_PHYSMEM_PINNABLE_RATIO", .type = GP_CFG_DOUBLE, .default_text = "0.75",
      .min = 0, .max = 1, .flags = GP_CFG_F_MIN_EXCLUSIVE, .transport = "all",
      .offset = FIELD(physmem_pinnable_ratio),
      .doc = "fraction of this host's physical memory the segments of the job's processes on "
             "it may use together (for ibv also bounded by ulimit -l)" },
    { .name = "GASNET_EXITTIMEOUT", .type = GP_CFG_DOUBLE, .default_text = NULL,
      .min = 0, .max = INFINITY, .flags = GP_CFG_F_MIN_EXCLUSIVE, .transport = "all",
      .offset = FIELD(exittimeout), .unset_value = 0,
      .unset_means = "min(GASNET_EXITTIMEOUT_MAX, GASNET_EXITTIMEOUT_MIN + "
                     "GASNET_EXITTIMEOUT_FACTOR * nodes)",
      .doc = "seconds the graceful exit waits for the other nodes before forcing the end; "
             "no upper bound, as in GASNet: from 2147483646 (OpenSHMEM's \"never\") on, no "
             "alarm backs the wait" },
    { .name = "GASNET_EXITTIMEOUT_MAX", .type = GP_CFG_DOUBLE, .default_text = "360",
      .min = 0, .max = INFINITY, .flags = GP_CFG_F_MIN_EXCLUSIVE, .transport = "all",
      .offset = FIELD(exittimeout_max),
      .doc = "upper bound, in seconds, of the derived GASNET_EXITTIMEOUT" },
    { .name = "GASNET_EXITTIMEOUT_MIN", .type = GP_CFG_DOUBLE, .default_text = "2",
      .min = 0, .max = INFINITY, .transport = "all", .offset = FIELD(exittimeout_min),
      .doc = "seconds of the derived GASNET_EXITTIMEOUT before the per-node part" },
    { .name = "GASNET_EXITTIMEOUT_FACTOR", .type = GP_CFG_DOUBLE, .default_text = "0.25",
      .min = 0, .max = INFINITY, .transport = "all", .offset = FIELD(exittimeout_factor),
      .doc = "seconds per node added to GASNET_EXITTIMEOUT_MIN in the derived timeout" },
    { .name = "GASNET_BACKTRACE", .type = GP_CFG_BOOL, .default_text = "0",
      .transport = "all", .offset = FIELD(backtrace),
      .doc = "print a backtrace when a fatal error or fatal signal ends the process" },
    { .name = "GASNET_FREEZE", .type = GP_CFG_BOOL, .default_text = "0",
      .transport = "all", .offset = FIELD(freeze),
      .doc = "stop in gasnet_init until a debugger attaches and clears gasnet_frozen" },
    { .name = "GASNET_FREEZE_ON_ERROR", .type = GP_CFG_BOOL, .default_text = "0",
      .transport = "all", .offset = FIELD(freeze_on_error),
      .doc = "on a fatal error or signal, stop until a debugger attaches" },
    { .name = "GASNET_TRACEFILE", .type = GP_CFG_STRING, .default_text = NULL,
      .transport = "all", .offset = FIELD(tracefile), .flags = NO_EFFECT_YET,
      .doc = "GASNet's file for trace output ('%' the node number, '-' stderr); gp has no "
             "tracing of GASNet's kind yet (GP_LOG_LEVEL=trace logs to stderr)" },
    { .name = "GASNET_STATSFILE", .type = GP_CFG_STRING, .default_text = NULL,
      .transport = "all", .offset = FIELD(statsfile), .flags = NO_EFFECT_YET,
      .doc = "GASNet's file for statistics output ('%' the node number, '-' stderr); gp "
             "writes no such file yet (gp-top(1) shows a running job's counters)" },

    /* ---- firehose (seed 000), used by ibv ---- */
    { .name = "GASNET_USE_FIREHOSE", .type = GP_CFG_BOOL, .default_text = "1",
      .transport = "ibv", .offset = FIELD(use_firehose),
      .doc = "cache registrations of out-of-segment memory; off means bounce buffers or "
             "uncached registration" },
    { .name = "GASNET_FIREHOSE_MAXREGION_SIZE", .type = GP_CFG_SIZE, .default_text = "128K",
      .min = 4 * KIB, .max = GIB, .flags = GP_CFG_F_BARE_MEGABYTES, .transport = "ibv",
      .offset = FIELD(firehose_maxregion_size),
      .doc = "largest single pinned region, a multiple of the page size (a bare number is MB)" },
    { .name = "GASNET_FIREHOSE_MAXVICTIM_R", .type = GP_CFG_INT, .default_text = "1024",
      .min = 1, .max = 1048576, .transport = "ibv", .offset = FIELD(firehose_maxvictim_r),
      .doc = "pinned regions in the local victim pool (truncated to MAXVICTIM_M / "
             "MAXREGION_SIZE)" },
    { .name = "GASNET_FIREHOSE_MAXVICTIM_M", .type = GP_CFG_SIZE, .default_text = NULL,
      .min = MIB, .max = TIB, .flags = GP_CFG_F_BARE_MEGABYTES, .transport = "ibv",
      .offset = FIELD(firehose_maxvictim_m),
      .unset_means = "GASNET_FIREHOSE_MAXVICTIM_R * GASNET_FIREHOSE_MAXREGION_SIZE",
      .doc = "memory in the local victim pool (a bare number is MB)" },
    { .name = "GASNET_FIREHOSE_VERBOSE", .type = GP_CFG_BOOL, .default_text = "0",
      .transport = "ibv", .offset = FIELD(firehose_verbose),
      .doc = "print firehose internals, for bug reports" },
    { .name = "GASNET_FIREHOSE_M", .type = GP_CFG_SIZE, .default_text = NULL,
      .min = 0, .max = TIB, .flags = GP_CFG_F_BARE_MEGABYTES, .transport = "ibv",
      .offset = FIELD(firehose_m), .unset_value = 0,
      .unset_means = "none: gp pins each segment whole at attach (GASNet's SEGMENT_FAST)",
      .doc = "memory of the main (remote) pool; since segments are pinned at attach it only "
             "holds pinnable memory back from the victim pool (a bare number is MB)" },
    { .name = "GASNET_FIREHOSE_R", .type = GP_CFG_INT, .default_text = NULL,
      .min = 0, .max = 1048576, .transport = "ibv", .offset = FIELD(firehose_r),
      .unset_value = 0, .unset_means = "GASNET_FIREHOSE_M / GASNET_FIREHOSE_MAXREGION_SIZE",
      .flags = NO_EFFECT_YET,
      .doc = "pinned regions of the main (remote) pool, truncated to GASNET_FIREHOSE_M / "
             "MAXREGION_SIZE; gp keeps no main pool of regions yet (segments are pinned "
             "whole at attach)" },

    /* ---- ibv (seed 003); trims against the device are in nal/ibv_limits.c ---- */
    { .name = "GASNET_IBV_PORTS", .type = GP_CFG_STRING, .default_text = NULL,
      .transport = "ibv", .offset = FIELD(ibv_ports),
      .unset_means = "no filter: one active port on every HCA",
      .doc = "HCAs and ports that may be used, HCA[:PORT[,PORT...]][+HCA...] such as "
             "mlx5_0+mlx5_1:2; a filter (order and duplicates don't matter; an HCA without "
             "ports allows its first active one)" },
    { .name = "GASNET_VAPI_PORTS", .type = GP_CFG_STRING, .transport = "ibv",
      .offset = GP_CFG_NO_FIELD, .newer = "GASNET_IBV_PORTS",
      .doc = "seed 003's name (vapi-conduit)" },
    { .name = "GASNET_HCA_ID", .type = GP_CFG_STRING, .default_text = NULL, .transport = "ibv",
      .offset = GP_CFG_NO_FIELD, .flags = GP_CFG_F_NO_EFFECT,
      .doc = "unsupported since GASNet's older releases (seed 003); choose HCAs and ports "
             "with GASNET_IBV_PORTS" },
    { .name = "GASNET_PORT_NUM", .type = GP_CFG_STRING, .default_text = NULL, .transport = "ibv",
      .offset = GP_CFG_NO_FIELD, .flags = GP_CFG_F_NO_EFFECT,
      .doc = "unsupported since GASNet's older releases (seed 003); choose HCAs and ports "
             "with GASNET_IBV_PORTS" },
    { .name = "GASNET_NUM_QPS", .type = GP_CFG_INT, .default_text = "0", .min = 0, .max = 64,
      .transport = "ibv", .offset = FIELD(num_qps),
      .doc = "queue pairs each pair of peers stripes its traffic over, mapped round-robin "
             "onto the ports; 0 means one per port used" },
    { .name = "GASNET_QP_TIMEOUT", .type = GP_CFG_INT, .default_text = "18", .min = 0,
      .max = 31, .transport = "ibv", .offset = FIELD(qp_timeout),
      .doc = "ACK timeout of the queue pairs, 4.096 us * 2^value (18: about 1 s)" },
    { .name = "GASNET_QP_RETRY_COUNT", .type = GP_CFG_INT, .default_text = "7", .min = 0,
      .max = 7, .transport = "ibv", .offset = FIELD(qp_retry_count),
      .doc = "retransmissions after an ACK timeout before the HCA reports a fatal error" },
    { .name = "GASNET_QP_RD_ATOM", .type = GP_CFG_INT, .default_text = "0", .min = 0,
      .max = 255, .transport = "ibv", .offset = FIELD(qp_rd_atom),
      .doc = "RDMA reads each connection may have outstanding at the responder; 0 means the "
             "HCA's maximum (a larger value is trimmed to it)" },
    { .name = "GASNET_PHYSMEM_MAX", .type = GP_CFG_SIZE, .default_text = "0", .min = 0,
      .max = 256 * TIB, .transport = "ibv", .offset = FIELD(physmem_max),
      .doc = "most physical memory to pin (segment, buffers, firehose); 0 means probe the "
             "limits of the system and the HCA" },
    { .name = "GASNET_PHYSMEM_NOPROBE", .type = GP_CFG_BOOL, .default_text = "0",
      .transport = "ibv", .offset = FIELD(physmem_noprobe),
      .doc = "trust GASNET_PHYSMEM_MAX without probing: faster start-up, but pinning may fail "
             "later if it is too high; ignored while GASNET_PHYSMEM_MAX is 0" },
    { .name = "GASNET_INLINESEND_LIMIT", .type = GP_CFG_INT, .default_text = "-1", .min = -1,
      .max = 65536, .transport = "ibv", .offset = FIELD(inlinesend_limit),
      .doc = "largest send copied into the work request (inline); -1 means the HCA's maximum, "
             "0 no inline sends (a larger value is trimmed to the HCA's maximum)" },
    { .name = "GASNET_PACKEDLONG_LIMIT", .type = GP_CFG_INT, .default_text = "4012", .min = 0,
      .max = 4012, .transport = "all", .offset = FIELD(packedlong_limit),
      .doc = "largest AM Long payload packed with its header (a ReqSB chunk bounds it further, "
             "to about 960 bytes); 0 sends header and payload apart" },
    { .name = "GASNET_NONBULKPUT_BOUNCE_LIMIT", .type = GP_CFG_SIZE, .default_text = "64K",
      .min = 0, .max = GIB, .transport = "ibv", .offset = FIELD(nonbulkput_bounce_limit),
      .doc = "largest non-bulk put (or AM Long payload) copied through bounce buffers; larger "
             "ones block until the HCA reports completion; 0 disables bounce buffers" },
    { .name = "GASNET_PUTINMOVE_LIMIT", .type = GP_CFG_SIZE, .default_text = "3K", .min = 0,
      .max = 3 * KIB, .transport = "ibv", .offset = GP_CFG_NO_FIELD,
      .flags = GP_CFG_F_NO_EFFECT,
      .doc = "bytes of a PUT that misses the firehose cache carried on the AM that pins the "
             "remote memory; seed 003: only for GASNET_SEGMENT_LARGE and EVERYTHING, and gp's "
             "segments are FAST (pinned at attach), where it never applies" },
    { .name = "GASNET_NETWORKDEPTH_PP", .type = GP_CFG_INT, .default_text = "64", .min = 1,
      .max = 65536, .transport = "ibv", .offset = FIELD(networkdepth_pp),
      .doc = "operations in flight from a node to each peer: the depth of each send queue "
             "(trimmed to the HCA's max_qp_wr)" },
    { .name = "GASNET_NETWORKDEPTH_TOTAL", .type = GP_CFG_INT, .default_text = "0", .min = 0,
      .max = INT32_TOP, .transport = "ibv", .offset = FIELD(networkdepth_total),
      .doc = "operations in flight from a node over all its peers, on ibv and tcp (a sender "
             "over it waits); the ibv send completion queue holds min(this, "
             "GASNET_NETWORKDEPTH_PP * (nodes - 1)); 0 means the most the HCA allows (on tcp: "
             "no cap)" },
    { .name = "GASNET_AM_CREDITS_PP", .type = GP_CFG_INT, .default_text = "32", .min = 1,
      .max = 65536, .transport = "ibv", .offset = FIELD(am_credits_pp),
      .doc = "AM requests in flight from a node to each peer, and receive buffers preposted "
             "per peer; trimmed to GASNET_NETWORKDEPTH_PP" },
    { .name = "GASNET_AM_CREDITS_TOTAL", .type = GP_CFG_INT, .default_text = NULL, .min = 0,
      .max = INT32_TOP, .transport = "ibv", .offset = FIELD(am_credits_total),
      .unset_value = -1, .unset_means = "MAX(1024, nodes)",
      .doc = "AM requests in flight from a node in all (receive buffers for their replies); "
             "0 means the most the HCA allows; trimmed to GASNET_NETWORKDEPTH_TOTAL" },
    { .name = "GASNET_AM_CREDITS_SLACK", .type = GP_CFG_INT, .default_text = "1", .min = 0,
      .max = 255, .transport = "ibv", .offset = FIELD(am_credits_slack),
      .doc = "credits a responder may bank before a hidden reply returns them; reduced "
             "below GASNET_AM_CREDITS_PP so that banking cannot deadlock" },
    { .name = "GASNET_BBUF_COUNT", .type = GP_CFG_INT, .default_text = "1024", .min = 0,
      .max = 1048576, .transport = "ibv", .offset = FIELD(bbuf_count),
      .doc = "pre-pinned 4K bounce buffers (AM headers, Medium payloads, bounced puts), at "
             "most GASNET_NETWORKDEPTH_TOTAL; 0 means GASNET_NETWORKDEPTH_TOTAL" },
    { .name = "GASNET_RBUF_COUNT", .type = GP_CFG_INT, .default_text = "1024", .min = 16,
      .max = 1048576, .transport = "ibv", .offset = FIELD(rbuf_count),
      .doc = "pinned 4K receive buffers of the process's shared receive queue, whatever the "
             "number of peers (fewer when the job cannot fill them; trimmed to the HCA's "
             "max_srq_wr); each peer is granted min(GASNET_AM_CREDITS_PP, what is left after "
             "answers and credit messages / peers) request credits, at least 2" },
    /* vapi-conduit's names (seed 004) for what seed 003 renamed; doc/seed-notes-config.md */
    { .name = "GASNET_OP_OUST_PP", .type = GP_CFG_INT, .transport = "ibv",
      .offset = GP_CFG_NO_FIELD, .newer = "GASNET_NETWORKDEPTH_PP",
      .doc = "seed 004's name (vapi-conduit): ops in flight to each peer, the send queue depth" },
    { .name = "GASNET_OP_OUST_LIMIT", .type = GP_CFG_INT, .transport = "ibv",
      .offset = GP_CFG_NO_FIELD, .newer = "GASNET_NETWORKDEPTH_TOTAL",
      .doc = "seed 004's name (vapi-conduit): ops in flight from a node, the send completion "
             "queue depth" },
    { .name = "GASNET_AM_OUST_PP", .type = GP_CFG_INT, .transport = "ibv",
      .offset = GP_CFG_NO_FIELD, .newer = "GASNET_AM_CREDITS_PP",
      .doc = "seed 004's name (vapi-conduit): AM requests in flight to each peer" },
    { .name = "GASNET_AM_OUST_LIMIT", .type = GP_CFG_INT, .transport = "ibv",
      .offset = GP_CFG_NO_FIELD, .newer = "GASNET_AM_CREDITS_TOTAL",
      .doc = "seed 004's name (vapi-conduit): AM requests in flight from a node; read with "
             "the newer rules (0 is automatic, larger values are trimmed, never an error)" },
    { .name = "GASNET_BBUF_LIMIT", .type = GP_CFG_INT, .transport = "ibv",
      .offset = GP_CFG_NO_FIELD, .newer = "GASNET_BBUF_COUNT",
      .doc = "seed 004's name (vapi-conduit): pre-pinned bounce buffers" },
    { .name = "GASNET_PIN_MAXSZ", .type = GP_CFG_SIZE, .default_text = "0", .min = 4 * KIB,
      .max = TIB, .flags = GP_CFG_F_POWER_OF_TWO | GP_CFG_F_ZERO_OK, .transport = "ibv",
      .offset = FIELD(pin_maxsz),
      .doc = "largest single registration; a larger segment is pinned in several; 0 means "
             "the HCA's limit (a larger value is trimmed to it)" },
    { .name = "GASNET_AMRDMA_LIMIT", .type = GP_CFG_INT, .default_text = "4092", .min = 0,
      .max = 4092, .transport = "ibv", .offset = FIELD(amrdma_limit), .flags = NO_EFFECT_YET,
      .doc = "largest AM sent by RDMA into a buffer reserved at the peer (4K less a 4-byte "
             "header); 0 disables AMRDMA.  gp's ibv transport has no AMRDMA yet: every AM "
             "goes by send and receive" },
    { .name = "GASNET_AMRDMA_DEPTH", .type = GP_CFG_INT, .default_text = "16", .min = 1,
      .max = 32, .flags = GP_CFG_F_POWER_OF_TWO | NO_EFFECT_YET, .transport = "ibv",
      .offset = FIELD(amrdma_depth),
      .doc = "4K AMRDMA receive buffers per AMRDMA peer; gp has no AMRDMA yet" },
    { .name = "GASNET_AMRDMA_MAX_PEERS", .type = GP_CFG_INT, .default_text = "32", .min = 0,
      .max = 65535, .transport = "ibv", .offset = FIELD(amrdma_max_peers),
      .flags = NO_EFFECT_YET,
      .doc = "peers a node receives AMs from by RDMA; 0 disables AMRDMA; gp has no AMRDMA "
             "yet" },
    { .name = "GASNET_AMRDMA_CYCLE", .type = GP_CFG_INT, .default_text = "1024", .min = 1,
      .max = 1073741824, .flags = GP_CFG_F_POWER_OF_TWO | GP_CFG_F_ZERO_OK | NO_EFFECT_YET,
      .transport = "ibv", .offset = FIELD(amrdma_cycle),
      .doc = "AMs (up to GASNET_AMRDMA_LIMIT) received between choices of AMRDMA peers; 1 "
             "takes the first senders; 0 disables AMRDMA; gp has no AMRDMA yet" },
    { .name = "GP_IBV_GID_INDEX", .type = GP_CFG_INT, .default_text = "-1", .min = -1,
      .max = 255, .transport = "ibv", .offset = FIELD(ibv_gid_index),
      .doc = "GID table index for RoCE and other Ethernet ports; -1 chooses one automatically" },
    { .name = "GP_IBV_FAULT_RKEY", .type = GP_CFG_INT, .default_text = "0", .min = 0,
      .max = 1000000000, .transport = "ibv", .offset = FIELD(ibv_fault_rkey),
      .doc = "for tests: the Nth RDMA operation into a peer's window uses a wrong remote key, "
             "so its completion fails and the job takes the graceful exit (0: never)" },
    { .name = "GP_EXIT_FAULT", .type = GP_CFG_STRING, .default_text = "none",
      .choices = "none|abort", .transport = "all", .offset = FIELD(gp_exit_fault),
      .doc = "for tests: abort raises SIGABRT inside the exit's work, which must still end the "
             "process with the exit's code (seed 003)" },
    { .name = "GP_SLOW_WAIT_MS", .type = GP_CFG_INT, .default_text = "10000", .min = 1,
      .max = 86400000, .transport = "all", .offset = GP_CFG_NO_FIELD,
      .doc = "milliseconds a wait for credits, send tickets, chunks or operation records lasts "
             "before it prints one line naming the resource and the peer (it then keeps "
             "waiting); util/slowwait.c reads it, tests shorten it" },

    /* ---- gp's own ---- */
    { .name = "GP_LOG_LEVEL", .type = GP_CFG_STRING, .default_text = "warn",
      .choices = "error|warn|info|debug|trace", .transport = "all",
      .offset = FIELD(gp_log_level),
      .doc = "least severe log messages printed" },
    { .name = "GP_TRANSPORT", .type = GP_CFG_STRING, .default_text = NULL,
      .choices = "shm|tcp|ibv", .transport = "all", .offset = FIELD(gp_transport),
      .unset_means = "automatic",
      .doc = "force one transport for every peer; unset picks per peer (shm on the same host, "
             "tcp to other hosts)" },
    { .name = "GASNET_RCV_THREAD", .type = GP_CFG_BOOL, .default_text = "0", .transport = "tcp",
      .offset = FIELD(rcv_thread),
      .doc = "1: a thread waits on the network (tcp sockets; ibv completion events) and serves "
             "peers (puts, gets, AM requests and replies, whose handlers run on that thread) "
             "while the application computes; tcp and ibv, PAR builds only (seed 003)" },
    { .name = "GP_TCP_ADDR", .type = GP_CFG_STRING, .default_text = NULL, .transport = "tcp",
      .offset = FIELD(gp_tcp_addr), .unset_means = "the address gp-run is reached from",
      .doc = "IPv4 address of this host that the tcp transport listens on and publishes to "
             "its peers" },
    { .name = "GP_TCP_CONNECT", .type = GP_CFG_STRING, .default_text = "lazy",
      .choices = "lazy|eager", .transport = "tcp", .offset = FIELD(gp_tcp_connect),
      .doc = "when tcp connections are made: lazy dials a peer when this process first sends "
             "to it (a job whose ranks talk to few others opens few sockets and attaches "
             "fast); eager connects every pair at attach" },
    { .name = "GP_HOST_ID", .type = GP_CFG_STRING, .default_text = NULL, .transport = "all",
      .offset = FIELD(gp_host_id), .unset_means = "hostname and kernel boot id",
      .doc = "host identity: processes with the same one share memory (shm), the others use "
             "tcp; set it per host when the default can't tell hosts apart" },
    { .name = "GP_DIRECT_RMA", .type = GP_CFG_BOOL, .default_text = "1", .transport = "shm",
      .offset = FIELD(gp_direct_rma),
      .doc = "puts and gets to a peer whose segment is mapped here are plain copies; 0 sends "
             "them through the Portals protocol (tickets, handles, ACK events), for tests" },
    { .name = "GP_SHM_AM_RING", .type = GP_CFG_BOOL, .default_text = "1", .transport = "shm",
      .offset = FIELD(gp_shm_am_ring),
      .doc = "active messages to a peer whose region is mapped here go through a ring of "
             "slots in the peer's memory (the slots are the credits; jobs of up to 64 nodes, "
             "GASNET_PORTAL_FLOW_CONTROL on); 0 sends them through the Portals protocol "
             "(credits, ReqRB, events), for tests" },

    /* ---- launcher protocol, set by gp-run for its processes ---- */
    { .name = "GP_BOOT_ADDR", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD,
      .doc = "set by gp-run: address of its control channel; unset means a singleton job" },
    { .name = "GP_RANK", .type = GP_CFG_INT, .min = 0, .max = INT32_TOP - 1,
      .transport = "launcher", .offset = GP_CFG_NO_FIELD,
      .doc = "set by gp-run: this process's node number" },
    { .name = "GP_SIZE", .type = GP_CFG_INT, .min = 1, .max = INT32_TOP,
      .transport = "launcher", .offset = GP_CFG_NO_FIELD,
      .doc = "set by gp-run: the number of nodes in the job" },
    { .name = "GP_JOBID", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD,
      .doc = "set by gp-run: the job id, which also names shared-memory objects" },
    { .name = "GP_BOOT_KEY_FD", .type = GP_CFG_INT, .min = 0, .max = INT32_TOP,
      .transport = "launcher", .offset = GP_CFG_NO_FIELD,
      .doc = "set by gp-run: inherited descriptor to read the job key from" },

    /* ---- GASNet spawner variables (seed 003), legitimate but not read by gp ---- */
    { .name = "GASNET_SPAWNER", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD,
      .doc = "gp-run's spawner when --spawner is not given: \"local\", \"ssh\", \"pmix\" "
             "(srun inside a Slurm allocation, else mpirun or MPIRUN_CMD's command) or "
             "\"mpi\" (the same as pmix)" },
    { .name = "GASNET_IBV_SPAWNER", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD, .newer = "GASNET_SPAWNER",
      .doc = "seed 003's name for ibv-conduit (its VAPI names, with IBV for VAPI)" },
    { .name = "GASNET_VAPI_SPAWNER", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD, .newer = "GASNET_SPAWNER",
      .doc = "seed 003's name (vapi-conduit)" },
    { .name = "MPIRUN_CMD", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD,
      .unset_means = "gp-run's own mpirun command line",
      .doc = "the mpirun command line of --spawner=pmix outside Slurm, as a template of "
             "words split at white space: %N the number of processes, %P the program, %A "
             "its arguments, %C the same as \"%P %A\", %% a percent sign; it must hold %P "
             "or %C.  %A and %C stand as words of their own.  GASNet's name (seed 003), kept "
             "without the GASNET_ prefix" },
    { .name = "GASNET_SSH_NODEFILE", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD,
      .doc = "file of hosts, one per line, blank and '#' lines ignored; wins over "
             "GASNET_SSH_SERVERS" },
    { .name = "GASNET_SSH_SERVERS", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD,
      .doc = "hosts to run on, separated by commas or whitespace" },
    { .name = "GASNET_SSH_CMD", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD,
      .doc = "remote shell used to spawn (default \"ssh\", found on $PATH)" },
    { .name = "GASNET_SSH_OPTIONS", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD,
      .doc = "options placed before the host name in each remote shell command" },
    { .name = "GASNET_SSH_REMOTE_PATH", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD,
      .doc = "working directory on the compute nodes (default: the current directory)" },
    { .name = "GASNET_SSH_OUT_DEGREE", .type = GP_CFG_INT, .default_text = "32", .min = 1,
      .max = 4096, .flags = GP_CFG_F_ZERO_OK, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD,
      .doc = "fan-out of the tree of agents of an ssh job: gp-run starts at most this many "
             "over the remote shell and each agent starts at most this many for the hosts "
             "below it (gp-run(1)); 0: no limit, gp-run starts every host itself" },
    { .name = "GP_RUN_AGENT", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD, .unset_means = "gp-run's own path",
      .doc = "path of gp-run on the hosts of an ssh job, run there as its agent" },
    { .name = "GP_RUN_HOST", .type = GP_CFG_STRING, .transport = "launcher",
      .offset = GP_CFG_NO_FIELD, .unset_means = "where the remote shell came from",
      .doc = "address of gp-run's host as the hosts of an ssh job reach it" },
    { .name = "GP_SSH_TIMEOUT", .type = GP_CFG_DOUBLE, .default_text = "30", .min = 1,
      .max = 3600, .transport = "launcher", .offset = GP_CFG_NO_FIELD,
      .doc = "seconds gp-run waits for each host's agent to answer over the remote shell "
             "before it calls the host unreachable" },
    { .name = "GP_BOOT_TIMEOUT", .type = GP_CFG_DOUBLE, .default_text = "300", .min = 0,
      .max = 86400, .transport = "launcher", .offset = GP_CFG_NO_FIELD,
      .doc = "seconds a bootstrap collective (allgather, barrier, broadcast) may wait for live "
             "ranks that have not joined it before gp-run ends the job naming them; 0: no "
             "limit (also the default under GASNET_FREEZE)" },
};

#define ROW_COUNT (sizeof rows / sizeof rows[0])

/* Per-row state of the committed configuration, indexed like rows[]. */
static enum gp_cfg_source row_source[ROW_COUNT];
/* 0 while a derived row still waits for gp_config_set_derived. */
static unsigned char row_known[ROW_COUNT];

/* A parsed value before it is stored; which member is live follows the type. */
union cfg_value {
    int flag;
    int64_t integer;
    uint64_t bytes;
    double real;
    struct {
        const char *start;
        size_t len;
    } text;
};

/* ------------------------------------------------------------------ */
/* Parsers                                                             */
/* ------------------------------------------------------------------ */

int gp_config_parse_bool(const char *text, int *out)
{
    static const char *const yes_words[] = { "1", "y", "yes", "true" };
    static const char *const no_words[] = { "0", "n", "no", "false" };
    if (text == NULL)
        return GASNET_ERR_BAD_ARG;
    for (size_t i = 0; i < sizeof yes_words / sizeof yes_words[0]; i++) {
        if (strcasecmp(text, yes_words[i]) == 0) {
            *out = 1;
            return GASNET_OK;
        }
        if (strcasecmp(text, no_words[i]) == 0) {
            *out = 0;
            return GASNET_OK;
        }
    }
    return GASNET_ERR_BAD_ARG;
}

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return 99;
}

/*
 * At least one digit, stopping at the first non-digit.  Hand-rolled
 * because strtoull skips spaces, accepts a sign and, in base 16, a second
 * "0x", all of which strict parsing must reject.
 */
static int read_digits(const char **cursor, unsigned base, uint64_t *out)
{
    const char *p = *cursor;
    uint64_t total = 0;
    int digit;
    if ((unsigned)digit_value(*p) >= base)
        return GASNET_ERR_BAD_ARG;
    while ((unsigned)(digit = digit_value(*p)) < base) {
        if (total > (UINT64_MAX - (uint64_t)digit) / base)
            return GASNET_ERR_BAD_ARG;
        total = total * base + (uint64_t)digit;
        p++;
    }
    *cursor = p;
    *out = total;
    return GASNET_OK;
}

int gp_config_parse_int(const char *text, int64_t *out)
{
    const char *p = text;
    int negative = 0;
    unsigned base = 10;
    uint64_t magnitude;
    if (text == NULL)
        return GASNET_ERR_BAD_ARG;
    if (*p == '+' || *p == '-')
        negative = (*p++ == '-');
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (read_digits(&p, base, &magnitude) != GASNET_OK || *p != '\0')
        return GASNET_ERR_BAD_ARG;
    if (magnitude > (uint64_t)INT64_MAX + (negative ? 1u : 0u))
        return GASNET_ERR_BAD_ARG;
    if (negative)
        *out = magnitude == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)magnitude;
    else
        *out = (int64_t)magnitude;
    return GASNET_OK;
}

/* K M G T, optionally followed by B, any case; none means bare_unit. */
static int size_suffix_unit(const char *suffix, uint64_t bare_unit, uint64_t *unit)
{
    static const char letters[] = "KMGT";
    const char *hit;
    if (*suffix == '\0') {
        *unit = bare_unit;
        return GASNET_OK;
    }
    hit = strchr(letters, toupper((unsigned char)*suffix));
    if (hit == NULL)
        return GASNET_ERR_BAD_ARG;
    suffix++;
    if (*suffix == 'b' || *suffix == 'B')
        suffix++;
    if (*suffix != '\0')
        return GASNET_ERR_BAD_ARG;
    *unit = (uint64_t)1 << (10 * (hit - letters + 1));
    return GASNET_OK;
}

static int parse_size_with_unit(const char *text, uint64_t bare_unit, uint64_t *out)
{
    const char *p = text;
    uint64_t count, unit;
    if (text == NULL || read_digits(&p, 10, &count) != GASNET_OK)
        return GASNET_ERR_BAD_ARG;
    if (size_suffix_unit(p, bare_unit, &unit) != GASNET_OK)
        return GASNET_ERR_BAD_ARG;
    if (count > UINT64_MAX / unit)
        return GASNET_ERR_BAD_ARG;
    *out = count * unit;
    return GASNET_OK;
}

int gp_config_parse_size(const char *text, uint64_t *out)
{
    return parse_size_with_unit(text, 1, out);
}

int gp_config_parse_double(const char *text, double *out)
{
    char *end;
    double value;
    if (text == NULL || *text == '\0' || isspace((unsigned char)*text))
        return GASNET_ERR_BAD_ARG;
    errno = 0;
    value = strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(value))
        return GASNET_ERR_BAD_ARG;
    *out = value;
    return GASNET_OK;
}

/* ------------------------------------------------------------------ */
/* Rows: lookup, ranges, the accepted form                             */
/* ------------------------------------------------------------------ */

static const struct gp_cfg_row *find_row_n(const char *name, size_t len)
{
    for (size_t i = 0; i < ROW_COUNT; i++)
        if (strncmp(rows[i].name, name, len) == 0 && rows[i].name[len] == '\0')
            return &rows[i];
    return NULL;
}

const struct gp_cfg_row *gp_config_find(const char *name)
{
    return name == NULL ? NULL : find_row_n(name, strlen(name));
}

const struct gp_cfg_row *gp_config_rows(size_t *count)
{
    if (count != NULL)
        *count = ROW_COUNT;
    return rows;
}

/* Index of a row of the table, or -1 for a pointer from elsewhere. */
static long row_index(const struct gp_cfg_row *row)
{
    if (row < rows || row >= rows + ROW_COUNT)
        return -1;
    return (long)(row - rows);
}

/* Exact for every integer a SIZE or INT row can hold below 2^53, which covers their ranges. */
static int is_power_of_two(double value)
{
    uint64_t integer;
    if (!(value >= 1 && value < 18446744073709551616.0))
        return 0;
    integer = (uint64_t)value;
    return (double)integer == value && (integer & (integer - 1)) == 0;
}

static int in_range(const struct gp_cfg_row *row, double value)
{
    if (value == 0 && (row->flags & GP_CFG_F_ZERO_OK))
        return 1;
    if (value > row->max)
        return 0;
    if ((row->flags & GP_CFG_F_POWER_OF_TWO) && !is_power_of_two(value))
        return 0;
    if (row->flags & GP_CFG_F_MIN_EXCLUSIVE)
        return value > row->min;
    return value >= row->min;
}

static uint64_t bare_unit_of(const struct gp_cfg_row *row)
{
    return (row->flags & GP_CFG_F_BARE_MEGABYTES) ? (uint64_t)1 << 20 : 1;
}

/* Sizes print with the largest exact suffix, so "131072" reads "128K". */
static void format_size(uint64_t bytes, char *buf, size_t len)
{
    static const char suffixes[] = "KMGT";
    int power = 0;
    while (power < 4 && bytes != 0 && bytes % 1024 == 0) {
        bytes /= 1024;
        power++;
    }
    if (power == 0)
        snprintf(buf, len, "%llu", (unsigned long long)bytes);
    else
        snprintf(buf, len, "%llu%c", (unsigned long long)bytes, suffixes[power - 1]);
}

static void format_bound(const struct gp_cfg_row *row, double bound, char *buf, size_t len)
{
    if (row->type == GP_CFG_SIZE)
        format_size((uint64_t)bound, buf, len);
    else if (row->type == GP_CFG_INT)
        snprintf(buf, len, "%.0f", bound);
    else
        snprintf(buf, len, "%g", bound);
}

/* What the row accepts, completing "expected ...". */
static void describe_accepted(const struct gp_cfg_row *row, char *buf, size_t len)
{
    char low[32], high[32];
    format_bound(row, row->min, low, sizeof low);
    format_bound(row, row->max, high, sizeof high);
    const char *zero = (row->flags & GP_CFG_F_ZERO_OK) ? "0 or " : "";
    int power = (row->flags & GP_CFG_F_POWER_OF_TWO) != 0;
    switch (row->type) {
    case GP_CFG_BOOL:
        snprintf(buf, len, "one of 0, 1, y, n, yes, no, true, false (any case)");
        break;
    case GP_CFG_INT:
        snprintf(buf, len, "%s%s from %s to %s", zero, power ? "a power of two" : "an integer",
                 low, high);
        break;
    case GP_CFG_SIZE:
        snprintf(buf, len, "%s%s from %s to %s: digits with an optional K, M, G or T suffix%s",
                 zero, power ? "a power of two" : "a size", low, high,
                 (row->flags & GP_CFG_F_BARE_MEGABYTES) ? " (a bare number means megabytes)"
                                                        : "");
        break;
    case GP_CFG_DOUBLE:
        if (isinf(row->max))
            snprintf(buf, len, "a number %s %s", (row->flags & GP_CFG_F_MIN_EXCLUSIVE)
                                                     ? "greater than" : "of at least", low);
        else if (row->flags & GP_CFG_F_MIN_EXCLUSIVE)
            snprintf(buf, len, "a number greater than %s and at most %s", low, high);
        else
            snprintf(buf, len, "a number from %s to %s", low, high);
        break;
    case GP_CFG_STRING:
        snprintf(buf, len, "one of %s", row->choices ? row->choices : "(any text)");
        break;
    }
}

/* Finds text among the '|'-separated choices, any case. */
static int match_choice(const char *choices, const char *text, union cfg_value *value)
{
    size_t text_len = strlen(text);
    const char *word = choices;
    while (*word != '\0') {
        size_t word_len = strcspn(word, "|");
        if (word_len == text_len && strncasecmp(word, text, word_len) == 0) {
            value->text.start = word;
            value->text.len = word_len;
            return GASNET_OK;
        }
        word += word_len;
        if (*word == '|')
            word++;
    }
    return GASNET_ERR_BAD_ARG;
}

static int parse_row_value(const struct gp_cfg_row *row, const char *text, union cfg_value *value)
{
    switch (row->type) {
    case GP_CFG_BOOL:
        return gp_config_parse_bool(text, &value->flag);
    case GP_CFG_INT:
        if (gp_config_parse_int(text, &value->integer) != GASNET_OK)
            return GASNET_ERR_BAD_ARG;
        return in_range(row, (double)value->integer) ? GASNET_OK : GASNET_ERR_BAD_ARG;
    case GP_CFG_SIZE:
        if (parse_size_with_unit(text, bare_unit_of(row), &value->bytes) != GASNET_OK)
            return GASNET_ERR_BAD_ARG;
        return in_range(row, (double)value->bytes) ? GASNET_OK : GASNET_ERR_BAD_ARG;
    case GP_CFG_DOUBLE:
        if (gp_config_parse_double(text, &value->real) != GASNET_OK)
            return GASNET_ERR_BAD_ARG;
        return in_range(row, value->real) ? GASNET_OK : GASNET_ERR_BAD_ARG;
    case GP_CFG_STRING:
        if (row->choices != NULL)
            return match_choice(row->choices, text, value);
        value->text.start = text;
        value->text.len = strlen(text);
        return GASNET_OK;
    }
    return GASNET_ERR_BAD_ARG;
}

/* ------------------------------------------------------------------ */
/* Storing values into a struct gp_config                              */
/* ------------------------------------------------------------------ */

static void set_error(char *errbuf, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_error(char *errbuf, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (errbuf == NULL || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(errbuf, errlen, fmt, ap);
    va_end(ap);
}

static void *field_of(struct gp_config *cfg, const struct gp_cfg_row *row)
{
    return (char *)cfg + row->offset;
}

static void free_strings(struct gp_config *cfg)
{
    for (size_t i = 0; i < ROW_COUNT; i++) {
        if (rows[i].type != GP_CFG_STRING || rows[i].offset == GP_CFG_NO_FIELD)
            continue;
        char **slot = field_of(cfg, &rows[i]);
        free(*slot);
        *slot = NULL;
    }
}

static int store_value(struct gp_config *cfg, const struct gp_cfg_row *row,
                       const union cfg_value *value)
{
    void *slot;
    char *copy;
    if (row->offset == GP_CFG_NO_FIELD)
        return GASNET_OK;
    slot = field_of(cfg, row);
    switch (row->type) {
    case GP_CFG_BOOL:   memcpy(slot, &value->flag, sizeof value->flag); break;
    case GP_CFG_INT:    memcpy(slot, &value->integer, sizeof value->integer); break;
    case GP_CFG_SIZE:   memcpy(slot, &value->bytes, sizeof value->bytes); break;
    case GP_CFG_DOUBLE: memcpy(slot, &value->real, sizeof value->real); break;
    case GP_CFG_STRING:
        /* A private copy: a later setenv() may free the environment's. */
        copy = strndup(value->text.start, value->text.len);
        if (copy == NULL)
            return GASNET_ERR_RESOURCE;
        memcpy(slot, &copy, sizeof copy);
        break;
    }
    return GASNET_OK;
}

/* The placeholder of a row with no default, numeric types only. */
static void store_unset(struct gp_config *cfg, const struct gp_cfg_row *row)
{
    union cfg_value value;
    switch (row->type) {
    case GP_CFG_BOOL:   value.flag = (int)row->unset_value; break;
    case GP_CFG_INT:    value.integer = (int64_t)row->unset_value; break;
    case GP_CFG_SIZE:   value.bytes = (uint64_t)row->unset_value; break;
    case GP_CFG_DOUBLE: value.real = row->unset_value; break;
    case GP_CFG_STRING: return; /* stays NULL */
    }
    store_value(cfg, row, &value);
}

static void copy_field(struct gp_config *cfg, const struct gp_cfg_row *to,
                       const struct gp_cfg_row *from)
{
    static const size_t type_size[] = {
        [GP_CFG_BOOL] = sizeof(int), [GP_CFG_INT] = sizeof(int64_t),
        [GP_CFG_SIZE] = sizeof(uint64_t), [GP_CFG_DOUBLE] = sizeof(double),
    };
    memcpy(field_of(cfg, to), field_of(cfg, from), type_size[to->type]);
}

/* ------------------------------------------------------------------ */
/* The table check: a bad row is a programming error                  */
/* ------------------------------------------------------------------ */

static int has_known_prefix(const char *name, size_t len)
{
    return (len > 7 && strncmp(name, "GASNET_", 7) == 0) ||
           (len > 3 && strncmp(name, "GP_", 3) == 0);
}

static int known_transport(const char *transport)
{
    static const char *const names[] = { "all", "shm", "tcp", "ibv", "launcher" };
    for (size_t i = 0; transport != NULL && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(transport, names[i]) == 0)
            return 1;
    return 0;
}

static const char *fallback_problem(const struct gp_cfg_row *row)
{
    const struct gp_cfg_row *target = gp_config_find(row->fallback);
    if (target == NULL)
        return "its fallback is not in the table";
    if (target->type != row->type || target->type == GP_CFG_STRING)
        return "its fallback is not a numeric row of the same type";
    if (target->fallback != NULL || target->offset == GP_CFG_NO_FIELD)
        return "its fallback must be a stored row without a fallback of its own";
    if (row->default_text != NULL || row->offset == GP_CFG_NO_FIELD)
        return "a row with a fallback must be stored and have no default";
    return NULL;
}

/* An older name is only a name: everything else is its newer row's. */
static const char *older_name_problem(const struct gp_cfg_row *row)
{
    const struct gp_cfg_row *newer = gp_config_find(row->newer);
    if (newer == NULL)
        return "the row it is an older name of is not in the table";
    if (newer->newer != NULL)
        return "it is an older name of an older name";
    if (row->type != newer->type || strcmp(row->transport, newer->transport) != 0)
        return "an older name must have its newer row's type and transport";
    if (row->offset != GP_CFG_NO_FIELD || row->default_text != NULL || row->fallback != NULL ||
        row->choices != NULL || row->flags != 0)
        return "an older name must be unstored, without default, fallback, choices or flags";
    return NULL;
}

static const char *row_problem(const struct gp_cfg_row *row, size_t index)
{
    /* Launcher rows may keep another program's name (MPIRUN_CMD is mpirun's, in GASNet). */
    if (row->name == NULL || (!has_known_prefix(row->name, strlen(row->name)) &&
                              (row->transport == NULL || strcmp(row->transport, "launcher") != 0)))
        return "the name must start with GASNET_ or GP_";
    for (size_t j = 0; j < index; j++)
        if (strcmp(rows[j].name, row->name) == 0)
            return "the name appears twice";
    if (row->doc == NULL || row->doc[0] == '\0')
        return "it has no documentation";
    if (!known_transport(row->transport))
        return "its transport is not one of all, shm, tcp, ibv, launcher";
    if ((row->type == GP_CFG_INT || row->type == GP_CFG_SIZE || row->type == GP_CFG_DOUBLE) &&
        !(row->min <= row->max))
        return "its min exceeds its max";
    if (row->choices != NULL && row->type != GP_CFG_STRING)
        return "only string rows may list choices";
    if ((row->flags & (GP_CFG_F_POWER_OF_TWO | GP_CFG_F_ZERO_OK)) &&
        row->type != GP_CFG_INT && row->type != GP_CFG_SIZE)
        return "only integer and size rows may be powers of two or accept 0 apart";
    if (row->type == GP_CFG_SIZE && row->unset_value < 0)
        return "a size row cannot stand for a negative value while unset";
    if (row->offset != GP_CFG_NO_FIELD && row->offset >= sizeof(struct gp_config))
        return "its offset lies outside struct gp_config";
    if ((row->flags & GP_CFG_F_NOT_YET) && !(row->flags & GP_CFG_F_NO_EFFECT))
        return "only a row without effect can be without effect yet";
    if (row->newer != NULL)
        return older_name_problem(row);
    if (row->fallback != NULL)
        return fallback_problem(row);
    return NULL;
}

static int check_table(char *errbuf, size_t errlen)
{
    char accepted[256];
    union cfg_value scratch;
    for (size_t i = 0; i < ROW_COUNT; i++) {
        const struct gp_cfg_row *row = &rows[i];
        const char *problem = row_problem(row, i);
        if (problem != NULL) {
            set_error(errbuf, errlen, "configuration table row %s is broken: %s",
                      row->name ? row->name : "(unnamed)", problem);
            return GASNET_ERR_RESOURCE;
        }
        if (row->default_text == NULL ||
            parse_row_value(row, row->default_text, &scratch) == GASNET_OK)
            continue;
        describe_accepted(row, accepted, sizeof accepted);
        set_error(errbuf, errlen, "configuration table row %s is broken: its default '%s' "
                  "is not %s", row->name, row->default_text, accepted);
        return GASNET_ERR_RESOURCE;
    }
    return GASNET_OK;
}

/* ------------------------------------------------------------------ */
/* Unknown variables                                                   */
/* ------------------------------------------------------------------ */

#define DISTANCE_MAX_LEN 64

/* Levenshtein distance over the first DISTANCE_MAX_LEN characters. */
static size_t edit_distance(const char *a, size_t a_len, const char *b)
{
    size_t b_len = strlen(b);
    size_t prev[DISTANCE_MAX_LEN + 1], cur[DISTANCE_MAX_LEN + 1];
    if (a_len > DISTANCE_MAX_LEN)
        a_len = DISTANCE_MAX_LEN;
    if (b_len > DISTANCE_MAX_LEN)
        b_len = DISTANCE_MAX_LEN;
    for (size_t j = 0; j <= b_len; j++)
        prev[j] = j;
    for (size_t i = 1; i <= a_len; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= b_len; j++) {
            size_t replace = prev[j - 1] + (a[i - 1] != b[j - 1]);
            size_t drop = prev[j] + 1, insert = cur[j - 1] + 1;
            size_t best = replace < drop ? replace : drop;
            cur[j] = best < insert ? best : insert;
        }
        memcpy(prev, cur, (b_len + 1) * sizeof prev[0]);
    }
    return prev[b_len];
}

static const struct gp_cfg_row *closest_row(const char *name, size_t len)
{
    const struct gp_cfg_row *best = &rows[0];
    size_t best_distance = (size_t)-1;
    for (size_t i = 0; i < ROW_COUNT; i++) {
        size_t distance = edit_distance(name, len, rows[i].name);
        if (distance < best_distance) {
            best_distance = distance;
            best = &rows[i];
        }
    }
    return best;
}

const struct gp_cfg_row *gp_config_closest(const char *name)
{
    return closest_row(name, strlen(name));
}

/*
 * Names already warned about, as hashes, so a reload does not repeat the
 * warning.  Past the array's end a name is warned about again: noise, but
 * never silence.
 */
static uint64_t warned_hashes[64];
static size_t warned_count;

static int first_warning_for(const char *name, size_t len)
{
    uint64_t hash = 14695981039346656037u; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        hash = (hash ^ (unsigned char)name[i]) * 1099511628211u;
    for (size_t i = 0; i < warned_count; i++)
        if (warned_hashes[i] == hash)
            return 0;
    if (warned_count < sizeof warned_hashes / sizeof warned_hashes[0])
        warned_hashes[warned_count++] = hash;
    return 1;
}

static void warn_unknown_variables(void)
{
    for (char **entry = environ; entry != NULL && *entry != NULL; entry++) {
        const char *name = *entry;
        const char *equals = strchr(name, '=');
        size_t len = equals ? (size_t)(equals - name) : strlen(name);
        if (!has_known_prefix(name, len) || find_row_n(name, len) != NULL)
            continue;
        if (!first_warning_for(name, len))
            continue;
        gp_warn("config", "unknown variable %.*s; did you mean %s?", (int)len, name,
                closest_row(name, len)->name);
    }
}

/* ------------------------------------------------------------------ */
/* Loading                                                             */
/* ------------------------------------------------------------------ */

/* name: the variable the text came from (the row's, or an older name's). */
static void report_bad_value(const struct gp_cfg_row *row, const char *name, const char *text,
                             char *errbuf, size_t errlen)
{
    char accepted[256];
    int shown = (int)strlen(text) > 64 ? 64 : (int)strlen(text);
    describe_accepted(row, accepted, sizeof accepted);
    set_error(errbuf, errlen, "%s='%.*s%s' is not valid: expected %s", name, shown, text,
              (int)strlen(text) > shown ? "..." : "", accepted);
}

/*
 * The text a row takes from the environment: its own name's, else that of
 * the first older name of it that is set.  *from names the variable read.
 */
static const char *row_text(const struct gp_cfg_row *row, const char **from)
{
    const char *text = getenv(row->name);
    *from = row->name;
    for (size_t i = 0; text == NULL && i < ROW_COUNT; i++) {
        if (rows[i].newer == NULL || strcmp(rows[i].newer, row->name) != 0)
            continue;
        text = getenv(rows[i].name);
        if (text != NULL)
            *from = rows[i].name;
    }
    return text;
}

/* The note that an older name was read, once per name. */
static void note_older_name(const char *from, const struct gp_cfg_row *row, const char *text)
{
    if (strcmp(from, row->name) == 0 || !first_warning_for(from, strlen(from)))
        return;
    gp_warn("config", "%s=%.64s is read as %s, its newer name (see gp-env(7))", from, text,
            row->name);
}

/* Every name of a variable that is set must say the same. */
static int check_older_names(char *errbuf, size_t errlen)
{
    for (size_t i = 0; i < ROW_COUNT; i++) {
        const char *older = rows[i].newer != NULL ? getenv(rows[i].name) : NULL, *from, *text;
        if (older == NULL)
            continue;
        text = row_text(gp_config_find(rows[i].newer), &from);
        if (strcmp(from, rows[i].name) == 0 || strcmp(text, older) == 0)
            continue;
        if (strcmp(from, rows[i].newer) == 0)
            set_error(errbuf, errlen, "%s='%.64s' and %s='%.64s' disagree: expected only %s "
                      "(%s is its older name), or both the same", from, text, rows[i].name,
                      older, from, rows[i].name);
        else
            set_error(errbuf, errlen, "%s='%.64s' and %s='%.64s' disagree: both are older "
                      "names of %s; expected one of them, or both the same", from, text,
                      rows[i].name, older, rows[i].newer);
        return GASNET_ERR_BAD_ARG;
    }
    return GASNET_OK;
}

static int load_row(struct gp_config *cfg, size_t index, enum gp_cfg_source *source,
                    unsigned char *known, char *errbuf, size_t errlen)
{
    const struct gp_cfg_row *row = &rows[index];
    const char *from = row->name;
    const char *text = row->newer != NULL ? getenv(row->name) : row_text(row, &from);
    union cfg_value value;
    *source = text != NULL ? GP_CFG_FROM_ENV : GP_CFG_FROM_DEFAULT;
    *known = 1;
    if (row->newer != NULL)
        return GASNET_OK;   /* read, parsed and stored as its newer row */
    if (text == NULL && row->default_text == NULL) {
        store_unset(cfg, row);
        /* Strings have NULL as a real value; numbers wait for their rule. */
        *known = row->type == GP_CFG_STRING || row->offset == GP_CFG_NO_FIELD;
        return GASNET_OK;
    }
    if (text == NULL) {
        text = row->default_text;
        from = row->name;
    }
    if (parse_row_value(row, text, &value) != GASNET_OK) {
        report_bad_value(row, from, text, errbuf, errlen);
        return GASNET_ERR_BAD_ARG;
    }
    if (store_value(cfg, row, &value) != GASNET_OK) {
        set_error(errbuf, errlen, "out of memory storing %s", row->name);
        return GASNET_ERR_RESOURCE;
    }
    return GASNET_OK;
}

static size_t index_of(const char *name)
{
    return (size_t)row_index(gp_config_find(name));
}

/* Rules for rows whose default is another row's value or a product of rows. */
static void apply_rules(struct gp_config *cfg, const enum gp_cfg_source *source,
                        unsigned char *known)
{
    size_t victim_m = index_of("GASNET_FIREHOSE_MAXVICTIM_M");
    size_t main_r = index_of("GASNET_FIREHOSE_R");
    for (size_t i = 0; i < ROW_COUNT; i++) {
        if (rows[i].fallback == NULL || source[i] != GP_CFG_FROM_DEFAULT)
            continue;
        copy_field(cfg, &rows[i], gp_config_find(rows[i].fallback));
        known[i] = 1;
    }
    if (source[victim_m] == GP_CFG_FROM_DEFAULT) {
        /* At most 2^20 regions of 1G: no overflow. */
        cfg->firehose_maxvictim_m =
            (uint64_t)cfg->firehose_maxvictim_r * cfg->firehose_maxregion_size;
        known[victim_m] = 1;
    }
    if (source[main_r] == GP_CFG_FROM_DEFAULT) {
        cfg->firehose_r = (int64_t)(cfg->firehose_m / cfg->firehose_maxregion_size);
        known[main_r] = 1;
    }
}

/* GASNET_IBV_PORTS (or its older name, which check_older_names matched) must parse. */
static int check_ibv_ports(const struct gp_config *cfg, char *errbuf, size_t errlen)
{
    const char *from;
    struct ibv_port_filter *filter;
    if (cfg->ibv_ports == NULL)
        return GASNET_OK;
    row_text(gp_config_find("GASNET_IBV_PORTS"), &from);
    if (ibv_port_filter_parse(from, cfg->ibv_ports, &filter, errbuf, errlen) != 0)
        return GASNET_ERR_BAD_ARG;
    ibv_port_filter_free(filter);
    return GASNET_OK;
}

/* Regions are cut at multiples of their size, so the size must be whole pages. */
static int check_firehose_region(const struct gp_config *cfg, char *errbuf, size_t errlen)
{
    long page = sysconf(_SC_PAGESIZE);
    char size[32];
    if (page <= 0 || cfg->firehose_maxregion_size % (uint64_t)page == 0)
        return GASNET_OK;
    format_size(cfg->firehose_maxregion_size, size, sizeof size);
    set_error(errbuf, errlen, "GASNET_FIREHOSE_MAXREGION_SIZE='%s' is not valid: expected a "
              "multiple of the page size (%ld bytes)", size, page);
    return GASNET_ERR_BAD_ARG;
}

/* Checks between rows that a per-row range cannot express. */
static int check_relations(const struct gp_config *cfg, char *errbuf, size_t errlen)
{
    int rc = check_ibv_ports(cfg, errbuf, errlen);
    if (rc == GASNET_OK)
        rc = check_firehose_region(cfg, errbuf, errlen);
    if (rc != GASNET_OK)
        return rc;
    if (cfg->portal_cred_per_node > cfg->portal_max_cred_per_node) {
        set_error(errbuf, errlen, "GASNET_PORTAL_CRED_PER_NODE='%lld' is not valid: expected at "
                  "most GASNET_PORTAL_MAX_CRED_PER_NODE (%lld)",
                  (long long)cfg->portal_cred_per_node, (long long)cfg->portal_max_cred_per_node);
        return GASNET_ERR_BAD_ARG;
    }
    if (cfg->exittimeout_min > cfg->exittimeout_max) {
        set_error(errbuf, errlen, "GASNET_EXITTIMEOUT_MIN='%g' is not valid: expected at most "
                  "GASNET_EXITTIMEOUT_MAX (%g)", cfg->exittimeout_min, cfg->exittimeout_max);
        return GASNET_ERR_BAD_ARG;
    }
    return GASNET_OK;
}

/* The notes for older names that were read, once each. */
static void note_older_names(void)
{
    const char *from, *text;
    for (size_t i = 0; i < ROW_COUNT; i++) {
        if (rows[i].newer != NULL)
            continue;
        text = row_text(&rows[i], &from);
        if (text != NULL)
            note_older_name(from, &rows[i], text);
    }
}

/* Rows without an effect (yet): say once that setting them does nothing. */
static void warn_no_effect(void)
{
    static unsigned char warned[ROW_COUNT];
    for (size_t i = 0; i < ROW_COUNT; i++) {
        const char *text = getenv(rows[i].name);
        int on = 1;
        if (!(rows[i].flags & GP_CFG_F_NO_EFFECT) || text == NULL || warned[i])
            continue;
        if (rows[i].type == GP_CFG_BOOL && gp_config_parse_bool(text, &on) != GASNET_OK)
            continue;
        if (rows[i].type == GP_CFG_STRING && text[0] == '\0')
            continue;   /* seed 003: only a non-empty GASNET_HCA_ID draws the warning */
        if (!on)
            continue;
        warned[i] = 1;
        gp_warn("config", "%s=%s has no effect %sin gp (%s)", rows[i].name, text,
                (rows[i].flags & GP_CFG_F_NOT_YET) ? "yet " : "", rows[i].doc);
    }
}

int gp_config_load(char *errbuf, size_t errlen)
{
    struct gp_config next;
    enum gp_cfg_source next_source[ROW_COUNT];
    unsigned char next_known[ROW_COUNT];
    int rc = check_table(errbuf, errlen);
    if (rc != GASNET_OK)
        return rc;
    warn_unknown_variables();
    memset(&next, 0, sizeof next);
    rc = check_older_names(errbuf, errlen);
    for (size_t i = 0; i < ROW_COUNT && rc == GASNET_OK; i++)
        rc = load_row(&next, i, &next_source[i], &next_known[i], errbuf, errlen);
    if (rc == GASNET_OK) {
        apply_rules(&next, next_source, next_known);
        rc = check_relations(&next, errbuf, errlen);
    }
    if (rc != GASNET_OK) {
        free_strings(&next);
        return rc;
    }
    free_strings(&gp_cfg);
    gp_cfg = next;
    memcpy(row_source, next_source, sizeof row_source);
    memcpy(row_known, next_known, sizeof row_known);
    note_older_names();
    warn_no_effect();
    return GASNET_OK;
}

/* ------------------------------------------------------------------ */
/* Derived values, sources, the echo                                   */
/* ------------------------------------------------------------------ */

/* NULL (after logging why) when a derived value cannot go into this row. */
static const struct gp_cfg_row *derivable_row(const char *name)
{
    const struct gp_cfg_row *row = gp_config_find(name);
    if (row == NULL || row->offset == GP_CFG_NO_FIELD || row->type == GP_CFG_STRING) {
        gp_error("config", "gp_config_set_derived(%s): not a stored numeric row of the table",
                 name ? name : "(null)");
        return NULL;
    }
    if (row_source[row_index(row)] == GP_CFG_FROM_ENV) {
        gp_debug("config", "%s was set by the user; the derived value is not used", row->name);
        return NULL;
    }
    return row;
}

static void record_derived(const struct gp_cfg_row *row, const union cfg_value *value)
{
    store_value(&gp_cfg, row, value); /* numeric: cannot fail */
    row_source[row_index(row)] = GP_CFG_FROM_JOBSIZE;
    row_known[row_index(row)] = 1;
}

void gp_config_set_derived(const char *name, int64_t value)
{
    const struct gp_cfg_row *row = derivable_row(name);
    union cfg_value parsed;
    if (row == NULL)
        return;
    if (row->type == GP_CFG_SIZE && value < 0) {
        gp_error("config", "gp_config_set_derived(%s, %lld): a size cannot be negative",
                 row->name, (long long)value);
        return;
    }
    parsed.flag = (int)value;
    if (row->type == GP_CFG_INT)
        parsed.integer = value;
    else if (row->type == GP_CFG_SIZE)
        parsed.bytes = (uint64_t)value;
    else if (row->type == GP_CFG_DOUBLE)
        parsed.real = (double)value;
    record_derived(row, &parsed);
}

void gp_config_set_derived_double(const char *name, double value)
{
    const struct gp_cfg_row *row = derivable_row(name);
    union cfg_value parsed;
    if (row == NULL)
        return;
    if (row->type != GP_CFG_DOUBLE) {
        gp_config_set_derived(name, (int64_t)value);
        return;
    }
    parsed.real = value;
    record_derived(row, &parsed);
}

enum gp_cfg_source gp_config_source(const struct gp_cfg_row *row)
{
    long index = row_index(row);
    return index < 0 ? GP_CFG_FROM_DEFAULT : row_source[index];
}

static void format_field(const struct gp_cfg_row *row, char *buf, size_t len)
{
    const void *slot = (const char *)&gp_cfg + row->offset;
    int flag;
    int64_t integer;
    uint64_t bytes;
    double real;
    const char *text;
    switch (row->type) {
    case GP_CFG_BOOL:
        memcpy(&flag, slot, sizeof flag);
        snprintf(buf, len, "%s", flag ? "yes" : "no");
        break;
    case GP_CFG_INT:
        memcpy(&integer, slot, sizeof integer);
        snprintf(buf, len, "%lld", (long long)integer);
        break;
    case GP_CFG_SIZE:
        memcpy(&bytes, slot, sizeof bytes);
        format_size(bytes, buf, len);
        break;
    case GP_CFG_DOUBLE:
        memcpy(&real, slot, sizeof real);
        snprintf(buf, len, "%g", real);
        break;
    case GP_CFG_STRING:
        memcpy(&text, slot, sizeof text);
        if (text != NULL)
            snprintf(buf, len, "%s", text);
        else
            snprintf(buf, len, "(%s)", row->unset_means ? row->unset_means : "not set");
        break;
    }
}

void gp_config_format_value(const struct gp_cfg_row *row, char *buf, size_t len)
{
    long index = row_index(row);
    const char *raw;
    if (buf == NULL || len == 0)
        return;
    if (index < 0) {
        snprintf(buf, len, "(not a row of the table)");
    } else if (row->offset == GP_CFG_NO_FIELD) {
        const char *from;
        raw = row->newer != NULL ? getenv(row->name) : row_text(row, &from);
        if (raw != NULL)
            snprintf(buf, len, "%s", raw);
        else
            snprintf(buf, len, "(%s)", row->unset_means ? row->unset_means : "not set");
    } else if (!row_known[index]) {
        snprintf(buf, len, "(%s)", row->unset_means ? row->unset_means : "not set");
    } else {
        format_field(row, buf, len);
    }
}

/* A default given as a rule rather than a constant is shown as derived. */
static const char *source_label(const struct gp_cfg_row *row)
{
    switch (gp_config_source(row)) {
    case GP_CFG_FROM_ENV:
        return "set";
    case GP_CFG_FROM_JOBSIZE:
        return "derived";
    case GP_CFG_FROM_DEFAULT:
        break;
    }
    return row->default_text == NULL && row->unset_means != NULL ? "derived" : "default";
}

#define ECHO_VALUE_COLUMN 24

void gp_config_print(FILE *out)
{
    char value[256];
    int name_width = 0, value_width = 0;
    for (size_t i = 0; i < ROW_COUNT; i++) {
        int name_len = (int)strlen(rows[i].name);
        gp_config_format_value(&rows[i], value, sizeof value);
        if (name_len > name_width)
            name_width = name_len;
        /* A long rule (the exit timeout's) overflows its column rather than widen all. */
        if ((int)strlen(value) > value_width && strlen(value) <= ECHO_VALUE_COLUMN)
            value_width = (int)strlen(value);
    }
    for (size_t i = 0; i < ROW_COUNT; i++) {
        gp_config_format_value(&rows[i], value, sizeof value);
        fprintf(out, "ENV parameter: %-*s = %-*s   (%s)\n", name_width, rows[i].name,
                value_width, value, source_label(&rows[i]));
    }
    fflush(out);
}

const char *gp_config_getenv(const char *name)
{
    const struct gp_cfg_row *row = gp_config_find(name);
    const char *from, *text;
    if (row == NULL) {
        gp_error("config", "gp_config_getenv(%s): not in the configuration table; add a row",
                 name ? name : "(null)");
        return NULL;
    }
    if (row->newer != NULL)
        return getenv(name);
    text = row_text(row, &from);
    if (text != NULL)
        note_older_name(from, row, text);
    return text;
}

/* Past this, alarm()'s seconds (and a 32-bit time_t deadline) would overflow. */
#define ALARM_SECONDS_MAX 2147483647.0

unsigned gp_config_exit_alarm(double timeout)
{
    double seconds = ceil(timeout) + 2;   /* a little beyond the exit's own deadline */
    if (!(seconds < ALARM_SECONDS_MAX))
        return 0;
    return seconds < 1 ? 1 : (unsigned)seconds;
}
