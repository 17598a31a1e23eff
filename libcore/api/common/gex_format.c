/*
 * gasnet_tools.h's gasnett_format_ti, _dt and _op: a gex_TI_t, gex_DT_t or
 * gex_OP_t mask as its constants' names joined by '|' ("0" for none; bits
 * no constant names as one hex number at the end).  With buf NULL they
 * return the bytes the text needs, its NUL included; else they write it and
 * return the same count, so a caller sizes the buffer with a first call.
 */
#include <gasnetex.h>
#include <gasnet_tools.h>
#include <stdio.h>
#include <string.h>

#include "api/common/export.h"

struct bit_name {
    uint32_t bit;
    const char *name;
};

static size_t format_mask(char *buf, uint32_t mask, const struct bit_name *names, size_t n)
{
    char text[512];
    size_t used = 0;
    uint32_t unnamed = mask;
    for (size_t i = 0; i < n; i++) {
        if (!(mask & names[i].bit))
            continue;
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s", used ? "|" : "",
                                 names[i].name);
        unnamed &= ~names[i].bit;
    }
    if (unnamed != 0 || mask == 0)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s%x", used ? "|" : "",
                                 unnamed ? "0x" : "", (unsigned)unnamed);
    if (buf != NULL)
        memcpy(buf, text, used + 1);
    return used + 1;
}

#define NAME(c) { c, #c }

GP_EXPORT size_t gasnett_format_ti(char *buf, gex_TI_t ti)
{
    static const struct bit_name names[] = { NAME(GEX_TI_SRCRANK), NAME(GEX_TI_ENTRY),
                                             NAME(GEX_TI_IS_REQ), NAME(GEX_TI_IS_LONG),
                                             NAME(GEX_TI_EP) };
    return format_mask(buf, ti, names, sizeof names / sizeof names[0]);
}

GP_EXPORT size_t gasnett_format_dt(char *buf, gex_DT_t dt)
{
    static const struct bit_name names[] = { NAME(GEX_DT_I32), NAME(GEX_DT_U32),
                                             NAME(GEX_DT_I64), NAME(GEX_DT_U64),
                                             NAME(GEX_DT_FLT), NAME(GEX_DT_DBL),
                                             NAME(GEX_DT_USER) };
    return format_mask(buf, dt, names, sizeof names / sizeof names[0]);
}

GP_EXPORT size_t gasnett_format_op(char *buf, gex_OP_t op)
{
    static const struct bit_name names[] = {
        NAME(GEX_OP_AND),   NAME(GEX_OP_OR),    NAME(GEX_OP_XOR),    NAME(GEX_OP_ADD),
        NAME(GEX_OP_SUB),   NAME(GEX_OP_MULT),  NAME(GEX_OP_MIN),    NAME(GEX_OP_MAX),
        NAME(GEX_OP_INC),   NAME(GEX_OP_DEC),   NAME(GEX_OP_SET),    NAME(GEX_OP_CAS),
        NAME(GEX_OP_FAND),  NAME(GEX_OP_FOR),   NAME(GEX_OP_FXOR),   NAME(GEX_OP_FADD),
        NAME(GEX_OP_FSUB),  NAME(GEX_OP_FMULT), NAME(GEX_OP_FMIN),   NAME(GEX_OP_FMAX),
        NAME(GEX_OP_FINC),  NAME(GEX_OP_FDEC),  NAME(GEX_OP_SWAP),   NAME(GEX_OP_FCAS),
        NAME(GEX_OP_GET),   NAME(GEX_OP_USER),  NAME(GEX_OP_USER_NC),
    };
    return format_mask(buf, op, names, sizeof names / sizeof names[0]);
}
