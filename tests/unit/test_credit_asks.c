/*
 * Asks for credits (credit_flow.h, admission): a peer that starts below the
 * minimum asks the target for what a message needs, the target lends it,
 * admits it for one request or queues the ask until credits come home, and
 * at no time may a sender have more outstanding at a target than the
 * target has room for (its LoanCredits for that sender).
 */
#include <string.h>

#include "conduit/credits/credit_flow.h"
#include "test.h"

/* ---- a wire of SYS messages between the test's nodes ---- */

struct wire_msg {
    uint32_t from, to;
    enum credit_sys type;
    uint32_t credits;
};
static struct wire_msg wire[256];
static unsigned wire_len;

/* The context of each node is its rank (as a pointer-sized integer). */
static void wire_send(void *context, uint32_t to, enum credit_sys type, uint32_t credits,
                      int end_of_epoch)
{
    (void)end_of_epoch;
    if (wire_len < sizeof wire / sizeof wire[0])
        wire[wire_len++] = (struct wire_msg){ (uint32_t)(uintptr_t)context, to, type, credits };
}

static unsigned sent(enum credit_sys type)
{
    unsigned n = 0;
    for (unsigned i = 0; i < wire_len; i++)
        n += wire[i].type == type;
    return n;
}

/* Delivers every message on the wire to nodes[to]. */
static void deliver_all(struct credit_node *nodes)
{
    for (unsigned i = 0; i < wire_len; i++) {
        struct wire_msg m = wire[i];
        struct credit_node *at = &nodes[m.to];
        switch (m.type) {
        case CREDIT_SYS_ASK: credit_ask_arrived(at, m.from, m.credits); break;
        case CREDIT_SYS_ADMIT: credit_grant_arrived(at, m.from, m.credits, 0); break;
        case CREDIT_SYS_LEND: credit_grant_arrived(at, m.from, m.credits, 1); break;
        case CREDIT_SYS_REVOKE: credit_revoke_arrived(at, m.from, 0); break;
        case CREDIT_SYS_RETURN: credit_return_arrived(at, m.from, m.credits, 0); break;
        }
    }
    wire_len = 0;
}

/* cpn credits per peer, a bank, and a low mark: below it asks are admitted, not lent. */
static void node_init(struct credit_node *node, struct credit_conn *conn, uint32_t rank,
                      uint32_t nodes, uint32_t cpn, uint32_t bank, uint32_t low_bank)
{
    struct credit_limits limits = { .flow_control = 1, .dynamic = 1, .lender_limit = 64,
                                    .revoke_limit = 8, .num_scavenge = 3, .max_per_node = 64,
                                    .epoch_duration = 1000000, .low_bank = low_bank,
                                    .ask_reserve = CREDIT_MIN };
    credit_node_init(node, rank, nodes, conn, cpn, bank, &limits, wire_send,
                     (void *)(uintptr_t)rank);
}

/* A sender short of a full Medium asks once, and sends it with the admitted credits. */
static void test_sender_asks_once_and_sends_admitted(void)
{
    struct credit_node node;
    struct credit_conn conn[2];
    wire_len = 0;
    node_init(&node, conn, 0, 2, 2, 4, 1);
    struct credit_wait wait = { 0, 0 };
    uint8_t byte;
    CHECK_EQ(credit_take(&node, 1, 4, &wait, &byte), 0);
    CHECK_EQ(credit_take(&node, 1, 4, &wait, &byte), 0); /* polling: no second ask */
    CHECK_EQ(wire_len, 1);
    CHECK_EQ(wire[0].type, CREDIT_SYS_ASK);
    CHECK_EQ(wire[0].credits, 2);
    CHECK_EQ(node.stats.asks_sent, 1);
    credit_grant_arrived(&node, 1, 2, 0);
    CHECK_EQ(conn[1].asked, 0);
    CHECK_EQ(credit_take(&node, 1, 4, &wait, &byte), 1);
    CHECK(byte & CREDIT_BYTE_ADMIT);
    CHECK_EQ(CREDIT_BYTE_ADMITTED(byte), 2);
    CHECK_EQ(CREDIT_BYTE_USED(byte), 2);
    CHECK_EQ(CREDIT_BYTE_EXTRA(byte), 0); /* an admitted request asks for nothing more */
    CHECK_EQ(conn[1].admitted, 0);
    CHECK_EQ(conn[1].send_inuse, 2);
    CHECK_EQ(conn[1].send_credits, 2); /* admitted credits never become its own */
    /* The reply returns the 2 of its own. */
    credit_reply_arrived(&node, 1, credit_byte(0, 0, 2));
    CHECK_EQ(conn[1].send_inuse, 0);
}

