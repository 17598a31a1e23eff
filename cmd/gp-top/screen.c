/*
 * The interactive loop: refresh the job every -d seconds, draw the current
 * view, and wait for a key no longer than until the next refresh.  ncurses
 * turns a terminal resize into KEY_RESIZE; every frame is drawn from
 * scratch at the current size, so a resize needs nothing but a redraw.
 * When the job ends gp-top says so and keeps the last state on screen.
 */
#include "screen.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

int body_rows(void)
{
    int rows = LINES - BODY_TOP - 1;
    return rows > 0 ? rows : 0;
}

int keep_visible(int scroll, int cursor, int rows, int total)
{
    if (cursor < scroll)
        scroll = cursor;
    if (rows > 0 && cursor >= scroll + rows)
        scroll = cursor - rows + 1;
    if (scroll > total - rows)
        scroll = total - rows;
    return scroll < 0 ? 0 : scroll;
}

static void open_job(struct ui *ui, const char *jobid)
{
    char why[512];
    if (ui->have_job)
        sample_close(&ui->s);
    ui->have_job = sample_open(&ui->s, jobid, ui->opts->delay, why, sizeof why) == 0;
    ui->scroll = ui->cursor = 0;
    ui->mrow = ui->mcol = 0;
    if (ui->have_job)
        snprintf(ui->message, sizeof ui->message, "watching job %s", jobid);
    else
        snprintf(ui->message, sizeof ui->message, "%s", why);
}

static void draw_title(struct ui *ui)
{
    char stamp[16] = "--:--:--";
    struct tm tm;
    if (ui->have_job && localtime_r(&ui->s.sampled_wall.tv_sec, &tm) != NULL)
        strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
    attron(A_BOLD);
    if (ui->have_job)
        mvprintw(0, 0, "gp-top - job %s - %u ranks, %u live - %s - every %gs%s", ui->s.jobid,
                 ui->s.nodes, ui->s.live, stamp, ui->opts->delay, ui->paused ? " - PAUSED" : "");
    else
        mvprintw(0, 0, "gp-top - no job - every %gs", ui->opts->delay);
    attroff(A_BOLD);
    if (ui->have_job && ui->s.ended) {
        attron(A_BOLD | A_REVERSE);
        mvprintw(1, 0, "job %s has ended; showing its last state (j: other jobs, q: quit)",
                 ui->s.jobid);
        attroff(A_BOLD | A_REVERSE);
    } else if (ui->message[0] != '\0') {
        mvprintw(1, 0, "%s", ui->message);
    } else if (ui->have_job) {
        char line[512];
        job_summary(&ui->s, line, sizeof line);
        mvprintw(1, 0, "%s", line);
    }
}

static void draw_help_line(const struct ui *ui)
{
    char line[512];
    snprintf(line, sizeof line, " n Nodes  c Credits  p Peer  t Timeline  j Jobs  "
             "<> Sort:%s%s  r Rev  space %s  ? Help  q Quit", top_columns[ui->sort].key,
             ui->reverse ? "^" : "", ui->paused ? "Resume" : "Pause");
    attron(A_REVERSE);
    mvprintw(LINES - 1, 0, "%-*.*s", COLS, COLS, line);
    attroff(A_REVERSE);
}

static void draw(struct ui *ui)
{
    erase();
    if (LINES < 6 || COLS < 20) {
        mvprintw(0, 0, "gp-top: terminal too small");
        refresh();
        return;
    }
    draw_title(ui);
    if (ui->view == VIEW_HELP)
        view_help_draw(ui);
    else if (ui->view == VIEW_JOBS || !ui->have_job)
        view_jobs_draw(ui);
    else if (ui->view == VIEW_MATRIX)
        view_matrix_draw(ui);
    else if (ui->view == VIEW_PEER)
        view_peer_draw(ui);
    else if (ui->view == VIEW_TIMELINE)
        view_timeline_draw(ui);
    else
        view_nodes_draw(ui);
    draw_help_line(ui);
    refresh();
}

static void switch_view(struct ui *ui, enum top_view view)
{
    if (view == VIEW_HELP && ui->view != VIEW_HELP)
        ui->back = ui->view;
    ui->view = view;
    ui->scroll = 0;
    ui->cursor = 0;
    ui->message[0] = '\0';
}

