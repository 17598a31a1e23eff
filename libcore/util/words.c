/* Shell-style word splitting (words.h). */
#include "util/words.h"

#include <stdlib.h>
#include <string.h>

void gp_words_free(char **words)
{
    for (size_t i = 0; words != NULL && words[i] != NULL; i++)
        free(words[i]);
    free(words);
}

int gp_words_push(char ***words, size_t *count, char *word)
{
    char **grown = realloc(*words, (*count + 2) * sizeof *grown);
    if (grown == NULL) {
        free(word);
        return -1;
    }
    *words = grown;
    grown[(*count)++] = word;
    grown[*count] = NULL;
    return 0;
}

char **gp_words_split(const char *text, const char **why)
{
    char **words = calloc(1, sizeof *words);
    size_t count = 0;
    const char *p = text;
    *why = NULL;
    while (words != NULL) {
        p += strspn(p, " \t\n");
        if (*p == '\0')
            return words;
        char *word = malloc(strlen(p) + 1);
        size_t len = 0;
        if (word == NULL)
            break;
        char quote = 0;
        for (; *p != '\0' && (quote || strchr(" \t\n", *p) == NULL); p++) {
            if (quote != 0 && *p == quote) {
                quote = 0;
            } else if (quote == 0 && (*p == '\'' || *p == '"')) {
                quote = *p;
            } else if (*p == '\\' && quote != '\'' && p[1] != '\0') {
                word[len++] = *++p;
            } else {
                word[len++] = *p;
            }
        }
        word[len] = '\0';
        if (quote != 0) {
            *why = quote == '\'' ? "a single quote is not closed" : "a double quote is not closed";
            free(word);
            break;
        }
        if (gp_words_push(&words, &count, word) != 0)
            break;
    }
    gp_words_free(words);
    if (*why == NULL)
        *why = "out of memory";
    return NULL;
}