/* A bank at or below its low mark admits for one request; the request's
 * release banks the credits again. */
static void test_lender_admits_and_banks_on_release(void)
{
    struct credit_node node;
    struct credit_conn conn[2];
    wire_len = 0;
    node_init(&node, conn, 0, 2, 2, 4, 8);
    credit_ask_arrived(&node, 1, 2);
    CHECK_EQ(sent(CREDIT_SYS_ADMIT), 1);
    CHECK_EQ(gp_count_get(&node.banked), 2);
    CHECK_EQ(conn[1].loan_credits, 4);
    CHECK_EQ(node.stats.credits_admitted, 2);
    uint8_t request = credit_byte_admitted(0, 2, 2);
    uint8_t reply = credit_request_arrived(&node, 1, request);
    CHECK_EQ(CREDIT_BYTE_USED(reply), 2);
    CHECK_EQ(CREDIT_BYTE_EXTRA(reply), 0);
    CHECK_EQ(gp_count_get(&node.banked), 2); /* the space is not free before release */
    credit_request_released(&node, 1, request);
    CHECK_EQ(gp_count_get(&node.banked), 4);
    CHECK_EQ(conn[1].loan_credits, 2);
}

/* A bank well above its low mark lends for good, as on a request's XXX. */
static void test_rich_lender_lends_for_good(void)
{
    struct credit_node node;
    struct credit_conn conn[2];
    wire_len = 0;
    node_init(&node, conn, 0, 2, 2, 100, 8);
    credit_ask_arrived(&node, 1, 2);
    CHECK_EQ(sent(CREDIT_SYS_LEND), 1);
    CHECK_EQ(conn[1].loan_credits, 4);
    CHECK_EQ(conn[1].loan_given, 2);
    CHECK_EQ(gp_count_get(&node.banked), 98);
    struct credit_node borrower;
    struct credit_conn bconn[2];
    node_init(&borrower, bconn, 1, 2, 2, 100, 8);
    credit_grant_arrived(&borrower, 0, 2, 1);
    CHECK_EQ(bconn[0].send_credits, 4);
    CHECK_EQ(bconn[0].admitted, 0);
}

/* An empty bank queues asks and serves them in order as credits come home;
 * meanwhile a request's XXX gets nothing (asks first). */
static void test_asks_wait_for_the_bank_in_order(void)
{
    struct credit_node node;
    struct credit_conn conn[4];
    wire_len = 0;
    node_init(&node, conn, 0, 4, 1, 4, 100);
    credit_ask_arrived(&node, 1, 3);
    credit_ask_arrived(&node, 2, 3);
    credit_ask_arrived(&node, 3, 1);
    CHECK_EQ(sent(CREDIT_SYS_ADMIT), 1);
    CHECK_EQ(node.stats.asks_waited, 2);
    CHECK_EQ(node.asks_waiting, 2);
    CHECK_EQ(gp_count_get(&node.banked), 1); /* 3 would fit 1, but 2 came first */
    CHECK_EQ(conn[3].ask_want, 1);
    uint8_t reply = credit_request_arrived(&node, 3, credit_byte(0, 1, 1));
    CHECK_EQ(CREDIT_BYTE_EXTRA(reply), 0);
    wire_len = 0;
    uint8_t request = credit_byte_admitted(0, 3, 1);
    credit_request_arrived(&node, 1, request);
    credit_request_released(&node, 1, request);
    CHECK_EQ(wire_len, 2);
    CHECK_EQ(wire[0].to, 2);
    CHECK_EQ(wire[0].credits, 3);
    CHECK_EQ(wire[1].to, 3);
    CHECK_EQ(wire[1].credits, 1);
    CHECK_EQ(node.asks_waiting, 0);
    CHECK_EQ(node.ask_head, CREDIT_NONE);
    CHECK_EQ(gp_count_get(&node.banked), 0);
}

