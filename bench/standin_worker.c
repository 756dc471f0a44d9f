/* A stand-in for tczoo's sandbox worker (tczoo/sandbox/worker.c), for
   bench/bench_sandbox.py only: it speaks the same protocol on stdin/stdout but runs no
   program; each request is answered at once as if a program had read "A B" and
   printed A+B. With it the host process never waits for a jail, so its CPU per run is
   the host's own cost when it is the bottleneck (many workers on a big machine), and
   1e6 / that is the most runs per second one host process can feed.

   Protocol (slots.py): a request is LIMITS (magic + 9 u64), the artifact (u32 length,
   bytes), argv (u32 count; u32 length + bytes each), files (u32 count; u32 name
   length, name, u64 content length, content), TRAILER (u32 flags, u64 stdin length),
   stdin. A reply is FRAME (u32 kind 0, u32 length) + REPLY + stdout. Replies are held
   until FLAG_FLUSH or until no request is waiting, as the real worker does. */
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAGIC 0x7a637432u
#define FLAG_FLUSH 1u

static char rbuf[1 << 20], obuf[1 << 20], input[4096];
static size_t rpos, rlen, olen;

static void refill(void) {
    rpos = rlen = 0;
    ssize_t n = read(0, rbuf, sizeof rbuf);
    if (n <= 0) exit(0); /* the host closed the pipe */
    rlen = (size_t)n;
}

static void take(void *dst, size_t n) { /* dst NULL: skip */
    while (n) {
        if (rpos == rlen) refill();
        size_t k = rlen - rpos < n ? rlen - rpos : n;
        if (dst) { memcpy(dst, rbuf + rpos, k); dst = (char *)dst + k; }
        rpos += k;
        n -= k;
    }
}

static uint32_t u32(void) { uint32_t v; take(&v, 4); return v; }
static uint64_t u64(void) { uint64_t v; take(&v, 8); return v; }

static void flush_out(void) {
    for (size_t done = 0; done < olen;) {
        ssize_t w = write(1, obuf + done, olen - done);
        if (w <= 0) exit(1);
        done += (size_t)w;
    }
    olen = 0;
}

static int request_waiting(void) {
    struct pollfd p = {0, POLLIN, 0};
    return rpos < rlen || poll(&p, 1, 0) > 0;
}

int main(void) {
    if (write(1, "R", 1) != 1) return 1;
    for (;;) {
        if (!request_waiting()) flush_out();
        if (u32() != MAGIC) { fprintf(stderr, "standin: bad request\n"); return 2; }
        take(NULL, 9 * 8);           /* limits */
        take(NULL, u32());           /* artifact */
        for (uint32_t argc = u32(); argc; argc--) take(NULL, u32());
        for (uint32_t files = u32(); files; files--) { take(NULL, u32()); take(NULL, u64()); }
        uint32_t flags = u32();
        take(NULL, 8);               /* deadline */
        uint64_t len = u64();
        size_t keep = len < sizeof input - 1 ? (size_t)len : sizeof input - 1;
        take(input, keep);
        take(NULL, len - keep);
        input[keep] = 0;
        long long a = 0, b = 0;
        sscanf(input, "%lld %lld", &a, &b);
        char out[32];
        int n = snprintf(out, sizeof out, "%lld\n", a + b);
        struct {
            int64_t exit_code, signal;
            double cpu_ms, wall_ms;
            int64_t maxrss_kb, killed;
            uint64_t out_len, err_len;
            int64_t dirty, oom_kills, start_failed;
        } reply = {0, -1, 0.3, 0.9, 1024, 0, (uint64_t)n, 0, 0, 0, 0};
        uint32_t frame[2] = {0, (uint32_t)(sizeof reply + (size_t)n)};
        if (olen + sizeof frame + sizeof reply + (size_t)n > sizeof obuf) flush_out();
        memcpy(obuf + olen, frame, sizeof frame); olen += sizeof frame;
        memcpy(obuf + olen, &reply, sizeof reply); olen += sizeof reply;
        memcpy(obuf + olen, out, (size_t)n); olen += (size_t)n;
        if (flags & FLAG_FLUSH) flush_out();
    }
}
