/*
 * The '?' screen: every key, in the words of gp-top(1).  Any key returns.
 */
#include "screen.h"

#include <curses.h>

const char *const top_keys_help[] = {
    "n          node table: one row per rank",
    "c          credit matrix: LoanCredits of each lender to each borrower",
    "p          peer view: the conn_state records of one rank (left/right: other ranks)",
    "t          timeline: epochs ending and credits revoked, newest first",
    "j          job list: your gp jobs on this host (Enter: watch the selected one)",
    "< >        node table: sort on the column to the left / right",
    "r          reverse the sort order",
    "space      pause / resume refreshing",
    "arrows     move the selection or scroll; PgUp PgDn Home End",
    "Enter      node table: peer view of the selected rank",
    "? h        this help (any key returns)",
    "q          quit",
    NULL,
};

void view_help_draw(struct ui *ui)
{
    (void)ui;
    mvprintw(2, 0, "Help: keys (the columns are described in gp-top(1))");
    int y = BODY_TOP;
    for (int i = 0; top_keys_help[i] != NULL && y < LINES - 1; i++)
        mvprintw(y++, 2, "%s", top_keys_help[i]);
    if (y + 1 < LINES - 1)
        mvprintw(y + 1, 2, "Node table columns: BANK BankedCredits, LENT LoanCredits to the "
                 "others, SENDTK/TMPMD tickets used/limit,");
    if (y + 2 < LINES - 1)
        mvprintw(y + 2, 2, "REQSB/RPLSB chunks free/total, REQRB buffers waiting/total, "
                 "event and stall rates per second, CBHITS.");
}
