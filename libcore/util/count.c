#include "util/count.h"

#include <errno.h>
#include <stdlib.h>

int gp_parse_count(const char *text, long min, long max, long *out)
{
    char *end = NULL;
    if (text == NULL || text[0] < '0' || text[0] > '9')
        return -1;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (*end != '\0' || errno != 0 || value < min || value > max)
        return -1;
    *out = value;
    return 0;
}
