/*
 * The credit matrix: LoanCredits of each lender (row) to each borrower
 * (column), as a heat map coloured by the share of the per-peer maximum
 * (GASNET_PORTAL_MAX_CRED_PER_NODE).  A large job scrolls: arrows move one
 * rank, PgUp/PgDn a screenful, Home back to the corner.
 */
#include "screen.h"

#include <curses.h>

#define CELL 5
#define LABEL 7

static int heat_pair(unsigned credits, unsigned max)
{
    if (credits == 0 || max == 0)
        return 0;
    double share = (double)credits / max;
    return share < 0.25 ? 1 : share < 0.5 ? 2 : share < 0.75 ? 3 : 4;
}

/* Without colours, a mark after the number says the same. */
static char heat_mark(int pair)
{
    return " .:*#"[pair];
}

static unsigned max_per_node(const struct top_sample *s)
{
    for (uint32_t r = 0; r < s->nodes; r++)
        if (s->rank[r].seen)
            return s->rank[r].page->max_per_node;
    return 0;
}

static void draw_cell(const struct ui *ui, int y, int x, const struct top_rank *lender,
                      uint32_t borrower, unsigned max)
{
    if (!lender->seen) {
        mvprintw(y, x, "%*s", CELL, "-");
        return;
    }
    unsigned credits = lender->page->peer[borrower].loan_credits;
    int pair = heat_pair(credits, max);
    if (ui->colors && pair) {
        attron(COLOR_PAIR(pair));
        mvprintw(y, x, "%*u ", CELL - 1, credits);
        attroff(COLOR_PAIR(pair));
    } else {
        mvprintw(y, x, "%*u%c", CELL - 1, credits, ui->colors ? ' ' : heat_mark(pair));
    }
}

void view_matrix_draw(struct ui *ui)
{
    const struct top_sample *s = &ui->s;
    unsigned max = max_per_node(s);
    int cols = (COLS - LABEL) / CELL, rows = body_rows() - 2;
    cols = cols < 1 ? 1 : cols;
    rows = rows < 1 ? 1 : rows;
    if (ui->mrow + (uint32_t)rows > s->nodes)
        ui->mrow = s->nodes > (uint32_t)rows ? s->nodes - (uint32_t)rows : 0;
    if (ui->mcol + (uint32_t)cols > s->nodes)
        ui->mcol = s->nodes > (uint32_t)cols ? s->nodes - (uint32_t)cols : 0;
    uint32_t last_row = ui->mrow + (uint32_t)rows < s->nodes ? ui->mrow + (uint32_t)rows : s->nodes;
    uint32_t last_col = ui->mcol + (uint32_t)cols < s->nodes ? ui->mcol + (uint32_t)cols : s->nodes;
    mvprintw(2, 0, "Credit matrix: LoanCredits, lender (row) x borrower (column); lenders %u-%u, "
             "borrowers %u-%u of %u", ui->mrow, last_row - 1, ui->mcol, last_col - 1, s->nodes);
    attron(A_BOLD | A_UNDERLINE);
    mvprintw(BODY_TOP, 0, "%*s", LABEL, "lend\\to");
    for (uint32_t p = ui->mcol; p < last_col; p++)
        printw("%*u ", CELL - 1, p);
    attroff(A_BOLD | A_UNDERLINE);
    for (uint32_t r = ui->mrow; r < last_row; r++) {
        int y = BODY_TOP + 1 + (int)(r - ui->mrow);
        attron(A_BOLD);
        mvprintw(y, 0, "%*u", LABEL - 1, r);
        attroff(A_BOLD);
        for (uint32_t p = ui->mcol; p < last_col; p++)
            draw_cell(ui, y, LABEL + (int)(p - ui->mcol) * CELL, &s->rank[r], p, max);
    }
    mvprintw(LINES - 2, 0, "share of the per-peer maximum (%u):", max);
    const char *labels[] = { "", " <25% ", " <50% ", " <75% ", " >=75% " };
    for (int pair = 1; pair <= 4; pair++) {
        if (ui->colors) {
            attron(COLOR_PAIR(pair));
            printw("%s", labels[pair]);
            attroff(COLOR_PAIR(pair));
            printw(" ");
        } else {
            printw(" %c%s", heat_mark(pair), labels[pair]);
        }
    }
    printw("  arrows/PgUp/PgDn scroll, Home: top left");
}

static void move_by(uint32_t *at, int by, uint32_t nodes)
{
    long next = (long)*at + by;
    if (next < 0)
        next = 0;
    if (next >= (long)nodes)
        next = nodes > 0 ? (long)nodes - 1 : 0;
    *at = (uint32_t)next;
}

int view_matrix_key(struct ui *ui, int key)
{
    int rows = body_rows() > 3 ? body_rows() - 3 : 1, cols = (COLS - LABEL) / CELL;
    switch (key) {
    case KEY_UP: move_by(&ui->mrow, -1, ui->s.nodes); break;
    case KEY_DOWN: move_by(&ui->mrow, 1, ui->s.nodes); break;
    case KEY_LEFT: move_by(&ui->mcol, -1, ui->s.nodes); break;
    case KEY_RIGHT: move_by(&ui->mcol, 1, ui->s.nodes); break;
    case KEY_PPAGE: move_by(&ui->mrow, -rows, ui->s.nodes); break;
    case KEY_NPAGE: move_by(&ui->mrow, rows, ui->s.nodes); break;
    case KEY_SLEFT: move_by(&ui->mcol, -(cols > 1 ? cols : 1), ui->s.nodes); break;
    case KEY_SRIGHT: move_by(&ui->mcol, cols > 1 ? cols : 1, ui->s.nodes); break;
    case KEY_HOME: ui->mrow = ui->mcol = 0; break;
    default: return 0;
    }
    return 1;
}
