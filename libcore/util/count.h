/*
 * A count on a command line (-n, -N, --iters, --ssh-timeout): a whole
 * number written in decimal digits only -- no sign, no blank, no 0x, no
 * unit -- so that "-n 1e3" or "-n ' 4'" is refused rather than read as
 * something else.  Shared by gp-run, gp-check and gp-bench, which word the
 * error themselves.
 */
#ifndef GP_UTIL_COUNT_H
#define GP_UTIL_COUNT_H

/* 0 with *out set when text is such a number in [min, max]; -1 otherwise. */
int gp_parse_count(const char *text, long min, long max, long *out);

#endif
