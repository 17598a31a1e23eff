/*
 * The interactive views' shared state (screen.c owns it; view_*.c draw it).
 * Rows 0-1 are the title and the job line, row 2 the view's own title,
 * rows 3 to LINES-2 its body, and the last row the key help line.
 */
#ifndef GP_TOP_SCREEN_H
#define GP_TOP_SCREEN_H

#include "gp_top.h"

#define BODY_TOP 3

struct ui {
    const struct top_opts *opts;
    struct top_sample s;
    int have_job;
    enum top_view view, back;  /* back: where help returns to */
    int paused;
    int sort, reverse;
    uint32_t peer_rank;
    int scroll;                /* first body row shown (nodes, peer, timeline) */
    int cursor;                /* nodes: the selected row; jobs: the selected job */
    uint32_t mrow, mcol;       /* credit matrix: first lender and borrower shown */
    int colors;                /* the terminal has colours */
    char message[600];         /* shown on row 1 until replaced */
};

/* Lines the body has room for. */
int body_rows(void);
/* Adjusts a scroll offset to keep cursor visible in rows lines of total. */
int keep_visible(int scroll, int cursor, int rows, int total);

void view_nodes_draw(struct ui *ui);
int view_nodes_key(struct ui *ui, int key);
void view_matrix_draw(struct ui *ui);
int view_matrix_key(struct ui *ui, int key);
void view_peer_draw(struct ui *ui);
int view_peer_key(struct ui *ui, int key);
void view_timeline_draw(struct ui *ui);
int view_timeline_key(struct ui *ui, int key);
void view_jobs_draw(struct ui *ui);
/* 1: the key was the view's; sets *open to a job to switch to. */
int view_jobs_key(struct ui *ui, int key, char *open, size_t len);
void view_help_draw(struct ui *ui);

#endif
