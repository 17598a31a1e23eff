/*
 * The job list: the current user's gp jobs on this host, newest first,
 * read afresh at every frame.  Up/down select, Enter watches the selected
 * job.  Other users' jobs are not listed (jobs.c).
 */
#include "screen.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void view_jobs_draw(struct ui *ui)
{
    struct top_job *jobs = NULL;
    size_t count = 0, foreign = 0;
    char line[256];
    jobs_find(&jobs, &count, &foreign);
    mvprintw(2, 0, "Jobs: %zu of yours on this host, newest first; Enter: watch the selected job",
             count);
    jobs_header(line, sizeof line);
    attron(A_BOLD | A_UNDERLINE);
    mvprintw(BODY_TOP, 0, "%-*.*s", COLS, COLS, line);
    attroff(A_BOLD | A_UNDERLINE);
    if (ui->cursor >= (int)count)
        ui->cursor = count > 0 ? (int)count - 1 : 0;
    int rows = body_rows() - 1;
    ui->scroll = keep_visible(ui->scroll, ui->cursor, rows, (int)count);
    for (int i = 0; i < rows && (size_t)(ui->scroll + i) < count; i++) {
        const struct top_job *job = &jobs[ui->scroll + i];
        jobs_row(job, ui->have_job && strcmp(job->jobid, ui->s.jobid) == 0, line, sizeof line);
        attr_t attr = ui->scroll + i == ui->cursor ? A_REVERSE : 0;
        attron(attr);
        mvprintw(BODY_TOP + 1 + i, 0, "%-*.*s", COLS, COLS, line);
        attroff(attr);
    }
    if (count == 0)
        mvprintw(BODY_TOP + 1, 0, "none running");
    free(jobs);
}

int view_jobs_key(struct ui *ui, int key, char *open, size_t len)
{
    switch (key) {
    case KEY_UP: ui->cursor = ui->cursor > 0 ? ui->cursor - 1 : 0; return 1;
    case KEY_DOWN: ui->cursor++; return 1; /* bounded at the next draw */
    case '\n': case '\r': case KEY_ENTER: {
        struct top_job *jobs = NULL;
        size_t count = 0, foreign = 0;
        jobs_find(&jobs, &count, &foreign);
        if ((size_t)ui->cursor < count)
            snprintf(open, len, "%s", jobs[ui->cursor].jobid);
        free(jobs);
        return 1;
    }
    default: return 0;
    }
}
