/*
 * tczoo jailed worker: one long-lived process per worker slot that runs programs.
 *
 * Why C: on these machines fork() of a Python process costs ~4-8 ms (page tables of
 * the interpreter), a second exec ~2 ms; a bare spawn ~1.5 ms. Starting a jail per
 * run costs ~5-8 ms. So the jail is started once per slot (bwrap, as the slot's uid)
 * with this small worker inside, and each run is a vfork()+execve() from here, the
 * same cost as a bare spawn, while every guarantee still holds per run:
 *
 *  - limits are set in the vfork child (setrlimit with soft == hard, so the program
 *    cannot raise them back) before it execs the program;
 *  - the slot's cgroup (pids.max, memory limit, written by the host) holds this
 *    worker and everything the program starts;
 *  - CPU, wall and peak memory come from wait4() on the program itself, inside the
 *    jail (wait4 on bwrap outside would report bwrap's own usage);
 *  - stdout is read with a cap (RLIMIT_FSIZE does not bind a pipe); the CPU and wall
 *    guards are enforced by polling a pidfd;
 *  - afterwards kill(-1, SIGKILL) reaches every process in the jail's PID namespace
 *    (or, without one, every process of the slot's own uid) except this worker; as
 *    the namespace's init / a child subreaper we reap them all before answering;
 *  - the per-run directory and the rest of the jail's tmp dirs are wiped.
 *
 * usage: tczoo-worker RUN_DIR KILL_ALL NPROC_BASE [WIPE_DIR...]
 * Protocol on fd 0 (requests) / fd 1 (replies), little-endian, see slots.py.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int ctrl_in, ctrl_out;
static const char *run_dir;
static int kill_all;
static long nproc_base;
static char **wipe_dirs;
static int n_wipe;

static void die(const char *what) {
    fprintf(stderr, "tczoo-worker: %s: %s\n", what, strerror(errno));
    _exit(3);
}

static void read_exact(void *buf, size_t n) {
    char *p = buf;
    while (n) {
        ssize_t r = read(ctrl_in, p, n);
        if (r == 0) _exit(0); /* host went away */
        if (r < 0) {
            if (errno == EINTR) continue;
            die("read");
        }
        p += r;
        n -= (size_t)r;
    }
}

static void write_all(int fd, const void *buf, size_t n) {
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            die("write");
        }
        p += w;
        n -= (size_t)w;
    }
}

static uint64_t rd64(void) { uint64_t v; read_exact(&v, 8); return v; }
static uint32_t rd32(void) { uint32_t v; read_exact(&v, 4); return v; }

static char *rdstr(uint64_t n) {
    char *s = malloc(n + 1);
    if (!s) die("malloc");
    read_exact(s, n);
    s[n] = 0;
    return s;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* CPU time of a live process from /proc, for the polling guard. */
static double cpu_ms_of(pid_t pid) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p) return 0;
    unsigned long long ut = 0, st = 0;
    /* fields after ")": state(3) ... utime(14) stime(15) */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return 0;
    return (ut + st) * 1000.0 / sysconf(_SC_CLK_TCK);
}

/* Remove everything under dirfd; the program may have chmod-ed things to 000. */
static void wipe_at(int dirfd) {
    DIR *d = fdopendir(dirfd);
    if (!d) { close(dirfd); return; }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (unlinkat(dirfd, e->d_name, 0) == 0) continue;
        fchmodat(dirfd, e->d_name, 0700, 0);
        int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0) wipe_at(sub);
        unlinkat(dirfd, e->d_name, AT_REMOVEDIR);
    }
    closedir(d);
}

static void wipe(const char *path) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) wipe_at(fd);
}

/* Kill and reap every process the program left behind (daemons included). */
static void kill_everything_else(void) {
    if (kill_all) {
        /* Our own PID namespace or our own uid: everything we may signal is the
           program's. kill(-1) is atomic against fork (a dying parent cannot fork). */
        for (int i = 0; i < 3; i++)
            if (kill(-1, SIGKILL) < 0) break;
        for (;;) {
            pid_t p = waitpid(-1, NULL, __WALL);
            if (p < 0 && errno == EINTR) continue;
            if (p < 0) break; /* ECHILD: nothing left */
        }
        return;
    }
    /* Fallback (shared uid, no namespace): walk our children; as a subreaper the
       orphans of killed processes become our children in turn. Best effort. */
    char path[64], buf[8192];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
    for (int round = 0; round < 2000; round++) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
        if (fd >= 0) close(fd);
        int any = 0;
        if (n > 0) {
            buf[n] = 0;
            for (char *tok = strtok(buf, " \n"); tok; tok = strtok(NULL, " \n")) {
                pid_t c = (pid_t)atoi(tok);
                kill(-c, SIGKILL);
                kill(c, SIGKILL);
                any = 1;
            }
        }
        int reaped = 0;
        while (waitpid(-1, NULL, WNOHANG | __WALL) > 0) reaped = 1;
        if (!any && !reaped) break;
        if (!reaped) usleep(1000);
    }
}

