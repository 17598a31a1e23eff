/*
 * The peer view: one rank's conn_state records, one row per peer, under
 * its node-wide counters.  Left/right (or -/+) step to the previous or next
 * rank; up/down scroll the peers.
 */
#include "screen.h"

#include <curses.h>

void view_peer_draw(struct ui *ui)
{
    const struct top_sample *s = &ui->s;
    char line[512], line2[512];
    if (ui->peer_rank >= s->nodes)
        ui->peer_rank = s->nodes - 1;
    uint32_t rank = ui->peer_rank;
    mvprintw(2, 0, "Peer view of rank %u (left/right: other ranks); flags: I sys message in "
             "flight, Z zero reply, E epoch reached, S scavenge list", rank);
    peer_summary(s, rank, line, line2, sizeof line);
    mvprintw(BODY_TOP, 0, "%.*s", COLS, line);
    mvprintw(BODY_TOP + 1, 0, "%.*s", COLS, line2);
    if (!s->rank[rank].seen)
        return;
    peer_header(line, sizeof line);
    attron(A_BOLD | A_UNDERLINE);
    mvprintw(BODY_TOP + 2, 0, "%-*.*s", COLS, COLS, line);
    attroff(A_BOLD | A_UNDERLINE);
    int rows = body_rows() - 3;
    ui->scroll = keep_visible(ui->scroll, ui->scroll, rows, (int)s->nodes);
    for (int i = 0; i < rows && ui->scroll + i < (int)s->nodes; i++) {
        uint32_t peer = (uint32_t)(ui->scroll + i);
        peer_row(s->rank[rank].page, peer, line, sizeof line);
        attr_t attr = peer == rank ? A_DIM : 0; /* a node's record of itself */
        attron(attr);
        mvprintw(BODY_TOP + 3 + i, 0, "%.*s", COLS, line);
        attroff(attr);
    }
}

int view_peer_key(struct ui *ui, int key)
{
    int page = body_rows() > 4 ? body_rows() - 4 : 1;
    switch (key) {
    case KEY_LEFT: case '-':
        ui->peer_rank = ui->peer_rank > 0 ? ui->peer_rank - 1 : ui->s.nodes - 1;
        break;
    case KEY_RIGHT: case '+':
        ui->peer_rank = ui->peer_rank + 1 < ui->s.nodes ? ui->peer_rank + 1 : 0;
        break;
    case KEY_UP: ui->scroll--; break;
    case KEY_DOWN: ui->scroll++; break;
    case KEY_PPAGE: ui->scroll -= page; break;
    case KEY_NPAGE: ui->scroll += page; break;
    case KEY_HOME: ui->scroll = 0; break;
    default: return 0;
    }
    if (ui->scroll < 0)
        ui->scroll = 0;
    return 1;
}
