/* The ofi transport's rows: which libfabric provider, and its flow-control depths. */
#include "nal/ofi/ofi_config.h"

#include "config/rows.h"

#define OFI_FIELD(member) GP_CFG_FIELD_OF(struct ofi_config, member)

static const struct gp_cfg_row ofi_rows[] = {
    { .name = "GP_OFI_PROVIDER", .type = GP_CFG_STRING, .default_text = NULL, .transport = "ofi",
      .offset = OFI_FIELD(gp_ofi_provider),
      .unset_means = "FI_PROVIDER if set, else, among the providers that reach other hosts "
                     "with FI_EP_RDM, FI_MSG and FI_RMA, libfabric's first hardware provider, "
                     "then its native tcp one (net in libfabric 1.17, tcp from 1.18), then "
                     "libfabric's first",
      .doc = "the libfabric provider the ofi transport opens, as fi_info -l names it "
             "(tcp;ofi_rxm, verbs;ofi_rxm, sockets, shm, cxi for Slingshot, efa for AWS EFA)" },
    { .name = "GP_OFI_CREDITS_PP", .type = GP_CFG_INT, .default_text = "32", .min = 2,
      .max = 4096, .transport = "ofi", .offset = OFI_FIELD(ofi_credits_pp),
      .doc = "requests (puts, gets, AM messages) this process may have sent to one peer before "
             "the peer says it has handled them; the receive buffers each process posts cover "
             "every peer's credits" },
    { .name = "GP_OFI_DEPTH_PP", .type = GP_CFG_INT, .default_text = "64", .min = 1,
      .max = 65535, .transport = "ofi", .offset = OFI_FIELD(ofi_depth_pp),
      .doc = "operations awaiting an answer or a completion, per peer; each answered one has a "
             "receive buffer posted for its answer" },
    { .name = "GP_OFI_FAULT_KEY", .type = GP_CFG_INT, .default_text = "0", .min = 0,
      .max = 1000000000, .transport = "ofi", .offset = OFI_FIELD(ofi_fault_key),
      .doc = "for tests: the Nth RMA operation this process starts uses a wrong remote key, so "
             "its completion fails and the job takes the graceful exit (0: never)" },
    { .name = "GP_OFI_WINDOWS", .type = GP_CFG_BOOL, .default_text = "1", .transport = "ofi",
      .offset = OFI_FIELD(ofi_windows),
      .doc = "a process tells its peers where its segment lies for RMA, so that their puts and "
             "gets to it are fi_write and fi_read with no message and no matching; 0 keeps "
             "every put and get in messages (eager, rendezvous), for tests" },
    { .name = "GP_OFI_ORDER_WAW", .type = GP_CFG_BOOL, .default_text = "1", .transport = "ofi",
      .offset = OFI_FIELD(ofi_order_waw),
      .doc = "ask the provider to place RMA writes in order (FI_ORDER_WAW): then only the last "
             "part of a window put waits for delivery at the target, the others complete when "
             "sent; where the provider does not offer it, or with 0 (for tests, as over a "
             "provider without it), every part completes at delivery" },
    { .name = "GP_OFI_TX_BUFS", .type = GP_CFG_INT, .default_text = "256", .min = 1,
      .max = 256, .transport = "ofi", .offset = OFI_FIELD(ofi_tx_bufs),
      .doc = "8 KiB buffers for messages out (and bounced get parts) that may be in flight at "
             "once; a send waits for one to complete when all are out (fewer: for tests)" },
    { .name = "GP_OFI_BOUNCE_BUFS", .type = GP_CFG_INT, .default_text = "16", .min = 1,
      .max = 16, .transport = "ofi", .offset = OFI_FIELD(ofi_bounce_bufs),
      .doc = "256 KiB buffers a window put's parts are copied through; a put waits for a part "
             "to complete when all are out (fewer: for tests)" },
    { .name = "GP_OFI_TEST_LATE_WRITES", .type = GP_CFG_BOOL, .default_text = "0",
      .transport = "ofi", .offset = OFI_FIELD(ofi_test_late_writes),
      .doc = "for tests: a window put's part that asks only for its transmit completion is "
             "completed at once and written after the next message from its target, as a "
             "provider that does not order writes may place it; with GP_OFI_ORDER_WAW=0 no "
             "part may rely on that" },
    { .name = "GP_OFI_TEST_RX_PROGRESS", .type = GP_CFG_BOOL, .default_text = "0",
      .transport = "ofi", .offset = OFI_FIELD(ofi_test_rx_progress),
      .doc = "for tests: behave as a provider whose data moves only when the receive "
             "completion queue is read (libfabric's manual progress allows it): the transmit "
             "queue is read only after the receive queue was, so a wait that reads the "
             "transmit queue alone never ends" },
};

struct ofi_config ofi_cfg;

const struct gp_cfg_group ofi_cfg_group = {
    .layer = "ofi", GP_CFG_GROUP_ROWS(ofi_rows), GP_CFG_GROUP_VALUES(ofi_cfg),
};
