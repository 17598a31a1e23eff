/*
 * The rule by which the hybrid takes ofi between hosts unasked
 * (nal/ofi/ofi_peers.c, doc/decisions.md): only over a provider that drives
 * a network device; the providers that run over the host's sockets or
 * memory, and the ofi_rxm / ofi_rxd layers over them, leave those hosts to
 * gp's own tcp transport.
 */
#include "nal/ofi/ofi.h"

#include "../harness/test.h"

static void test_software_providers(void)
{
    static const char *const software[] = { "tcp", "tcp;ofi_rxm", "udp;ofi_rxd", "udp",
                                            "sockets", "shm", "sm2", "net", "net;ofi_rxm",
                                            "tcp,cxi", "" };
    for (size_t i = 0; i < sizeof software / sizeof software[0]; i++)
        if (ofi_provider_is_hardware(software[i]))
            gp_test_fail(__FILE__, __LINE__, "'%s' was taken for a hardware provider", software[i]);
}

static void test_hardware_providers(void)
{
    static const char *const hardware[] = { "cxi", "efa", "verbs;ofi_rxm", "verbs;ofi_rxd",
                                            "opx", "psm2", "psm3", "usnic", "cxi,tcp",
                                            "tcpx", "netdir" };
    for (size_t i = 0; i < sizeof hardware / sizeof hardware[0]; i++)
        if (!ofi_provider_is_hardware(hardware[i]))
            gp_test_fail(__FILE__, __LINE__, "'%s' was taken for a software provider", hardware[i]);
}

static const struct gp_test tests[] = {
    { "software_providers", test_software_providers, 0 },
    { "hardware_providers", test_hardware_providers, 0 },
    GP_TEST_END
};

int main(int argc, char **argv)
{
    return gp_test_main(argc, argv, "ofi_provider", tests);
}
