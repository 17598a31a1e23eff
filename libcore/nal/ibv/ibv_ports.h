/*
 * GASNET_IBV_PORTS (and its older name GASNET_VAPI_PORTS, seed 003): which
 * HCAs and ports the ibv transport may open.  Pure text handling, with no
 * verbs dependency, so the configuration checks it at load and the unit
 * tests run anywhere.
 *
 * Syntax: HCA[:PORT[,PORT...]][+HCA[:PORT[,PORT...]]...], for example
 * "mlx5_0+mlx5_1:2" or "rxe0:1".  The value is a filter, as in GASNet:
 * duplicates open nothing twice, order is not significant, and entries
 * naming HCAs or ports that don't exist or aren't active simply match
 * nothing.  An HCA given without ports allows any of its ports (the caller
 * takes the first active one).  Ports are 1-based, from 1 to 255.
 */
#ifndef GP_NAL_IBV_PORTS_H
#define GP_NAL_IBV_PORTS_H

#include <stddef.h>

struct ibv_port_filter;

/* The largest port number an HCA can have (the verbs port is a u8). */
#define IBV_PORT_FILTER_MAX_PORT 255u

/*
 * Parses text, read from the variable varname (named in the error).
 * Returns 0 and sets *out; NULL or "" text is the empty filter, which
 * allows everything.  On a syntax error returns -1, leaves *out alone and
 * writes into errbuf one sentence naming the variable, the text, what is
 * wrong and the accepted syntax.  Free the filter with ibv_port_filter_free.
 */
int ibv_port_filter_parse(const char *varname, const char *text,
                          struct ibv_port_filter **out, char *errbuf, size_t errlen);

/* Whether port (1-based) of device hca may be used.  A NULL filter is empty. */
int ibv_port_filter_allows(const struct ibv_port_filter *f, const char *hca, unsigned port);

/* Whether the filter names hca at all; an empty filter names every HCA. */
int ibv_port_filter_mentions(const struct ibv_port_filter *f, const char *hca);

/*
 * Whether hca is restricted to listed ports: named, and never without a
 * port list ("x+x:1" allows every port of x, so it has no port list).
 */
int ibv_port_filter_has_port_list(const struct ibv_port_filter *f, const char *hca);

/* Whether the filter is empty (no text, or ""): every HCA and port allowed. */
int ibv_port_filter_is_empty(const struct ibv_port_filter *f);

void ibv_port_filter_free(struct ibv_port_filter *f);

#endif
