/* The host's own volk (Debian's /usr/include/volk.c), as an engine that
 * loads Vulkan through volk links it. Sinew itself defines no vk* symbols. */
#include <volk.c>
