/*
 * misstab.h - the table of outstanding miss requests (docs/host-interface.md, "Lookup caches,
 * misses and fills"). One entry per missing (cache, pid, line): later misses on the same line
 * merge into it instead of posting another event. Bounded: when full, the caller drops (receive
 * path) or keeps the request parked (send path) and counts it; nothing is overwritten.
 * An entry leaves the table when its line is filled or the fill is rejected; one whose host
 * never answered expires after `expire` ticks so that a later miss posts again.
 *
 * Prefetch on a miss (issue 14): an entry may cover a range of n lines, [line, line + n) (the
 * missed line and the rest of its message, miss_set_span); a miss on any line of the range merges
 * into it (counted in range_merged when not its first line). The driver fills the range in order:
 * a fill of line x in the range resolves every line up to x (the range shrinks to [x + 1, ...)),
 * and the entry leaves the table with its last line. n = 1 is the one-line request of the seed.
 *
 * Portable (no register access); context: main loop only.
 */
#ifndef MISSTAB_H
#define MISSTAB_H

#include <stdint.h>

enum miss_state {
    MISS_FREE = 0,
    MISS_HELD = 1,   /* recorded, its event not yet posted (event ring full) */
    MISS_POSTED = 2, /* event posted to the host, waiting for FILL */
};

struct miss_ent {
    uint8_t state, cache, path;
    uint8_t n; /* lines covered from `line` on (1: the missed line only; prefetch: more) */
    uint16_t pid, epoch;
    uint32_t line;
    uint32_t since; /* tick when recorded or last posted */
    uint32_t first; /* the line that missed (prefetch: a miss on another line of the range merges
                     * as a prefetched one, range_merged) */
};

struct miss_stats {
    uint32_t recorded, merged, full, resolved, expired;
    uint32_t range_merged; /* misses merged into a range beyond its first line (prefetch) */
};

struct misstab {
    struct miss_ent *e;
    uint32_t n;
    uint32_t expire;
    struct miss_stats st;
};

enum miss_add_result {
    MISS_ADD_NEW,    /* recorded in state HELD: the caller posts the event (miss_posted) */
    MISS_ADD_MERGED, /* already outstanding: nothing to post */
    MISS_ADD_FULL,   /* table full: drop/park and count */
};

void miss_init(struct misstab *t, struct miss_ent *storage, uint32_t n, uint32_t expire);
enum miss_add_result miss_add(struct misstab *t, uint8_t cache, uint16_t pid, uint32_t line, uint16_t epoch,
                              uint8_t path, uint32_t now, struct miss_ent **out);
void miss_posted(struct misstab *t, struct miss_ent *e, uint32_t now);
/* The line was filled (or the fill rejected): 1 if an entry was outstanding for it and is now gone
 * (a range entry whose last line this was; lines before it in the range resolve with it). */
int miss_resolve(struct misstab *t, uint8_t cache, uint16_t pid, uint32_t line);
/* The request e covers n lines from its line on (1..255; prefetch on a miss). */
void miss_set_span(struct miss_ent *e, uint32_t n);
/* First entry still HELD (its event not posted), or NULL. */
struct miss_ent *miss_next_held(struct misstab *t);
/*
 * Drops every entry (HELD or POSTED) of pid in `cache`; returns how many. For a caller that knows
 * the host will never answer them. The NCP does not call it: an outstanding miss of a process
 * whose lines were invalidated is still answered by the driver (a fill, accepted or rejected as
 * stale: miss_resolve either way), and one never answered is posted again at its expiry.
 */
uint32_t miss_forget(struct misstab *t, uint8_t cache, uint16_t pid);
uint32_t miss_outstanding(const struct misstab *t);

#endif /* MISSTAB_H */
