/*
 * ncp_prod.c - linked into the firmware test images that are the production NCP plus test hooks
 * (tests/fw/ncp_images.cmake): this strong reference links epc.c (host endpoints, ABI 2.2), as
 * firmware/src/main.c does for ncp.img (the shared paths' references to it are weak). The
 * fast-path benchmark image does not link it.
 */
void epc_poll(void);
static void (*const ncp_prod_epc_linked)(void) __attribute__((used)) = epc_poll;
