/*
 * The timeline: epochs ending and credits revoked, newest first, merged
 * from every rank's event ring (stats_page.h) with the time each was
 * published.  Up/down scroll back in time.
 */
#include "screen.h"

#include <curses.h>

void view_timeline_draw(struct ui *ui)
{
    const struct top_sample *s = &ui->s;
    char line[256];
    mvprintw(2, 0, "Timeline: %zu epoch and revoke events, newest first%s", s->timeline_len,
             s->timeline_dropped ? " (some were overwritten on a page before gp-top read them)"
                                 : "");
    event_header(line, sizeof line);
    attron(A_BOLD | A_UNDERLINE);
    mvprintw(BODY_TOP, 0, "%-*.*s", COLS, COLS, line);
    attroff(A_BOLD | A_UNDERLINE);
    int rows = body_rows() - 1;
    ui->scroll = keep_visible(ui->scroll, ui->scroll, rows, (int)s->timeline_len);
    if (s->timeline_len == 0)
        mvprintw(BODY_TOP + 1, 0, "no epoch has ended and nothing was revoked yet");
    for (int i = 0; i < rows && (size_t)(ui->scroll + i) < s->timeline_len; i++) {
        const struct top_event *e = &s->timeline[s->timeline_len - 1 - (size_t)(ui->scroll + i)];
        event_row(s, e, line, sizeof line);
        mvprintw(BODY_TOP + 1 + i, 0, "%.*s", COLS, line);
    }
}

int view_timeline_key(struct ui *ui, int key)
{
    int page = body_rows() > 2 ? body_rows() - 2 : 1;
    switch (key) {
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
