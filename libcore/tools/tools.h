/*
 * What the files of libcore/tools share among themselves.  Everything a
 * client sees is in include/gasnet_tools.h; nothing here is exported.
 */
#ifndef GP_TOOLS_TOOLS_H
#define GP_TOOLS_TOOLS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The parser behind gasnett_parse_int and gasnett_getenv_int_withdefault.
 * Returns GASNET_OK, or GASNET_ERR_BAD_ARG leaving *out untouched.
 */
int gp_tools_parse_int(const char *text, uint64_t mem_size_multiplier, int64_t *out);
/* The accepted form, for the error sentence: "an integer (...)" or "a memory size (...)". */
void gp_tools_int_form(uint64_t mem_size_multiplier, char *buf, size_t len);

#endif
