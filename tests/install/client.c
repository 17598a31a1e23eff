/* A client built only from the installed gasnet.h and pkg-config flags. */
#include <gasnet.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
#if !defined(GASNET_SEQ) && !defined(GASNET_PAR)
#error "pkg-config did not name the threading model"
#endif
    if (GASNET_OK != 0 || strcmp(gasnet_ErrorName(GASNET_ERR_BAD_ARG), "GASNET_ERR_BAD_ARG") != 0)
        return 1;
    printf("%s\n", gasnet_ErrorDesc(GASNET_ERR_NOT_INIT));
    return 0;
}
