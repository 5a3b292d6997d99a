/*
 * main.c - the network control program's entry: boot (ncp_boot: block checks, info block,
 * fw_state = ready), then the event loop forever (loop.c), sleeping in wfi when idle.
 */
#include "loop.h"
#include "ncp.h"
#include "ncp_rt.h"
#include "xlate.h"

/* ncp.img has host endpoints (issue 15): this strong reference links epc.c (epc.h: the shared
 * paths' references are weak; not including it keeps this one strong) */
void epc_poll(void);
static void (*const ncp_epc_linked)(void) __attribute__((used)) = epc_poll;

int main(void)
{
    ncp_boot();
    /* the console without printf: newlib's stdio would cost the image ~6 KiB of .text */
    static const struct {
        const char *text;
        uint32_t value;
    } banner[] = {{"ncp ", NCP_VERSION_MAJOR}, {".", NCP_VERSION_MINOR}, {": node ", 0}, {NCP_LOOKUP_STATIC ? ", static lookup, C=" : ", dynamic lookup, C=", NCP_CACHE_ENTRIES},
                  {" L=", NCP_CACHE_LINE}, {" A=", NCP_CACHE_WAYS}, {", MTU ", NCP_MTU}};
    for (unsigned i = 0; i < sizeof banner / sizeof banner[0]; i++) {
        ncp_console_puts(banner[i].text);
        ncp_console_dec(i == 2 ? ncp.me : banner[i].value);
    }
    ncp_console_puts(NCP_NACK ? ", miss NACKs, lookup " : ", seed-faithful timeouts, lookup ");
    ncp_console_dec(xlate_lookup_bytes());
    ncp_console_puts(" bytes\n");
    ncp_run(0); /* never returns */
    return 0;
}