/* Keys every view shares; 0 to quit. */
static int common_key(struct ui *ui, int key)
{
    switch (key) {
    case 'q': case 'Q': return 0;
    case 'n': switch_view(ui, VIEW_NODES); break;
    case 'c': switch_view(ui, VIEW_MATRIX); break;
    case 'p': switch_view(ui, VIEW_PEER); break;
    case 't': switch_view(ui, VIEW_TIMELINE); break;
    case 'j': switch_view(ui, VIEW_JOBS); break;
    case '?': case 'h': switch_view(ui, ui->view == VIEW_HELP ? ui->back : VIEW_HELP); break;
    case ' ': ui->paused = !ui->paused; break;
    case '<': ui->sort = (ui->sort + COL_COUNT - 1) % COL_COUNT; break;
    case '>': ui->sort = (ui->sort + 1) % COL_COUNT; break;
    case 'r': ui->reverse = !ui->reverse; break;
    default: break;
    }
    return 1;
}

static int handle_key(struct ui *ui, int key)
{
    char open[TOP_JOBID_MAX] = "";
    int taken = 0;
    if (ui->view == VIEW_HELP && key != ERR && key != KEY_RESIZE && key != 'q' && key != 'Q') {
        switch_view(ui, ui->back); /* any key leaves help, as in top */
        return 1;
    }
    if (ui->view == VIEW_JOBS || !ui->have_job)
        taken = view_jobs_key(ui, key, open, sizeof open);
    else if (ui->view == VIEW_NODES)
        taken = view_nodes_key(ui, key);
    else if (ui->view == VIEW_MATRIX)
        taken = view_matrix_key(ui, key);
    else if (ui->view == VIEW_PEER)
        taken = view_peer_key(ui, key);
    else if (ui->view == VIEW_TIMELINE)
        taken = view_timeline_key(ui, key);
    if (open[0] != '\0') {
        open_job(ui, open);
        ui->view = VIEW_NODES;
    }
    return taken ? 1 : common_key(ui, key);
}

/* Refreshes the job (or looks for one) when its time has come. */
static void tick(struct ui *ui, uint64_t *next)
{
    uint64_t now = top_now_ns();
    if (now < *next || ui->paused)
        return;
    *next = now + (uint64_t)(ui->opts->delay * 1e9);
    if (!ui->have_job && ui->opts->job == NULL) {
        char jobid[TOP_JOBID_MAX], why[512];
        if (jobs_newest(jobid, sizeof jobid, why, sizeof why) == 0)
            open_job(ui, jobid);
        else
            snprintf(ui->message, sizeof ui->message, "%s; waiting for one", why);
    } else if (ui->have_job && !ui->s.ended) {
        sample_refresh(&ui->s);
    }
}

static void setup_colors(struct ui *ui)
{
    ui->colors = has_colors();
    if (!ui->colors)
        return;
    start_color();
    use_default_colors();
    /* the heat map: share of the per-peer maximum, coolest first */
    init_pair(1, COLOR_BLACK, COLOR_BLUE);
    init_pair(2, COLOR_BLACK, COLOR_CYAN);
    init_pair(3, COLOR_BLACK, COLOR_YELLOW);
    init_pair(4, COLOR_BLACK, COLOR_RED);
}

int screen_run(const struct top_opts *opts)
{
    struct ui ui;
    memset(&ui, 0, sizeof ui);
    ui.opts = opts;
    ui.view = opts->first_view;
    ui.sort = opts->sort;
    ui.reverse = opts->reverse;
    ui.peer_rank = opts->peer_rank;
    if (opts->job != NULL) {
        char why[512];
        if (sample_open(&ui.s, opts->job, opts->delay, why, sizeof why) != 0) {
            top_say("%s", why);
            return 1;
        }
        ui.have_job = 1;
    }
    initscr();
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    setup_colors(&ui);
    uint64_t next = 0;
    for (int running = 1; running;) {
        tick(&ui, &next);
        draw(&ui);
        uint64_t now = top_now_ns();
        int wait_ms = next > now ? (int)((next - now) / 1000000) + 1 : 1;
        timeout(ui.paused || (ui.have_job && ui.s.ended) ? 1000 : wait_ms);
        int key = getch();
        if (key != ERR)
            running = handle_key(&ui, key);
    }
    endwin();
    if (ui.have_job)
        sample_close(&ui.s);
    return 0;
}
