/* The library's version, as compiled (the header's macros give the version
 * a caller was compiled against). */
#include <sinew/linalg.h>
#include "sinew/core.h"
#include "sinew/version.h"

uint32_t sinew_version(void)
{
    return (uint32_t)SINEW_VERSION;
}

const char *sinew_version_string(void)
{
    return SINEW_VERSION_STRING;
}
