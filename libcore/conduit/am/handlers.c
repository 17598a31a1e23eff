/*
 * Running a handler: a handler's prototype depends on its category and
 * argument count (spec 3.11), so the call is a switch over the count with
 * one properly typed call per case.  Handlers run with the thread marked as
 * in handler context, which the API uses to refuse requests and polls.
 */
#include "conduit/am/am.h"
#include "conduit/am/am_wire.h"
#include "conduit/core/state.h"
#include "util/log.h"

_Thread_local int gpc_in_handler;

typedef gasnet_handlerarg_t harg;

static void call_short(gpc_handler_fn fn, gasnet_token_t token, unsigned nargs,
                       const harg *args)
{
    switch (nargs) {
    case 0: ((void (*)(gasnet_token_t))fn)(token); break;
    case 1: ((void (*)(gasnet_token_t, harg))fn)(token, args[0]); break;
    case 2: ((void (*)(gasnet_token_t, harg, harg))fn)(token, args[0], args[1]); break;
    case 3: ((void (*)(gasnet_token_t, harg, harg, harg))fn)(token, args[0], args[1], args[2]); break;
    case 4: ((void (*)(gasnet_token_t, harg, harg, harg, harg))fn)(token, args[0], args[1], args[2], args[3]); break;
    case 5: ((void (*)(gasnet_token_t, harg, harg, harg, harg, harg))fn)(token, args[0], args[1], args[2], args[3], args[4]); break;
    case 6: ((void (*)(gasnet_token_t, harg, harg, harg, harg, harg, harg))fn)(token, args[0], args[1], args[2], args[3], args[4], args[5]); break;
    case 7: ((void (*)(gasnet_token_t, harg, harg, harg, harg, harg, harg, harg))fn)(token, args[0], args[1], args[2], args[3], args[4], args[5], args[6]); break;
    case 8: ((void (*)(gasnet_token_t, harg, harg, harg, harg, harg, harg, harg, harg))fn)(token, args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7]); break;
    case 9: ((void (*)(gasnet_token_t, harg, harg, harg, harg, harg, harg, harg, harg, harg))fn)(token, args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8]); break;
    case 10: ((void (*)(gasnet_token_t, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg))fn)(token, args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], args[9]); break;
    case 11: ((void (*)(gasnet_token_t, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg))fn)(token, args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], args[9], args[10]); break;
    case 12: ((void (*)(gasnet_token_t, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg))fn)(token, args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], args[9], args[10], args[11]); break;
    case 13: ((void (*)(gasnet_token_t, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg))fn)(token, args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], args[9], args[10], args[11], args[12]); break;
    case 14: ((void (*)(gasnet_token_t, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg))fn)(token, args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], args[9], args[10], args[11], args[12], args[13]); break;
    case 15: ((void (*)(gasnet_token_t, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg))fn)(token, args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], args[9], args[10], args[11], args[12], args[13], args[14]); break;
    case 16: ((void (*)(gasnet_token_t, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg))fn)(token, args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], args[9], args[10], args[11], args[12], args[13], args[14], args[15]); break;
    default: break;
    }
}

static void call_payload(gpc_handler_fn fn, gasnet_token_t token, void *buf, size_t nbytes,
                         unsigned nargs, const harg *args)
{
    switch (nargs) {
    case 0: ((void (*)(gasnet_token_t, void *, size_t))fn)(token, buf, nbytes); break;
    case 1: ((void (*)(gasnet_token_t, void *, size_t, harg))fn)(token, buf, nbytes, args[0]); break;
    case 2: ((void (*)(gasnet_token_t, void *, size_t, harg, harg))fn)(token, buf, nbytes, args[0], args[1]); break;
    case 3: ((void (*)(gasnet_token_t, void *, size_t, harg, harg, harg))fn)(token, buf, nbytes, args[0], args[1], args[2]); break;
    case 4: ((void (*)(gasnet_token_t, void *, size_t, harg, harg, harg, harg))fn)(token, buf, nbytes, args[0], args[1], args[2], args[3]); break;
    case 5: ((void (*)(gasnet_token_t, void *, size_t, harg, harg, harg, harg, harg))fn)(token, buf, nbytes, args[0], args[1], args[2], args[3], args[4]); break;
    case 6: ((void (*)(gasnet_token_t, void *, size_t, harg, harg, harg, harg, harg, harg))fn)(token, buf, nbytes, args[0], args[1], args[2], args[3], args[4], args[5]); break;
    case 7: ((void (*)(gasnet_token_t, void *, size_t, harg, harg, harg, harg, harg, harg, harg))fn)(token, buf, nbytes, args[0], args[1], args[2], args[3], args[4], args[5], args[6]); break;
    case 8: ((void (*)(gasnet_token_t, void *, size_t, harg, harg, harg, harg, harg, harg, harg, harg))fn)(token, buf, nbytes, args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7]); break;
    case 9: ((void (*)(gasnet_token_t, void *, size_t, harg, harg, harg, harg, harg, harg, harg, harg, harg))fn)(token, buf, nbytes, args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8]); break;
    case 10: ((void (*)(gasnet_token_t, void *, size_t, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg))fn)(token, buf, nbytes, args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], args[9]); break;
    case 11: ((void (*)(gasnet_token_t, void *, size_t, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg))fn)(token, buf, nbytes, args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], args[9], args[10]); break;
    case 12: ((void (*)(gasnet_token_t, void *, size_t, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg))fn)(token, buf, nbytes, args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], args[9], args[10], args[11]); break;
    case 13: ((void (*)(gasnet_token_t, void *, size_t, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg))fn)(token, buf, nbytes, args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], args[9], args[10], args[11], args[12]); break;
    case 14: ((void (*)(gasnet_token_t, void *, size_t, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg))fn)(token, buf, nbytes, args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], args[9], args[10], args[11], args[12], args[13]); break;
    case 15: ((void (*)(gasnet_token_t, void *, size_t, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg))fn)(token, buf, nbytes, args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], args[9], args[10], args[11], args[12], args[13], args[14]); break;
    case 16: ((void (*)(gasnet_token_t, void *, size_t, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg, harg))fn)(token, buf, nbytes, args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7], args[8], args[9], args[10], args[11], args[12], args[13], args[14], args[15]); break;
    default: break;
    }
}

