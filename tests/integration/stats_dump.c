/*
 * Prints the live statistics pages of a running job (libcore/conduit/
 * stats_page.h), one key=value line per node and per peer, as gp-top will
 * read them.  Usage: stats_dump JOBID NODES
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conduit/core/stats_page.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: stats_dump JOBID NODES\n");
        return 2;
    }
    uint32_t nodes = (uint32_t)atoi(argv[2]);
    struct gp_stats_page *page = malloc(gp_stats_page_bytes(nodes));
    for (uint32_t rank = 0; rank < nodes; rank++) {
        if (gp_stats_read(argv[1], rank, page, nodes) != 0) {
            fprintf(stderr, "stats_dump: rank %u: %s\n", rank, strerror(errno));
            return 1;
        }
        printf("rank=%u nodes=%u pid=%u banked=%lld stalls=%llu extra_granted=%llu "
               "send_tickets=%lld/%lld reqsb=%u/%u reqrb_buffers=%u cb_hits=%llu am_events=%llu\n",
               page->rank, page->nodes, page->pid, (long long)page->banked_credits,
               (unsigned long long)page->stalls, (unsigned long long)page->extra_granted,
               (long long)page->send_tickets_free, (long long)page->send_tickets_limit,
               page->reqsb_free, page->reqsb_total, page->reqrb_buffers,
               (unsigned long long)page->cb_hits, (unsigned long long)page->am_events);
        for (uint32_t peer = 0; peer < page->nodes && peer < nodes; peer++)
            printf("rank=%u peer=%u loan_credits=%u send_credits=%u send_inuse=%u\n", rank, peer,
                   page->peer[peer].loan_credits, page->peer[peer].send_credits,
                   page->peer[peer].send_inuse);
    }
    free(page);
    return 0;
}
