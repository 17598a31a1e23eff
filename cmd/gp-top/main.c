/*
 * gp-top: watch a running gp job's credits, tickets and buffers (gp-top(1)).
 * Batch output needs no terminal; the interactive views need one.
 */
#include "gp_top.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    struct top_opts opts = { 0 };
    int status = top_parse_options(argc, (const char **)argv, &opts);
    if (status != TOP_CONTINUE)
        return status;
    if (opts.batch) {
        status = batch_run(&opts);
    } else if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        top_say("the interactive view needs a terminal; use -b (or --json) for text output");
        status = 1;
    } else {
        setlocale(LC_ALL, "");
        status = screen_run(&opts);
    }
    free((void *)opts.job);
    return status;
}
