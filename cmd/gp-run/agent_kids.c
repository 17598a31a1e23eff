/*
 * An agent's children (agent_kids.h).
 *
 * What a child sends is relayed up unchanged, since every message names its
 * rank or its host; only HELLO (the child answered) and EXIT (a rank of its
 * subtree is done) are looked at on the way.  A child's shell that ends
 * while ranks of its subtree have not all exited is a lost subtree: LOST
 * goes up naming the child's host and its subtree, and the child's own
 * children, their link closed, end their ranks.  Output keeps its order per
 * rank because a rank's lines take one path up.
 */
#include "agent_kids.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void send_up(struct agent_kids *k, uint32_t type, const void *head, size_t head_len,
                    const void *tail, size_t tail_len)
{
    if (*k->up_ok)
        link_queue(k->up, type, head, head_len, tail, tail_len);
}

int kids_start(struct agent_kids *k, const struct agent_setup *s, const sigset_t *mask,
               char *why, size_t why_len)
{
    k->nprocs = s->nprocs;
    k->nhosts = s->nhosts;
    k->timeout = s->timeout;
    k->jobid = s->jobid;
    k->mask = *mask;
    int *firsts = calloc((size_t)(s->degree > 0 ? s->degree : s->last - s->host) + 1,
                         sizeof *firsts);
    if (firsts == NULL) {
        snprintf(why, why_len, "out of memory starting the hosts of its subtree");
        return -1;
    }
    k->count = tree_split(s->host + 1, s->last, s->degree, firsts);
    k->child = calloc((size_t)k->count + 1, sizeof *k->child);
    char *remote_cmd = tree_agent_command();
    if (k->child == NULL || remote_cmd == NULL) {
        snprintf(why, why_len, "out of memory starting the hosts of its subtree");
        free(firsts);
        free(remote_cmd);
        k->count = 0;
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < k->count; i++) {
        struct tree_child *c = &k->child[i];
        c->to_fd = c->from_fd = c->err_fd = -1;
        c->host = firsts[i];
        c->last = tree_child_last(firsts, k->count, i, s->last);
        c->name = strdup(s->names[c->host - s->host - 1]);
        int first, count;
        tree_ranks(s->nprocs, s->nhosts, c->host, c->last, &first, &count);
        c->exited = calloc((size_t)count, 1);
        struct agent_setup mine = *s;
        mine.host = c->host;
        mine.last = c->last;
        mine.names = s->names + (c->host - s->host);
        if (c->name == NULL || c->exited == NULL || setup_queue(&c->out, &mine) != 0 ||
            tree_child_start(c, remote_cmd, mask, k->timeout) != 0) {
            snprintf(why, why_len, "cannot start the agent of host %s (its messages are above)",
                     c->name != NULL ? c->name : "?");
            rc = -1;
            break;
        }
        if (link_flush(c->to_fd, &c->out) != 0)
            tree_child_hang_up(c);
    }
    free(firsts);
    free(remote_cmd);
    return rc;
}

size_t kids_pollfds(const struct agent_kids *k, struct pollfd *pfds, size_t at)
{
    for (int i = 0; i < k->count; i++) {
        const struct tree_child *c = &k->child[i];
        pfds[at++] = (struct pollfd){ .fd = c->from_fd, .events = POLLIN };
        pfds[at++] = (struct pollfd){ .fd = c->err_fd, .events = POLLIN };
        pfds[at++] = (struct pollfd){ .fd = c->out.used ? c->to_fd : -1, .events = POLLOUT };
    }
    return at;
}

static void relay(struct agent_kids *k, struct tree_child *c)
{
    tree_child_read(c);
    uint32_t type, len;
    const uint8_t *payload;
    const char *why = NULL;
    int got, first, count;
    tree_ranks(k->nprocs, k->nhosts, c->host, c->last, &first, &count);
    while ((got = link_next(&c->in, &type, &payload, &len, &why)) == 1) {
        if (type == LINK_HELLO && len >= 4 && (int)gp_wire_get32(payload) == c->host)
            c->hello = 1;
        if (type == LINK_EXIT && len == 8) {
            int rank = (int)gp_wire_get32(payload);
            if (rank >= first && rank < first + count && c->exited != NULL &&
                !c->exited[rank - first]) {
                c->exited[rank - first] = 1;
                c->exits++;
            }
        }
        if (type >= LINK_HELLO) /* never a parent's message back up */
            send_up(k, type, payload, len, NULL, 0);
        link_buf_consume(&c->in, LINK_HDR + (size_t)len);
    }
    if (got < 0) {
        char text[300];
        int n = snprintf(text, sizeof text, "its agent sent %s", why);
        uint8_t head[4];
        gp_wire_put32(head, (uint32_t)c->host);
        send_up(k, LINK_SAY, head, 4, text, (size_t)n);
        tree_child_hang_up(c);
        if (c->pid > 0) /* not yet reaped (never kill(0): that is our own group) */
            kill(c->pid, SIGKILL);
        if (c->from_fd >= 0)
            close(c->from_fd);
        c->from_fd = -1;
        link_buf_free(&c->in);
    }
}

