/* attach.c: gasnet_init's and gasnet_attach's conduit side. */
#ifndef GP_CONDUIT_ATTACH_H
#define GP_CONDUIT_ATTACH_H

#include <gasnet.h>
#include <stdint.h>

#include "conduit/am/am.h"

int gpc_init(void);
int gpc_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize);
int gpc_register_handlers(gasnet_handlerentry_t *table, int numentries,
                          gpc_handler_fn handlers[256]);

#endif
