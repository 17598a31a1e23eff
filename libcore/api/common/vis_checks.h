/*
 * The rules both faces' VIS calls share (vis_checks.c): every remote piece
 * inside the node's segment, list byte totals that agree and do not
 * overflow, disjoint destination pieces, indexed pieces of positive length;
 * and the run of a checked transfer with the completion its form asks for.
 * Misuse is fatal, naming the call, the list and piece, the address and the
 * node.
 */
#ifndef GP_API_COMMON_VIS_CHECKS_H
#define GP_API_COMMON_VIS_CHECKS_H
#include <gasnet.h>

#include "conduit/vis/vis.h"

enum gp_vis_sync { GP_VIS_BLOCKING, GP_VIS_NB, GP_VIS_NBI };

/* Fatal unless [addr, addr + len) lies in node's segment; what[index] names the piece. */
void gp_api_vis_check_remote(const char *call, const char *what, size_t index,
                             gasnet_node_t node, const void *addr, size_t len);
/* The bytes of a vector list; with remote, each non-empty piece is checked against node. */
size_t gp_api_vis_vector_bytes(const char *call, const char *list_name, size_t count,
                               const gasnet_memvec_t *list, gasnet_node_t remote_node,
                               int remote);
size_t gp_api_vis_indexed_bytes(const char *call, const char *list_name, size_t count,
                                void *const *list, size_t len, gasnet_node_t remote_node,
                                int remote);
/* Both lists of an indexed transfer checked (the remote one against node: dst for a put,
 * src for a get; equal byte counts) and described as the conduit's sides: the bytes moved. */
size_t gp_api_vis_indexed_sides(const char *call, int is_put, gasnet_node_t node, size_t dstcount,
                                void *const dstlist[], size_t dstlen, size_t srccount,
                                void *const srclist[], size_t srclen, struct gpc_vis_side *dst,
                                struct gpc_vis_side *src);
void gp_api_vis_check_dst_overlap(const char *call, size_t count, const gasnet_memvec_t *list,
                                  size_t total);
void gp_api_vis_check_sizes(const char *call, size_t dst_bytes, size_t src_bytes);
/* Runs a checked transfer: GASNET_INVALID_HANDLE unless an _nb one is still going. */
gasnet_handle_t gp_api_vis_run(int is_put, gasnet_node_t node, const struct gpc_vis_side *dst,
                               const struct gpc_vis_side *src, size_t nbytes,
                               enum gp_vis_sync sync);
#endif
