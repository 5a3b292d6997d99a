#!/usr/bin/env python3
"""mkcorpus.py: writes the seed corpus of the fuzz targets (tests/fuzz/corpus/<target>/seed-*).

The seeds are committed; rerun this after a change of an input format (docs/fuzzing.md) and
commit the result. Formats: the comments at the top of fuzz_rx.c and fuzz_sqe.c. Files named
regress-* in the corpus are reproducers of bugs the fuzzers found: this script leaves them.
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WRITE, READ_REQ, READ_RESP, ACK, NACK = 1, 2, 3, 4, 5
F_RESYNC, F_LAST, F_VOID = 1, 2, 4


def hdr(dst, src, typ, flags=0, length=0, seq=0, ack=0, op=0, pid=0, reason=0, buf=0, key=0,
        status=0, off=0, xlen=0):
    return (struct.pack(">HH", dst, src) +
            struct.pack("<BBHIIIHHIIiQI", typ, flags, length, seq, ack, op, pid, reason, buf, key,
                        status, off, xlen))


def rx_config(nodes=4, me=0, rto=100, nack_delay=10, miss_hold=40, backoff_max=3, retries=3,
              jitter=2, now=1000, miss_expire=500):
    return struct.pack("<BBHBBBBBIH", nodes - 2, me, rto - 1, nack_delay, miss_hold, backoff_max,
                       retries, jitter, now, miss_expire - 1)


def frame(f, peer=0, steer=True, refuse=False):
    op = (0 | (1 if refuse else 0)) | (8 if steer else 0) | (peer << 4)
    return struct.pack("<BH", op, len(f)) + f


def steer_seq(delta):  # seq = expected + delta (delta in -2..2) under the steer bit
    return 0x80 | (((delta + 2) % 5) << 8)


def steer_ack(k):  # ack = una + k under the steer bit
    return 0x80 | (k << 8)


def push(peer, n):
    return bytes([2 | peer << 4, n - 1])


def tick(dt):
    return bytes([3]) + struct.pack("<H", dt)


def tick_peer(peer):
    return bytes([5 | peer << 4])


def resend(peer, n):
    return bytes([4 | peer << 4, n - 1])


def ctl(peer, nack, reason, ack_k, seq_k):
    return bytes([6 | peer << 4, (1 if nack else 0) | ((reason - 1) << 1), ack_k, seq_k])


def miss_op(peer, kind, cache, line, post=False):
    # kind 0 miss, 1 fill, 2 post the first held, 3 forget the process's lines
    return bytes([7 | peer << 4, kind | ((cache - 1) << 2) | (line << 3) | (0x80 if post else 0)])


def rx_seeds():
    s = {}
    me, src = 0, 1
    w = lambda **k: hdr(me, src, WRITE, **k)
    s["write-resync-then-in-order"] = rx_config() + b"".join([
        frame(w(flags=F_RESYNC, length=64, seq=0x1000, buf=3, key=7, xlen=0) + bytes(64), src, steer=False),
        frame(w(length=64, seq=steer_seq(0), buf=3, xlen=64) + bytes(64), src),
        frame(w(flags=F_LAST, length=64, seq=steer_seq(0), buf=3, xlen=128) + bytes(64), src),
        frame(w(length=64, seq=steer_seq(-1), buf=3) + bytes(64), src),          # duplicate
        frame(w(length=64, seq=steer_seq(2), buf=3) + bytes(64), src),           # gap
        frame(w(length=64, seq=steer_seq(2), buf=3) + bytes(64), src),           # gap, no 2nd NACK
        frame(w(flags=F_VOID, seq=steer_seq(0), buf=3) , src),                   # void
        frame(w(length=64, seq=steer_seq(0), buf=3) + bytes(64), src, refuse=True),
    ])
    s["write-known-isn"] = rx_config(jitter=0x82) + b"".join([   # receivers start synchronised
        frame(w(length=32, seq=steer_seq(0), buf=3) + bytes(32), src),
        frame(w(length=32, seq=steer_seq(0), buf=3) + bytes(32), src),
        frame(w(flags=F_RESYNC, length=32, seq=steer_seq(-2), buf=3) + bytes(32), src),  # backward
        frame(w(length=32, seq=steer_seq(1), buf=3) + bytes(32), src),
    ])
    s["read-req-and-resp"] = rx_config(nodes=3, me=2) + b"".join([
        frame(hdr(2, 0, READ_REQ, flags=F_RESYNC, seq=5, buf=1, key=2, xlen=8192, off=4096), 0, steer=False),
        frame(hdr(2, 0, READ_REQ, seq=steer_seq(0), buf=1, xlen=1), 0),
        frame(hdr(2, 1, READ_RESP, flags=F_RESYNC | F_LAST, length=128, seq=9, op=0x10002, off=0)
              + bytes(128), 1, steer=False),
        frame(hdr(2, 1, READ_RESP, flags=F_VOID, seq=steer_seq(0), op=0x10002, off=128), 1),
    ])
    s["sender-acks"] = rx_config() + b"".join([
        push(1, 8), push(2, 32), resend(1, 4),
        frame(hdr(me, 1, ACK, ack=steer_ack(3)), 1),
        frame(hdr(me, 1, ACK, ack=steer_ack(8)), 1),
        frame(hdr(me, 1, ACK, ack=steer_ack(9)), 1),                             # beyond nxt
        frame(hdr(me, 2, ACK, ack=steer_ack(32)), 2),
        push(1, 4),
    ])
    s["sender-nacks"] = rx_config() + b"".join([
        push(1, 16),
        ctl(1, True, 1, 2, 0),    # gap
        ctl(1, True, 2, 0, 5),    # miss
        ctl(1, True, 6, 0, 0),    # resume
        ctl(1, True, 5, 0, 7),    # busy
        tick(20),
        ctl(1, True, 3, 0, 9),    # protection
        ctl(1, True, 4, 0, 30),   # malformed, not in flight
        ctl(1, False, 1, 16, 0),  # ack all
    ])
    s["timeouts-giveup"] = rx_config(retries=2, backoff_max=2) + b"".join([
        push(3, 10), tick_peer(3), resend(3, 10), tick_peer(3), tick_peer(3), tick_peer(3),
        tick_peer(3), push(3, 2), ctl(3, False, 1, 2, 0), tick(60000),
    ])
    s["miss-table"] = rx_config(miss_expire=100) + b"".join(
        [miss_op(1, 0, 1, l) for l in range(8)] +                       # 8 lines: full
        [miss_op(1, 0, 1, 3), miss_op(2, 0, 1, 9),                      # merge, full
         miss_op(1, 2, 1, 0), miss_op(1, 2, 1, 0), miss_op(1, 1, 1, 2), # post two, fill one
         tick(200), miss_op(1, 0, 1, 0), miss_op(1, 0, 1, 5),           # expired: posted again
         miss_op(1, 3, 1, 0), miss_op(1, 1, 2, 4)] +                    # forget, fill unknown
        [frame(w(flags=F_RESYNC, length=8, seq=7, pid=1, buf=2, off=4096 * l) + bytes(8), src,
               steer=False, refuse=True) for l in range(3)] +           # misses on receive
        [frame(hdr(me, src, READ_REQ, seq=steer_seq(0), pid=1, buf=2, xlen=64, off=8192), src, refuse=True)])
    s["bad-frames"] = rx_config(nodes=5, me=3) + b"".join([
        frame(hdr(3, 1, ACK)[:40], 1, steer=False),                                # short
        frame(hdr(2, 1, ACK), 1, steer=False),                                     # not for us
        frame(hdr(3, 3, ACK), 3, steer=False),                                     # from us
        frame(hdr(3, 9, ACK), 9, steer=False),                                     # beyond nodes
        frame(hdr(3, 1, 0), 1, steer=False),                                       # type 0
        frame(hdr(3, 1, 6), 1, steer=False),                                       # type 6
        frame(hdr(3, 1, WRITE, length=10, buf=1) + bytes(9), 1, steer=False),      # length
        frame(hdr(3, 1, WRITE, length=4097) + bytes(4097), 1, steer=False),        # above MTU
        frame(hdr(3, 1, WRITE, buf=0x1000000, length=4) + bytes(4), 1, steer=False),
        frame(hdr(3, 1, WRITE, off=(1 << 64) - 2, length=4) + bytes(4), 1, steer=False),
        frame(hdr(3, 1, READ_REQ, xlen=0), 1, steer=False),
        frame(hdr(3, 1, READ_REQ, xlen=(1 << 24) + 1), 1, steer=False),
        frame(hdr(3, 1, READ_RESP, off=1 << 24, length=4) + bytes(4), 1, steer=False),
        frame(hdr(3, 1, NACK, reason=0), 1, steer=False),
        frame(hdr(3, 1, NACK, reason=7), 1, steer=False),
        frame(hdr(3, 1, ACK, length=4) + bytes(4), 1, steer=False),
    ])
    return s


def sqe(op=1, flags=1, rnode=1, length=4096, laddr=0x7000001000, rbuf=3, rpid=0x1234, res0=0,
        roff=0x10, rkey=0xCAFEF00D, wr_id=0x200000001, lbuf=5, res1=(0, 0, 0, 0), view=(0, 0, 2, 0, 16)):
    e = struct.pack("<BBHIIIIHHIIIIII4I", op, flags, rnode, length, laddr & 0xFFFFFFFF, laddr >> 32, rbuf,
                    rpid, res0, roff & 0xFFFFFFFF, roff >> 32, rkey, wr_id & 0xFFFFFFFF, wr_id >> 32, lbuf,
                    *res1)
    assert len(e) == 64
    return e + bytes(view)


def sqe_seeds():
    top = 1 << 44
    return {
        "write": sqe(),
        "read-unsignalled": sqe(op=2, flags=0),
        "bad-op": sqe(op=3),
        "bad-flags": sqe(flags=3),
        "len-0": sqe(length=0),
        "len-max": sqe(length=1 << 24),
        "len-max-plus-1": sqe(length=(1 << 24) + 1),
        "laddr-last-ok": sqe(laddr=top - 1 - 4096),
        "laddr-end-at-top": sqe(laddr=top - 4096),
        "roff-top": sqe(roff=top),
        "rnode-self": sqe(rnode=0),
        "rnode-beyond": sqe(rnode=4, view=(0, 0, 2, 0, 16)),
        "rbuf-24bit": sqe(rbuf=(1 << 24)),
        "reserved0": sqe(res0=1),
        "reserved1": sqe(res1=(0, 0, 0, 0x80000000)),
        "lbuf-any": sqe(lbuf=0xFFFFFFFF),
        "raw-view": sqe(view=(5, 0, 200, 0, 0x90)),
    }


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus")
    for target, seeds in (("fuzz_rx", rx_seeds()), ("fuzz_sqe", sqe_seeds())):
        d = os.path.join(out, target)
        os.makedirs(d, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(d, "seed-" + name), "wb") as f:
                f.write(data)
        print("%s: %d seeds in %s" % (target, len(seeds), d))


if __name__ == "__main__":
    main()
