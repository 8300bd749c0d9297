/* placeholder */
#include "asset_internal.h"
int snw_gltf_wanted(const sinew_asset_desc *desc) { (void)desc; return 0; }
int snw_gltf_load(snw_import_ctx *c, snw_confine *cf, sinew_asset **out) { (void)c; (void)cf; (void)out; return SNW_GLTF_NOT_V2; }