/* Loans on a request's XXX leave the bank ask_reserve for the asks. */
static void test_loans_leave_the_reserve(void)
{
    struct credit_node node;
    struct credit_conn conn[2];
    wire_len = 0;
    node_init(&node, conn, 0, 2, 2, 6, 1);
    uint8_t reply = credit_request_arrived(&node, 1, credit_byte(0, 3, 1));
    CHECK_EQ(CREDIT_BYTE_EXTRA(reply), 0); /* 6 - 3 would leave less than 4 */
    reply = credit_request_arrived(&node, 1, credit_byte(0, 2, 1));
    CHECK_EQ(CREDIT_BYTE_EXTRA(reply), 2);
    CHECK_EQ(gp_count_get(&node.banked), 4);
}

/*
 * Two nodes that start with 1 credit each, and a bank of 4, flood each other
 * with full Mediums: each asks the other while waiting for its own grant
 * (polling answers the other's ask), and both get every message through,
 * never with more outstanding at the other than it lends them.
 */
static void test_two_nodes_asking_each_other(void)
{
    struct credit_node nodes[2];
    struct credit_conn conn[2][2];
    wire_len = 0;
    for (uint32_t r = 0; r < 2; r++)
        node_init(&nodes[r], conn[r], r, 2, 1, 4, 100);
    struct credit_wait wait[2] = { { 0, 0 }, { 0, 0 } };
    unsigned delivered[2] = { 0, 0 };
    int broken = 0;
    for (int round = 0; round < 200 && (delivered[0] < 20 || delivered[1] < 20); round++) {
        uint8_t bytes[2] = { 0, 0 };
        int went[2] = { 0, 0 };
        for (uint32_t r = 0; r < 2; r++) {
            if (delivered[r] < 20 && credit_take(&nodes[r], 1 - r, 4, &wait[r], &bytes[r])) {
                went[r] = 1;
                wait[r] = (struct credit_wait){ 0, 0 };
            }
        }
        /* the invariant, with the requests on their way */
        for (uint32_t r = 0; r < 2; r++) {
            const struct credit_conn *mine = &conn[r][1 - r], *theirs = &conn[1 - r][r];
            unsigned outstanding = mine->send_inuse + mine->admitted +
                                   (went[r] ? CREDIT_BYTE_ADMITTED(bytes[r]) : 0);
            broken |= outstanding > theirs->loan_credits;
        }
        deliver_all(nodes); /* the polls: asks and grants */
        for (uint32_t r = 0; r < 2; r++) {
            if (!went[r])
                continue;
            struct credit_node *target = &nodes[1 - r];
            uint8_t reply = credit_request_arrived(target, r, bytes[r]);
            credit_request_released(target, r, bytes[r]);
            credit_reply_arrived(&nodes[r], 1 - r, reply);
            delivered[r]++;
        }
        deliver_all(nodes);
    }
    CHECK(!broken);
    CHECK_EQ(delivered[0], 20);
    CHECK_EQ(delivered[1], 20);
    CHECK(nodes[0].stats.asks_sent > 0 && nodes[1].stats.asks_sent > 0);
    for (uint32_t r = 0; r < 2; r++) { /* everything home */
        CHECK_EQ(gp_count_get(&nodes[r].banked) + conn[r][1 - r].loan_credits, 4 + 1);
        CHECK_EQ(conn[r][1 - r].loan_credits,
                 conn[1 - r][r].send_credits + conn[1 - r][r].admitted);
    }
}

static const struct gp_test tests[] = {
    { "sender_asks_once_and_sends_admitted", test_sender_asks_once_and_sends_admitted, 0 },
    { "lender_admits_and_banks_on_release", test_lender_admits_and_banks_on_release, 0 },
    { "rich_lender_lends_for_good", test_rich_lender_lends_for_good, 0 },
    { "asks_wait_for_the_bank_in_order", test_asks_wait_for_the_bank_in_order, 0 },
    { "loans_leave_the_reserve", test_loans_leave_the_reserve, 0 },
    { "two_nodes_asking_each_other", test_two_nodes_asking_each_other, 0 },
    GP_TEST_END
};

int main(int argc, char **argv)
{
    return gp_test_main(argc, argv, "credit_asks", tests);
}
