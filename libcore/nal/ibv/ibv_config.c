/*
 * The ibv transport's rows: seed 003's variables, stored in ibv_cfg, and
 * the check that needs this transport's own knowledge (the GASNET_IBV_PORTS
 * syntax).  The trims against the device are in ibv_limits.c; the firehose
 * rows that ibv shares with ofi are nal/firehose_config.c's.
 *
 * Choices the seeds left open, recorded here next to the values:
 *   - the ibv rows keep seed 003's defaults; where it gives no bound, gp
 *     takes GASNet's fixed sizes: 4092 for GASNET_AMRDMA_LIMIT (a 4K buffer
 *     less its header), 64 queue pairs, 1G of non-bulk put bouncing;
 *     GASNET_AM_CREDITS_TOTAL is -1 while unset (MAX(1024, nodes), resolved
 *     with the device in ibv_limits.c).
 */
#include "nal/ibv/ibv_config.h"

#include "config/rows.h"
#include "nal/ibv/ibv_ports.h"

#define IBV_FIELD(member) GP_CFG_FIELD_OF(struct ibv_config, member)

static const struct gp_cfg_row ibv_rows[] = {
    /* ---- ibv (seed 003); trims against the device are in nal/ibv/ibv_limits.c ---- */
    { .name = "GASNET_IBV_PORTS", .type = GP_CFG_STRING, .default_text = NULL,
      .transport = "ibv", .offset = IBV_FIELD(ibv_ports),
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
      .transport = "ibv", .offset = IBV_FIELD(num_qps),
      .doc = "queue pairs each pair of peers stripes its traffic over, mapped round-robin "
             "onto the ports; 0 means one per port used" },
    { .name = "GASNET_QP_TIMEOUT", .type = GP_CFG_INT, .default_text = "18", .min = 0,
      .max = 31, .transport = "ibv", .offset = IBV_FIELD(qp_timeout),
      .doc = "ACK timeout of the queue pairs, 4.096 us * 2^value (18: about 1 s)" },
    { .name = "GASNET_QP_RETRY_COUNT", .type = GP_CFG_INT, .default_text = "7", .min = 0,
      .max = 7, .transport = "ibv", .offset = IBV_FIELD(qp_retry_count),
      .doc = "retransmissions after an ACK timeout before the HCA reports a fatal error" },
    { .name = "GASNET_QP_RD_ATOM", .type = GP_CFG_INT, .default_text = "0", .min = 0,
      .max = 255, .transport = "ibv", .offset = IBV_FIELD(qp_rd_atom),
      .doc = "RDMA reads each connection may have outstanding at the responder; 0 means the "
             "HCA's maximum (a larger value is trimmed to it)" },
    { .name = "GASNET_PHYSMEM_MAX", .type = GP_CFG_SIZE, .default_text = "0", .min = 0,
      .max = 256 * GP_CFG_TIB, .transport = "ibv", .offset = IBV_FIELD(physmem_max),
      .doc = "most physical memory to pin (segment, buffers, firehose); 0 means probe the "
             "limits of the system and the HCA" },
    { .name = "GASNET_PHYSMEM_NOPROBE", .type = GP_CFG_BOOL, .default_text = "0",
      .transport = "ibv", .offset = IBV_FIELD(physmem_noprobe),
      .doc = "trust GASNET_PHYSMEM_MAX without probing: faster start-up, but pinning may fail "
             "later if it is too high; ignored while GASNET_PHYSMEM_MAX is 0" },
    { .name = "GASNET_INLINESEND_LIMIT", .type = GP_CFG_INT, .default_text = "-1", .min = -1,
      .max = 65536, .transport = "ibv", .offset = IBV_FIELD(inlinesend_limit),
      .doc = "largest send copied into the work request (inline); -1 means the HCA's maximum, "
             "0 no inline sends (a larger value is trimmed to the HCA's maximum)" },
    { .name = "GASNET_NONBULKPUT_BOUNCE_LIMIT", .type = GP_CFG_SIZE, .default_text = "64K",
      .min = 0, .max = GP_CFG_GIB, .transport = "ibv", .offset = IBV_FIELD(nonbulkput_bounce_limit),
      .doc = "largest non-bulk put (or AM Long payload) copied through bounce buffers; larger "
             "ones block until the HCA reports completion; 0 disables bounce buffers" },
    { .name = "GASNET_PUTINMOVE_LIMIT", .type = GP_CFG_SIZE, .default_text = "3K", .min = 0,
      .max = 3 * GP_CFG_KIB, .transport = "ibv", .offset = GP_CFG_NO_FIELD,
      .flags = GP_CFG_F_NO_EFFECT,
      .doc = "bytes of a PUT that misses the firehose cache carried on the AM that pins the "
             "remote memory; seed 003: only for GASNET_SEGMENT_LARGE and EVERYTHING, and gp's "
             "segments are FAST (pinned at attach), where it never applies" },
    { .name = "GASNET_NETWORKDEPTH_PP", .type = GP_CFG_INT, .default_text = "64", .min = 1,
      .max = 65536, .transport = "ibv", .offset = IBV_FIELD(networkdepth_pp),
      .doc = "operations in flight from a node to each peer: the depth of each send queue "
             "(trimmed to the HCA's max_qp_wr)" },
    { .name = "GASNET_NETWORKDEPTH_TOTAL", .type = GP_CFG_INT, .default_text = "0", .min = 0,
      .max = GP_CFG_INT32_TOP, .transport = "ibv", .offset = IBV_FIELD(networkdepth_total),
      .doc = "operations in flight from a node over all its peers, on ibv and tcp (a sender "
             "over it waits); the ibv send completion queue holds min(this, "
             "GASNET_NETWORKDEPTH_PP * (nodes - 1)); 0 means the most the HCA allows (on tcp: "
             "no cap)" },
    { .name = "GASNET_AM_CREDITS_PP", .type = GP_CFG_INT, .default_text = "32", .min = 1,
      .max = 65536, .transport = "ibv", .offset = IBV_FIELD(am_credits_pp),
      .doc = "AM requests in flight from a node to each peer, and receive buffers preposted "
             "per peer; trimmed to GASNET_NETWORKDEPTH_PP" },
    { .name = "GASNET_AM_CREDITS_TOTAL", .type = GP_CFG_INT, .default_text = NULL, .min = 0,
      .max = GP_CFG_INT32_TOP, .transport = "ibv", .offset = IBV_FIELD(am_credits_total),
      .unset_value = -1, .unset_means = "MAX(1024, nodes)",
      .doc = "AM requests in flight from a node in all (receive buffers for their replies); "
             "0 means the most the HCA allows; trimmed to GASNET_NETWORKDEPTH_TOTAL" },
    { .name = "GASNET_AM_CREDITS_SLACK", .type = GP_CFG_INT, .default_text = "1", .min = 0,
      .max = 255, .transport = "ibv", .offset = IBV_FIELD(am_credits_slack),
      .doc = "credits a responder may bank before a hidden reply returns them; reduced "
             "below GASNET_AM_CREDITS_PP so that banking cannot deadlock" },
    { .name = "GASNET_BBUF_COUNT", .type = GP_CFG_INT, .default_text = "1024", .min = 0,
      .max = 1048576, .transport = "ibv", .offset = IBV_FIELD(bbuf_count),
      .doc = "pre-pinned 4K bounce buffers (AM headers, Medium payloads, bounced puts), at "
             "most GASNET_NETWORKDEPTH_TOTAL; 0 means GASNET_NETWORKDEPTH_TOTAL" },
    { .name = "GASNET_RBUF_COUNT", .type = GP_CFG_INT, .default_text = "1024", .min = 16,
      .max = 1048576, .transport = "ibv", .offset = IBV_FIELD(rbuf_count),
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
    { .name = "GASNET_PIN_MAXSZ", .type = GP_CFG_SIZE, .default_text = "0", .min = 4 * GP_CFG_KIB,
      .max = GP_CFG_TIB, .flags = GP_CFG_F_POWER_OF_TWO | GP_CFG_F_ZERO_OK, .transport = "ibv",
      .offset = IBV_FIELD(pin_maxsz),
      .doc = "largest single registration; a larger segment is pinned in several; 0 means "
             "the HCA's limit (a larger value is trimmed to it)" },
    { .name = "GASNET_AMRDMA_LIMIT", .type = GP_CFG_INT, .default_text = "4092", .min = 0,
      .max = 4092, .transport = "ibv", .offset = IBV_FIELD(amrdma_limit), .flags = GP_CFG_NO_EFFECT_YET,
      .doc = "largest AM sent by RDMA into a buffer reserved at the peer (4K less a 4-byte "
             "header); 0 disables AMRDMA.  gp's ibv transport has no AMRDMA yet: every AM "
             "goes by send and receive" },
    { .name = "GASNET_AMRDMA_DEPTH", .type = GP_CFG_INT, .default_text = "16", .min = 1,
      .max = 32, .flags = GP_CFG_F_POWER_OF_TWO | GP_CFG_NO_EFFECT_YET, .transport = "ibv",
      .offset = IBV_FIELD(amrdma_depth),
      .doc = "4K AMRDMA receive buffers per AMRDMA peer; gp has no AMRDMA yet" },
    { .name = "GASNET_AMRDMA_MAX_PEERS", .type = GP_CFG_INT, .default_text = "32", .min = 0,
      .max = 65535, .transport = "ibv", .offset = IBV_FIELD(amrdma_max_peers),
      .flags = GP_CFG_NO_EFFECT_YET,
      .doc = "peers a node receives AMs from by RDMA; 0 disables AMRDMA; gp has no AMRDMA "
             "yet" },
    { .name = "GASNET_AMRDMA_CYCLE", .type = GP_CFG_INT, .default_text = "1024", .min = 1,
      .max = 1073741824, .flags = GP_CFG_F_POWER_OF_TWO | GP_CFG_F_ZERO_OK | GP_CFG_NO_EFFECT_YET,
      .transport = "ibv", .offset = IBV_FIELD(amrdma_cycle),
      .doc = "AMs (up to GASNET_AMRDMA_LIMIT) received between choices of AMRDMA peers; 1 "
             "takes the first senders; 0 disables AMRDMA; gp has no AMRDMA yet" },
    { .name = "GP_IBV_GID_INDEX", .type = GP_CFG_INT, .default_text = "-1", .min = -1,
      .max = 255, .transport = "ibv", .offset = IBV_FIELD(ibv_gid_index),
      .doc = "GID table index for RoCE and other Ethernet ports; -1 chooses one automatically" },
    { .name = "GP_IBV_FAULT_RKEY", .type = GP_CFG_INT, .default_text = "0", .min = 0,
      .max = 1000000000, .transport = "ibv", .offset = IBV_FIELD(ibv_fault_rkey),
      .doc = "for tests: the Nth RDMA operation into a peer's window uses a wrong remote key, "
             "so its completion fails and the job takes the graceful exit (0: never)" },
};

/* GASNET_IBV_PORTS (or its older name, which the load matched) must parse. */
static int check_ibv_ports(const void *next, char *errbuf, size_t errlen)
{
    const struct ibv_config *cfg = next;
    const char *from;
    struct ibv_port_filter *filter;
    if (cfg->ibv_ports == NULL)
        return GP_CFG_OK;
    gp_config_row_text(gp_config_find("GASNET_IBV_PORTS"), &from);
    if (ibv_port_filter_parse(from, cfg->ibv_ports, &filter, errbuf, errlen) != 0)
        return GP_CFG_ERR_BAD_ARG;
    ibv_port_filter_free(filter);
    return GP_CFG_OK;
}

struct ibv_config ibv_cfg;

const struct gp_cfg_group ibv_cfg_group = {
    .layer = "ibv", GP_CFG_GROUP_ROWS(ibv_rows), GP_CFG_GROUP_VALUES(ibv_cfg),
    .check = check_ibv_ports,
};
