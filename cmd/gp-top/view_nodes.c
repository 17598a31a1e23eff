/*
 * The node table: one row per rank (columns.c), sorted on the chosen
 * column; up/down move the selection, Enter opens the peer view of the
 * selected rank.
 */
#include "screen.h"

#include <curses.h>
#include <stdlib.h>

void view_nodes_draw(struct ui *ui)
{
    const struct top_sample *s = &ui->s;
    char line[512];
    uint32_t *order = malloc(s->nodes * sizeof *order);
    if (order == NULL)
        return;
    columns_order(s, ui->sort, ui->reverse, order);
    int rows = body_rows() - 1;
    ui->cursor = ui->cursor >= (int)s->nodes ? (int)s->nodes - 1 : ui->cursor;
    ui->scroll = keep_visible(ui->scroll, ui->cursor, rows, (int)s->nodes);
    mvprintw(2, 0, "Nodes: %u ranks, sorted on %s%s; Enter: peer view of the selected rank",
             s->nodes, top_columns[ui->sort].name, ui->reverse ? " (reversed)" : "");
    columns_header(ui->sort, ui->reverse, line, sizeof line);
    attron(A_BOLD | A_UNDERLINE);
    mvprintw(BODY_TOP, 0, "%-*.*s", COLS, COLS, line);
    attroff(A_BOLD | A_UNDERLINE);
    for (int i = 0; i < rows && ui->scroll + i < (int)s->nodes; i++) {
        int index = ui->scroll + i;
        uint32_t rank = order[index];
        columns_row(s, rank, line, sizeof line);
        int gone = s->rank[rank].state != RANK_LIVE && s->rank[rank].state != RANK_IDLE;
        attr_t attr = (index == ui->cursor ? A_REVERSE : 0) | (gone ? A_DIM : 0);
        attron(attr);
        mvprintw(BODY_TOP + 1 + i, 0, "%-*.*s", COLS, COLS, line);
        attroff(attr);
    }
    free(order);
}

int view_nodes_key(struct ui *ui, int key)
{
    int page = body_rows() > 2 ? body_rows() - 2 : 1;
    switch (key) {
    case KEY_UP: ui->cursor--; break;
    case KEY_DOWN: ui->cursor++; break;
    case KEY_PPAGE: ui->cursor -= page; break;
    case KEY_NPAGE: ui->cursor += page; break;
    case KEY_HOME: ui->cursor = 0; break;
    case KEY_END: ui->cursor = (int)ui->s.nodes - 1; break;
    case '\n': case '\r': case KEY_ENTER: {
        uint32_t *order = malloc(ui->s.nodes * sizeof *order);
        if (order == NULL)
            return 1;
        columns_order(&ui->s, ui->sort, ui->reverse, order);
        ui->peer_rank = order[ui->cursor];
        free(order);
        ui->view = VIEW_PEER;
        ui->scroll = 0;
        return 1;
    }
    default: return 0;
    }
    if (ui->cursor >= (int)ui->s.nodes)
        ui->cursor = (int)ui->s.nodes - 1;
    if (ui->cursor < 0)
        ui->cursor = 0;
    return 1;
}
