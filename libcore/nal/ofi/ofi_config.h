/* The ofi rows' values (nal/ofi/ofi_config.c). */
#ifndef GP_NAL_OFI_CONFIG_H
#define GP_NAL_OFI_CONFIG_H

#include <stdint.h>

struct gp_cfg_group;

struct ofi_config {
    const char *gp_ofi_provider;   /* GP_OFI_PROVIDER; NULL: FI_PROVIDER, else ofi_info.c chooses */
    int64_t ofi_credits_pp;
    int64_t ofi_depth_pp;
    int64_t ofi_fault_key;             /* GP_OFI_FAULT_KEY: tests only; 0: never */
    int     ofi_windows;               /* GP_OFI_WINDOWS: 0 keeps RMA in messages, for tests */
    int     ofi_order_waw;             /* GP_OFI_ORDER_WAW: 0 never asks for ordered writes */
    int64_t ofi_tx_bufs;               /* GP_OFI_TX_BUFS: at most OFI_TX_BUFS */
    int64_t ofi_bounce_bufs;           /* GP_OFI_BOUNCE_BUFS: at most OFI_BOUNCE_COUNT */
    int     ofi_test_late_writes;      /* GP_OFI_TEST_LATE_WRITES: tests only */
    int     ofi_test_rx_progress;      /* GP_OFI_TEST_RX_PROGRESS: tests only */
};

/* Valid after gp_config_load(), which commits it with every other group's values. */
extern struct ofi_config ofi_cfg;
extern const struct gp_cfg_group ofi_cfg_group;

#endif