struct say_ctx {
    struct agent_kids *k;
    int host;
};

static void say_lines(void *arg, const char *bytes, size_t n)
{
    struct say_ctx *ctx = arg;
    uint8_t head[4];
    gp_wire_put32(head, (uint32_t)ctx->host);
    while (n > 0) {
        const char *nl = memchr(bytes, '\n', n);
        size_t line = nl != NULL ? (size_t)(nl - bytes) : n;
        send_up(ctx->k, LINK_SAY, head, 4, bytes, line);
        size_t step = nl != NULL ? line + 1 : line;
        bytes += step;
        n -= step;
    }
}

void kids_service(struct agent_kids *k, const struct pollfd *pfds, size_t at)
{
    for (int i = 0; i < k->count; i++, at += 3) {
        struct tree_child *c = &k->child[i];
        if (pfds[at].revents != 0 && pfds[at].fd == c->from_fd && c->from_fd >= 0)
            relay(k, c);
        if (pfds[at + 1].revents != 0 && pfds[at + 1].fd == c->err_fd && c->err_fd >= 0) {
            struct say_ctx ctx = { .k = k, .host = c->host };
            tree_child_read_errors(c, say_lines, &ctx);
        }
        if (c->to_fd >= 0 && c->out.used > 0 && link_flush(c->to_fd, &c->out) != 0)
            tree_child_hang_up(c);
    }
}

int kids_reaped(struct agent_kids *k, pid_t pid, int status)
{
    for (int i = 0; i < k->count; i++) {
        struct tree_child *c = &k->child[i];
        if (tree_sweep_reaped(c, pid))
            return 1;
        if (c->pid != pid || pid <= 0)
            continue;
        c->pid = 0;
        /* What it said before it went still counts (exits above all). */
        if (c->from_fd >= 0)
            relay(k, c);
        if (c->err_fd >= 0) {
            struct say_ctx ctx = { .k = k, .host = c->host };
            tree_child_read_errors(c, say_lines, &ctx);
        }
        tree_child_hang_up(c);
        int first, count;
        tree_ranks(k->nprocs, k->nhosts, c->host, c->last, &first, &count);
        if (c->exits < count) {
            char text[600];
            tree_lost_text(c, status, k->timeout, k->from, text, sizeof text);
            uint8_t head[8];
            gp_wire_put32(head, (uint32_t)c->host);
            gp_wire_put32(head + 4, (uint32_t)c->last);
            send_up(k, LINK_LOST, head, 8, text, strlen(text));
            if (*k->up_ok) /* not while the whole subtree is being taken down */
                tree_sweep_start(c, status, k->jobid, &k->mask, k->timeout);
        }
        return 1;
    }
    return 0;
}

void kids_tick(struct agent_kids *k, double now)
{
    for (int i = 0; i < k->count; i++) {
        struct tree_child *c = &k->child[i];
        if (c->pid > 0 && !c->hello && !c->timed_out && now >= c->deadline) {
            c->timed_out = 1;
            kill(c->pid, SIGKILL);
        }
        tree_sweep_tick(c, now);
    }
}

void kids_signal(struct agent_kids *k, int sig)
{
    for (int i = 0; i < k->count; i++)
        tree_child_signal(&k->child[i], sig);
}

void kids_hang_up(struct agent_kids *k)
{
    for (int i = 0; i < k->count; i++)
        tree_child_hang_up(&k->child[i]);
}

int kids_active(const struct agent_kids *k)
{
    for (int i = 0; i < k->count; i++)
        if (k->child[i].pid > 0 || k->child[i].sweep_pid > 0)
            return 1;
    return 0;
}

void kids_free(struct agent_kids *k)
{
    for (int i = 0; i < k->count; i++)
        tree_child_free(&k->child[i]);
    free(k->child);
    k->child = NULL;
    k->count = 0;
}