static int mkdirs(char *path) { /* mkdir -p for files= entries */
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        mkdir(path, 0700);
        *p = '/';
    }
    return 0;
}

struct limits {
    uint64_t cpu_ms, wall_ms, cpu_s, out_bytes, err_bytes, file_bytes, nproc, stack_bytes, as_bytes;
};

static void set_limit(int what, uint64_t v) {
    struct rlimit r = {v, v};
    setrlimit(what, &r);
}

static void handle(void) {
    struct limits L;
    uint64_t *f = (uint64_t *)&L;
    for (int i = 0; i < 9; i++) f[i] = rd64();
    uint32_t argc = rd32();
    char **argv = calloc(argc + 1, sizeof *argv);
    for (uint32_t i = 0; i < argc; i++) argv[i] = rdstr(rd32());
    mkdir(run_dir, 0700);
    uint32_t nfiles = rd32();
    for (uint32_t i = 0; i < nfiles; i++) {
        char *name = rdstr(rd32());
        uint64_t len = rd64();
        char *data = rdstr(len);
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", run_dir, name);
        mkdirs(path);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd >= 0) { write_all(fd, data, len); close(fd); }
        free(name);
        free(data);
    }
    uint64_t in_len = rd64();
    int in_fd = memfd_create("stdin", MFD_CLOEXEC); /* the program sees only this fd */
    if (in_fd < 0) die("memfd_create");
    char buf[65536];
    for (uint64_t left = in_len; left;) {
        size_t n = left < sizeof buf ? left : sizeof buf;
        read_exact(buf, n);
        write_all(in_fd, buf, n);
        left -= n;
    }
    lseek(in_fd, 0, SEEK_SET);

    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) die("pipe");

    double start = now_ms();
    pid_t pid = vfork();
    if (pid == 0) {
        /* vfork child: plain syscalls only, then exec or _exit. */
        setsid();
        for (int s = 1; s < NSIG; s++) signal(s, SIG_DFL);
        if (chdir(run_dir)) _exit(126);
        struct rlimit cpu = {L.cpu_s, L.cpu_s + 1};
        setrlimit(RLIMIT_CPU, &cpu);
        set_limit(RLIMIT_CORE, 0);
        set_limit(RLIMIT_FSIZE, L.file_bytes);
        if (nproc_base >= 0) set_limit(RLIMIT_NPROC, L.nproc + (uint64_t)nproc_base);
        set_limit(RLIMIT_STACK, L.stack_bytes);
        set_limit(RLIMIT_NOFILE, 256);
        if (L.as_bytes) set_limit(RLIMIT_AS, L.as_bytes);
        dup2(in_fd, 0);
        dup2(out[1], 1);
        dup2(err[1], 2);
        execve(argv[0], argv, environ);
        static const char msg[] = "tczoo-worker: cannot start program\n";
        write(2, msg, sizeof msg - 1);
        _exit(126);
    }
    if (pid < 0) die("vfork");
    close(in_fd);
    close(out[1]);
    close(err[1]);

    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0) die("pidfd_open");
    size_t out_cap = L.out_bytes, err_cap = L.err_bytes;
    char *obuf = malloc(out_cap + 1), *ebuf = malloc(err_cap + 1);
    size_t olen = 0, elen = 0;
    int killed = 0; /* 1 cpu, 2 wall, 3 output */
    int oopen = 1, eopen = 1, exited = 0;
    double wall_deadline = start + (double)L.wall_ms;
    double per = L.nproc ? (double)L.nproc : 1.0;
    double next_cpu = start + L.cpu_ms / per;
    while (!exited && !killed) {
        double t = now_ms();
        if (t >= wall_deadline) { killed = 2; break; }
        if (t >= next_cpu) {
            double used = cpu_ms_of(pid);
            if (used > (double)L.cpu_ms) { killed = 1; break; }
            /* CPU cannot grow faster than wall time times the process count. */
            double wait = ((double)L.cpu_ms - used) / per;
            next_cpu = t + (wait < 5 ? 5 : wait);
        }
        double until = next_cpu < wall_deadline ? next_cpu : wall_deadline;
        int timeout = (int)(until - t) + 1;
        struct pollfd p[3] = {{pidfd, POLLIN, 0}, {oopen ? out[0] : -1, POLLIN, 0},
                              {eopen ? err[0] : -1, POLLIN, 0}};
        int n = poll(p, 3, timeout);
        if (n < 0 && errno != EINTR) die("poll");
        if (n <= 0) continue;
        if (p[1].revents) {
            char tmp[65536];
            ssize_t r = read(out[0], tmp, sizeof tmp);
            if (r <= 0) oopen = 0;
            else if (olen + (size_t)r > out_cap) {
                size_t room = out_cap - olen;
                memcpy(obuf + olen, tmp, room);
                olen = out_cap;
                killed = 3;
            } else { memcpy(obuf + olen, tmp, (size_t)r); olen += (size_t)r; }
        }
        if (p[2].revents) {
            char tmp[65536];
            ssize_t r = read(err[0], tmp, sizeof tmp);
            if (r <= 0) eopen = 0;
            else {
                size_t keep = elen + (size_t)r > err_cap ? err_cap - elen : (size_t)r;
                memcpy(ebuf + elen, tmp, keep);
                elen += keep;
            }
        }
        if (p[0].revents) exited = 1;
    }
    if (killed) kill(pid, SIGKILL);
    int status = 0;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) die("wait4");
    }
    double wall = now_ms() - start;
    close(pidfd);
    kill_everything_else();
    /* Every writer is dead now, so the pipes reach EOF; keep the caps. */
    for (int which = 0; which < 2; which++) {
        int fd = which ? err[0] : out[0];
        int open_ = which ? eopen : oopen;
        while (open_) {
            char tmp[65536];
            ssize_t r = read(fd, tmp, sizeof tmp);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            if (which) {
                size_t keep = elen + (size_t)r > err_cap ? err_cap - elen : (size_t)r;
                memcpy(ebuf + elen, tmp, keep);
                elen += keep;
            } else if (olen + (size_t)r > out_cap) {
                memcpy(obuf + olen, tmp, out_cap - olen);
                olen = out_cap;
                if (!killed) killed = 3;
            } else { memcpy(obuf + olen, tmp, (size_t)r); olen += (size_t)r; }
        }
    }
    close(out[0]);
    close(err[0]);
    for (int i = 0; i < n_wipe; i++) wipe(wipe_dirs[i]);

    struct {
        int64_t exit_code, signal;
        double cpu_ms, wall_ms;
        int64_t maxrss_kb, killed;
        uint64_t out_len, err_len;
    } reply = {
        WIFEXITED(status) ? WEXITSTATUS(status) : -1,
        WIFSIGNALED(status) ? WTERMSIG(status) : -1,
        (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
            (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3,
        wall, ru.ru_maxrss, killed, olen, elen,
    };
    write_all(ctrl_out, &reply, sizeof reply);
    write_all(ctrl_out, obuf, olen);
    write_all(ctrl_out, ebuf, elen);
    free(obuf);
    free(ebuf);
    for (uint32_t i = 0; i < argc; i++) free(argv[i]);
    free(argv);
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s RUN_DIR KILL_ALL NPROC_BASE [WIPE_DIR...]\n", argv[0]);
        return 2;
    }
    run_dir = argv[1];
    kill_all = atoi(argv[2]);
    nproc_base = atol(argv[3]);
    wipe_dirs = argv + 4;
    n_wipe = argc - 4;
    /* Keep the protocol fds away from programs: close-on-exec copies, 0/1 -> null. */
    ctrl_in = fcntl(0, F_DUPFD_CLOEXEC, 10);
    ctrl_out = fcntl(1, F_DUPFD_CLOEXEC, 10);
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    dup2(null, 1);
    close(null);
    /* Orphans come to us (without a PID namespace); programs of the same uid can't
       ptrace us or open our /proc/<pid>/fd; signals they send are ignored. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    prctl(PR_SET_DUMPABLE, 0);
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP && s != SIGCHLD) signal(s, SIG_IGN);
    char ready = 'R';
    write_all(ctrl_out, &ready, 1);
    for (;;) {
        uint32_t magic = rd32();
        if (magic != 0x7a637431u) { errno = EPROTO; die("bad request"); }
        handle();
    }
}
