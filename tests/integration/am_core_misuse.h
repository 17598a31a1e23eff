/*
 * am_core's misuse cases: each call breaks one rule of the spec and must
 * return the spec's error (and the job must go on).  Included by am_core.c.
 */
static volatile int misuse_in_request[4] = { -1, -1, -1, -1 };
static volatile int misuse_in_reply = -1;
static volatile int misuse_done, anywhere_ran;
static gasnet_handler_t anywhere_index; /* chosen by attach */

static void misuse_request(gasnet_token_t token)
{
    misuse_in_request[0] = gasnet_AMRequestShort0(me, H_MISUSE); /* request inside a handler */
    misuse_in_request[1] = gasnet_AMPoll();                       /* poll inside a handler */
    misuse_in_request[2] = gasnet_AMReplyShort0(token, H_MISUSE_REPLY);
    misuse_in_request[3] = gasnet_AMReplyShort0(token, H_MISUSE_REPLY); /* second reply */
}

static void misuse_reply(gasnet_token_t token)
{
    misuse_in_reply = gasnet_AMReplyShort0(token, H_MISUSE_REPLY); /* reply from a reply handler */
    misuse_done = 1;
}

static void misuse_anywhere(gasnet_token_t token, gasnet_handlerarg_t value)
{
    (void)token;
    if (value == 77) /* the neighbour's 0 may arrive after our own 77 */
        anywhere_ran = value;
}

static void check_misuse(void)
{
    char big[1024] = { 0 };
    char *seg_end = (char *)seg[me].addr + seg[me].size;
    CHECK(gasnet_AMRequestShort0(nodes, H_SHORT_REQ) == GASNET_ERR_BAD_ARG, "node out of range");
    CHECK(gasnet_AMRequestShort0(me, 0) == GASNET_ERR_BAD_ARG, "handler index 0");
    CHECK(gasnet_AMRequestMedium0(me, H_MEDIUM_REQ, big, gasnet_AMMaxMedium() + 1) ==
          GASNET_ERR_BAD_ARG, "Medium over the maximum");
    CHECK(gasnet_AMRequestMedium0(me, H_MEDIUM_REQ, NULL, 10) == GASNET_ERR_BAD_ARG,
          "NULL Medium source");
    CHECK(gasnet_AMRequestLong0(me, H_LONG_REQ, big, 16, seg_end - 8) == GASNET_ERR_BAD_ARG,
          "Long running past the segment");
    CHECK(gasnet_AMRequestLong0(me, H_LONG_REQ, big, 16, big) == GASNET_ERR_BAD_ARG,
          "Long destination outside the segment");
    CHECK(gasnet_AMGetMsgSource(NULL, &me) == GASNET_ERR_BAD_ARG, "NULL token");

    CHECK(gasnet_AMRequestShort0(me, H_MISUSE) == GASNET_OK, "misuse request");
    GASNET_BLOCKUNTIL(misuse_done);
    CHECK(misuse_in_request[0] == GASNET_ERR_BAD_ARG, "request in handler gave %d",
          misuse_in_request[0]);
    CHECK(misuse_in_request[1] == GASNET_ERR_BAD_ARG, "poll in handler gave %d",
          misuse_in_request[1]);
    CHECK(misuse_in_request[2] == GASNET_OK, "first reply gave %d", misuse_in_request[2]);
    CHECK(misuse_in_request[3] == GASNET_ERR_BAD_ARG, "second reply gave %d",
          misuse_in_request[3]);
    CHECK(misuse_in_reply == GASNET_ERR_BAD_ARG, "reply from reply handler gave %d",
          misuse_in_reply);

    gasnet_handler_t anywhere = anywhere_index;
    CHECK(gasnet_AMRequestShort1((me + 1) % nodes, anywhere, 0) == GASNET_OK, "don't-care");
    CHECK(gasnet_AMRequestShort1(me, anywhere, 77) == GASNET_OK, "don't-care to self");
    GASNET_BLOCKUNTIL(anywhere_ran == 77);
}