void gpc_run_handler(struct gpc_token *token, gasnet_handler_t handler, unsigned category,
                     void *buf, size_t nbytes, unsigned nargs, const gasnet_handlerarg_t *args)
{
    gpc_handler_fn fn = gpc.handlers[handler];
    if (fn == NULL)
        gp_fatal("an AM %s from node %u names handler %u, which is not registered on this node",
                 token->is_request ? "request" : "reply", token->source, handler);
    int outer = gpc_in_handler;
    gpc_in_handler = 1;
    token->handler = handler;
    token->category = (uint8_t)category;
    if (category == GPC_SHORT)
        call_short(fn, token, nargs, args);
    else
        call_payload(fn, token, buf, nbytes, nargs, args);
    gpc_in_handler = outer;
}

static int check_entry(const gex_AM_Entry_t *entry, size_t i)
{
    if ((entry->gex_flags & GEX_FLAG_AM_REQREP) == 0 ||
        (entry->gex_flags & (GEX_FLAG_AM_SHORT | GEX_FLAG_AM_MEDLONG)) == 0) {
        gp_error("am", "handler table entry %zu has gex_flags 0x%x; it needs GEX_FLAG_AM_REQUEST "
                 "and/or _REPLY, and GEX_FLAG_AM_SHORT, _MEDIUM and/or _LONG", i,
                 (unsigned)entry->gex_flags);
        return GASNET_ERR_BAD_ARG;
    }
    if (entry->gex_nargs > GPC_MAX_ARGS) {
        gp_error("am", "handler table entry %zu takes %u arguments; AM handlers take 0 to %d", i,
                 entry->gex_nargs, GPC_MAX_ARGS);
        return GASNET_ERR_BAD_ARG;
    }
    if (entry->gex_fnptr == NULL) {
        gp_error("am", "handler table entry %zu has a NULL gex_fnptr", i);
        return GASNET_ERR_BAD_ARG;
    }
    return GASNET_OK;
}

static void install_entry(gex_AM_Entry_t *entry, unsigned index)
{
    entry->gex_index = (gex_AM_Index_t)index;
    gpc.am_entries[index] = *entry;
    gpc.handlers[index] = (gpc_handler_fn)entry->gex_fnptr;
}

/* The whole table is checked before any entry is installed: a refused table changes nothing. */
int gpc_register_entries(gex_AM_Entry_t *table, size_t numentries)
{
    char taken[256];
    unsigned wanted = 0;
    for (unsigned index = 0; index < 256; index++)
        taken[index] = index < GEX_AM_INDEX_BASE || gpc.handlers[index] != NULL;
    for (size_t i = 0; i < numentries; i++) {
        int rc = check_entry(&table[i], i);
        if (rc != GASNET_OK)
            return rc;
        unsigned index = table[i].gex_index;
        if (index == 0) {
            wanted++;
            continue;
        }
        if (index < GEX_AM_INDEX_BASE || taken[index]) {
            gp_error("am", "handler table entry %zu asks for index %u, which is %s; client "
                     "handlers use %d..255, 0 for any free one", i, index,
                     index < GEX_AM_INDEX_BASE ? "reserved" : "already taken", GEX_AM_INDEX_BASE);
            return GASNET_ERR_BAD_ARG;
        }
        taken[index] = 1;
    }
    unsigned left = 0;
    for (unsigned index = GEX_AM_INDEX_BASE; index < 256; index++)
        left += !taken[index];
    if (wanted > left) {
        gp_error("am", "%u handler table entries ask for any index, but only %u of %d..255 are "
                 "free", wanted, left, GEX_AM_INDEX_BASE);
        return GASNET_ERR_RESOURCE;
    }
    for (size_t i = 0; i < numentries; i++)
        if (table[i].gex_index != 0)
            install_entry(&table[i], table[i].gex_index);
    unsigned next = 255;
    for (size_t i = 0; i < numentries; i++) {
        if (table[i].gex_index != 0)
            continue;
        while (taken[next])
            next--;
        taken[next] = 1;
        install_entry(&table[i], next);
    }
    return GASNET_OK;
}
