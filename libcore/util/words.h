/*
 * Splitting a variable's value into words the way sh(1) would: white space
 * separates, single quotes keep everything, double quotes keep all but a
 * backslash escape, a backslash outside quotes keeps the next character.
 * For GASNET_SSH_OPTIONS (seed 003: "-o 'StrictHostKeyChecking no'" is two
 * words), read by gp-run and gp-check alike.
 */
#ifndef GP_UTIL_WORDS_H
#define GP_UTIL_WORDS_H

#include <stddef.h>

/* A NULL-terminated array of malloc'd words; NULL with *why set if the text
 * is unbalanced (an unclosed quote) or memory ran out. */
char **gp_words_split(const char *text, const char **why);
void gp_words_free(char **words);
/* Appends word (taken over; freed on failure) to a NULL-terminated array of count words. */
int gp_words_push(char ***words, size_t *count, char *word);

#endif
