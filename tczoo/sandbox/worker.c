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
 *  - CPU is the whole process tree's: the slot cgroup's CPU counter (an fd the host
 *    opened for us) minus this worker's own CPU, and never less than what wait4()
 *    reports for the reaped processes; wall and peak memory come from wait4() on the
 *    program itself, inside the jail (wait4 on bwrap outside would report bwrap);
 *  - stdout is read with a cap (RLIMIT_FSIZE does not bind a pipe) and streamed to
 *    the host in chunks, so the worker's own memory, which the slot's memory cgroup
 *    charges next to the program's, stays small; the CPU and wall guards are
 *    enforced by polling a pidfd;
 *  - the worker (and so every program) runs under a seccomp filter that refuses the
 *    kernel keyrings, and with no_new_privs;
 *  - afterwards kill(-1, SIGKILL) reaches every process in the jail's PID namespace
 *    (or, without one, every process of the slot's own uid) except this worker; as
 *    the namespace's init / a child subreaper we reap them all before answering;
 *  - nothing the run wrote survives it: the jail's writable directories are emptied
 *    (whatever their depth) and their modes, times and xattrs reset, the SysV IPC
 *    objects the slot's uid created are removed, and the program never sees the
 *    compile cache: its binary (or source) is opened here, relative to a directory
 *    fd only this worker holds, and handed over as an fd.
 *
 *  - the slot must be as clean after a run as before it: when the slot's memory
 *    cgroup still holds more than the idle jail did (read through fds the host
 *    opened), the reply says so and the worker exits, so the host replaces the jail
 *    before anything else runs in it.
 *
 * Requests are pipelined: the host may queue several before the first is answered
 * (one write for many runs), and replies are held in a buffer and written together
 * (one wake-up of the host for many runs): the buffer goes out when no request is
 * waiting, when a request asks for it (FLAG_FLUSH), when a run has lasted 5 ms, or
 * when it is full. Per run, nothing crosses the boundary but the request and reply.
 *
 * Infrastructure verdicts never come from the program: whether the program started
 * (exec succeeded) is a field of the reply, written by the vfork child into memory only
 * the worker can read, never a line on the program's stderr or an exit code, which a
 * program can print or return itself. A run cut at the caller's deadline (a monotonic
 * time in the request) is killed by KILLED_DEADLINE, or not started when it is past.
 *
 * usage: tczoo-worker CACHE_FD CPU_FD RUN_DIR KILL_ALL NPROC_BASE CLEAN_IPC MEMORY STDIO_FD [WIPE_DIR...]
 *   MEMORY: "-" or "USAGE_FD,STAT_FD,OOM_FD,V2,SLACK_BYTES,WAIT_MS" (the slot's memory cgroup)
 *   STDIO_FD: a unix socket the host sends a run's own stdin and stdout on (SCM_RIGHTS), for a
 *   request with FLAG_STDIO: an interactive run, whose program talks through pipes with
 *   another program (the problem's interactor, in another slot) instead of with us; -1: none
 * Protocol on fd 0 (requests) / fd 1 (replies), little-endian, see slots.py.
 *
 * usage: tczoo-worker --exec STATUS_FD PROGRAM [ARG...]   (the compile jail's launcher)
 *   writes "L" on STATUS_FD, makes every fd from 3 up close-on-exec and execs PROGRAM;
 *   if the exec fails, writes "E" and errno (4 bytes). The host learns from that pipe,
 *   which the compiler never holds, whether its jail came up and the compiler started:
 *   never from the compiler's output, which the source it reads can shape.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define MAGIC 0x7a637432u
#define CHUNK 65536 /* bytes of output held before they are sent to the host */
#define OBUF (4 * CHUNK) /* replies (and output frames) held for one write */
#define FLAG_FLUSH 1u /* request flag: send the buffered replies after this run */
#define FLAG_STDIO 2u /* request flag: the program's stdin and stdout come on the stdio socket */
#define FLUSH_AFTER_MS 5.0 /* a run that lasts this long sends the replies held before it */
#define DIRTY_FILES 1 /* reply.dirty: a writable directory could not be emptied */
#define DIRTY_MEMORY 2 /* reply.dirty: the memory cgroup holds more than the idle jail */
#define FRAME_OUT 1
#define FRAME_ERR 2
#define FRAME_END 0
#define KILLED_DEADLINE 4 /* reply.killed: stopped (or never started) at the caller's deadline */
/* reply.start_failed: the worker could not start the program, (stage << 16) | errno;
   set by the vfork child in memory it shares with us until it execs (a program that
   started has an address space of its own and cannot reach it) */
#define START_CHDIR 1
#define START_OPEN 2
#define START_EXEC 3
#define WIPE_STEPS 20000000L /* guard against a tree we cannot empty: report, don't loop */

extern char **environ;

static int ctrl_in, ctrl_out, cache_fd, cpu_fd, stdio_fd = -1;
static const char *run_dir;
static int kill_all, clean_ipc, ncpu = 1;
/* The slot's memory cgroup (-1: none): usage, memory.stat, the OOM-kill counter. */
static int mem_usage_fd = -1, mem_stat_fd = -1, oom_fd = -1, mem_v2;
static long long settle_slack, settle_wait_ms, base_usage, base_held, oom_seen;
static long nproc_base;
static struct root *roots;
static int n_roots;

static void die(const char *what) {
    fprintf(stderr, "tczoo-worker: %s: %s\n", what, strerror(errno));
    _exit(3);
}

/* Requests come in one write from the host (often several at once): read them
   through a buffer, so that parsing one costs a read() or less, not one per field. */
static char rbuf[65536];
static size_t rpos, rlen;

static void read_exact(void *buf, size_t n) {
    char *p = buf;
    while (n) {
        if (rpos == rlen) {
            if (n >= sizeof rbuf) { /* large (stdin): straight into the caller's buffer */
                ssize_t r = read(ctrl_in, p, n);
                if (r == 0) _exit(0); /* host went away */
                if (r < 0) {
                    if (errno == EINTR) continue;
                    die("read");
                }
                p += r;
                n -= (size_t)r;
                continue;
            }
            ssize_t r = read(ctrl_in, rbuf, sizeof rbuf);
            if (r == 0) _exit(0);
            if (r < 0) {
                if (errno == EINTR) continue;
                die("read");
            }
            rpos = 0;
            rlen = (size_t)r;
        }
        size_t k = rlen - rpos < n ? rlen - rpos : n;
        memcpy(p, rbuf + rpos, k);
        rpos += k;
        p += k;
        n -= k;
    }
}

static void write_all_v(struct iovec *iov, int cnt) {
    while (cnt) {
        ssize_t w = writev(ctrl_out, iov, cnt);
        if (w < 0) {
            if (errno == EINTR) continue;
            die("write");
        }
        while (cnt && (size_t)w >= iov->iov_len) { w -= (ssize_t)iov->iov_len; iov++; cnt--; }
        if (cnt) { iov->iov_base = (char *)iov->iov_base + w; iov->iov_len -= (size_t)w; }
    }
}

/* Everything for the host goes through one buffer, written when flush_out() is called
   (or when it is full), so that the replies of many short runs cost one write. */
static char obuf[OBUF];
static size_t olen;

static void flush_out(void) {
    struct iovec iov = {obuf, olen};
    if (olen) write_all_v(&iov, 1);
    olen = 0;
}

static void emit(const struct iovec *iov, int cnt) {
    size_t total = 0;
    for (int i = 0; i < cnt; i++) total += iov[i].iov_len;
    if (olen + total > OBUF) flush_out();
    for (int i = 0; i < cnt; i++) {
        memcpy(obuf + olen, iov[i].iov_base, iov[i].iov_len);
        olen += iov[i].iov_len;
    }
}

/* Is (part of) another request already here? Then the host is not waiting on us. */
static int request_waiting(void) {
    if (rpos < rlen) return 1;
    struct pollfd p = {ctrl_in, POLLIN, 0};
    return poll(&p, 1, 0) > 0;
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

/* ------------------------------------------------------------------ CPU accounting */

static double self_cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The slot cgroup's CPU counter: v1 cpuacct.usage (ns) or v2 cpu.stat (usage_usec). */
static double cgroup_cpu_ms(void) {
    char buf[512];
    ssize_t n = pread(cpu_fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return -1;
    buf[n] = 0;
    if (buf[0] >= '0' && buf[0] <= '9') return strtoull(buf, NULL, 10) / 1e6;
    char *p = strstr(buf, "usage_usec ");
    return p ? strtoull(p + 11, NULL, 10) / 1e3 : -1;
}

/* CPU time of one live process from /proc, for the polling guard without a cgroup. */
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

/* ------------------------------------------------------------------ memory */

static long long read_number(int fd) {
    char buf[64];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return -1;
    buf[n] = 0;
    return strtoll(buf, NULL, 10);
}

/* The value of "key N" in a flat keyed file (memory.stat, memory.oom_control ...). */
static long long keyed(int fd, const char *key) {
    static char buf[16384];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return -1;
    buf[n] = 0;
    size_t k = strlen(key);
    for (char *line = buf; *line;) {
        if (!strncmp(line, key, k) && line[k] == ' ') return strtoll(line + k + 1, NULL, 10);
        char *next = strchr(line, '\n');
        if (!next) break;
        line = next + 1;
    }
    return 0;
}

/* Memory nothing can reclaim: anonymous pages and tmpfs/shm (not page cache). */
static long long held_memory(void) {
    long long a = keyed(mem_stat_fd, mem_v2 ? "anon" : "rss"), b = keyed(mem_stat_fd, "shmem");
    return a < 0 || b < 0 ? -1 : a + b;
}

/* After a run: is the slot's memory back to the idle jail's? Page cache may stay
   (it is reclaimable); anything held (tmpfs, shm, a process outside our reach) may
   not. Frees the kernel defers get settle_wait_ms. */
static int settled(void) {
    if (mem_usage_fd < 0) return 1;
    long long usage = read_number(mem_usage_fd);
    if (usage >= 0 && usage <= base_usage + settle_slack) return 1;
    double deadline = now_ms() + (double)settle_wait_ms;
    for (;;) {
        long long held = held_memory();
        if (held >= 0 && held <= base_held + settle_slack) return 1;
        if (now_ms() > deadline) return 0;
        usleep(5000);
    }
}

static long long oom_kills(void) {
    return oom_fd < 0 ? 0 : keyed(oom_fd, "oom_kill");
}

static double tv_ms(struct timeval a, struct timeval b) {
    return (a.tv_sec + b.tv_sec) * 1e3 + (a.tv_usec + b.tv_usec) / 1e3;
}

/* ------------------------------------------------------------------ cleaning */

struct dirent64_ {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* Empty the tree under the directory `root` holding at most one more directory fd:
   go down into the first directory that is not empty, climb back up with "..", so
   any depth works (a 20,000-deep tree exhausts fds, and PATH_MAX, with the usual
   recursion). The program may have chmod-ed anything to 000; every file here is the
   slot uid's. A directory that cannot be emptied is remembered and skipped, so the
   walk ends. Returns 0 when the tree is empty. */
#define MAX_STUCK 64
static int empty_tree(int root) {
    int fd = root, n_stuck = 0;
    long depth = 0, steps = 0;
    ino_t stuck[MAX_STUCK];
    char buf[8192];
    for (;;) {
        int went_down = 0, left = 0;
        lseek(fd, 0, SEEK_SET);
        for (;;) {
            long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
            if (n <= 0) break;
            for (long off = 0; off < n && !went_down;) {
                struct dirent64_ *e = (struct dirent64_ *)(buf + off);
                off += e->d_reclen;
                const char *name = e->d_name;
                if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]))) continue;
                if (++steps > WIPE_STEPS) goto fail;
                if (e->d_type != DT_DIR && unlinkat(fd, name, 0) == 0) continue;
                if (unlinkat(fd, name, AT_REMOVEDIR) == 0) continue;
                int skip = 0;
                for (int i = 0; i < n_stuck; i++) skip |= stuck[i] == (ino_t)e->d_ino;
                if (!skip) {
                    fchmodat(fd, name, 0700, 0);
                    int sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                    if (sub >= 0) {
                        if (fd != root) close(fd);
                        fd = sub;
                        depth++;
                        went_down = 1;
                        continue;
                    }
                }
                left = 1;
            }
            if (went_down) break;
        }
        if (went_down) continue;
        if (depth == 0) return left ? -1 : 0;
        if (left) { /* climb out of a directory we cannot empty, and skip it from now on */
            struct stat st;
            if (n_stuck == MAX_STUCK || fstat(fd, &st)) goto fail;
            stuck[n_stuck++] = st.st_ino;
        }
        int up = depth == 1 ? root : openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        close(fd);
        fd = up;
        depth--;
        if (fd < 0) return -1;
    }
fail:
    if (fd != root) close(fd);
    return -1;
}

/* A writable root of the jail as the last wipe left it: the program can change the
   directory itself (mode, times, user xattrs, which tmpfs keeps) besides its entries. */
struct root {
    int fd;
    mode_t mode;
    struct stat after; /* fstat right after the last wipe */
};

static int untouched(const struct stat *a, const struct stat *b) {
    return a->st_mode == b->st_mode && a->st_size == b->st_size && a->st_nlink == b->st_nlink &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
           a->st_atim.tv_sec == b->st_atim.tv_sec && a->st_atim.tv_nsec == b->st_atim.tv_nsec &&
           a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Empty a root and undo what was done to it. A root whose inode looks exactly as the
   last wipe left it (entries are counted in its size and link count, and a change to
   mode or times shows in those) and has no xattrs is left alone: two syscalls. */
static int wipe(struct root *r) {
    char names[4096];
    struct stat now;
    ssize_t n = flistxattr(r->fd, names, sizeof names);
    if (n == 0 && fstat(r->fd, &now) == 0 && untouched(&now, &r->after)) return 0;
    for (ssize_t i = 0; i < n; i += (ssize_t)strlen(names + i) + 1) fremovexattr(r->fd, names + i);
    if (n > (ssize_t)sizeof names || (n < 0 && errno == ERANGE)) return -1; /* too many to list */
    fchmod(r->fd, r->mode);
    int rc = empty_tree(r->fd);
    futimens(r->fd, NULL);
    if (fstat(r->fd, &r->after)) memset(&r->after, 0, sizeof r->after);
    return rc;
}

/* SysV IPC objects outlive the processes that made them. Remove every one our uid
   created (in the jail that is all of them: the IPC namespace is the slot's own). */
static uid_t my_uid;

static void remove_ipc(void) {
    /* *_INFO returns the highest index in use and how many objects exist. */
    struct shm_info shm_info;
    int max = shmctl(0, SHM_INFO, (struct shmid_ds *)&shm_info);
    for (int i = 0; shm_info.used_ids > 0 && i <= max; i++) {
        struct shmid_ds shm;
        int id = shmctl(i, SHM_STAT_ANY, &shm);
        if (id >= 0 && shm.shm_perm.cuid == my_uid) shmctl(id, IPC_RMID, NULL);
    }
    struct seminfo seminfo;
    max = semctl(0, 0, SEM_INFO, &seminfo);
    for (int i = 0; max >= 0 && seminfo.semusz > 0 && i <= max; i++) {
        struct semid_ds sem;
        int id = semctl(i, 0, SEM_STAT_ANY, &sem);
        if (id >= 0 && sem.sem_perm.cuid == my_uid) semctl(id, 0, IPC_RMID);
    }
    struct msginfo msginfo;
    max = msgctl(0, MSG_INFO, (struct msqid_ds *)&msginfo);
    for (int i = 0; max >= 0 && msginfo.msgpool > 0 && i <= max; i++) {
        struct msqid_ds msq;
        int id = msgctl(i, MSG_STAT_ANY, &msq);
        if (id >= 0 && msq.msg_perm.cuid == my_uid) msgctl(id, IPC_RMID, NULL);
    }
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

/* ------------------------------------------------------------------ the program */

/* seccomp: the kernel keyrings (add_key, request_key, keyctl) are state that outlives
   a run (a key in the user keyring is there for the next program of the slot's uid),
   and no contest program (nor this worker) needs them. Other ABIs (i386, x32) get
   nothing at all. */
#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#endif
#define X32_BIT 0x40000000u

static struct sock_filter seccomp_code[] = {
#ifdef NATIVE_ARCH
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#ifdef __x86_64__
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, X32_BIT, 3, 0),
#else
    BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0),
#endif
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_add_key, 2, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_request_key, 1, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_keyctl, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
#endif
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

struct limits {
    uint64_t cpu_ms, wall_ms, cpu_s, out_bytes, err_bytes, file_bytes, nproc, stack_bytes, as_bytes;
};

static void set_limit(int what, uint64_t v) {
    struct rlimit r = {v, v};
    setrlimit(what, &r);
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

/* An artifact path names a file below the cache: "ab/abcdef.../prog". */
static int safe_relative(const char *p) {
    if (!*p || *p == '/') return 0;
    for (const char *s = p; *s; s++)
        if (s[0] == '.' && s[1] == '.' && (s == p || s[-1] == '/')) return 0;
    return 1;
}

/* One output stream: a small buffer, flushed to the host as a frame when full. */
struct stream {
    uint32_t kind;
    char buf[CHUNK];
    size_t len;   /* bytes in buf */
    uint64_t sent; /* bytes taken from the program in this run, up to cap */
    uint64_t cap;
};

static void flush_stream(struct stream *s) {
    if (!s->len) return;
    uint32_t hdr[2] = {s->kind, (uint32_t)s->len};
    struct iovec iov[2] = {{hdr, sizeof hdr}, {s->buf, s->len}};
    emit(iov, 2);
    s->len = 0;
}

/* Keep up to the cap; returns 1 when data went past it. */
static int take(struct stream *s, const char *data, size_t n) {
    int over = 0;
    if (s->sent + n > s->cap) {
        n = (size_t)(s->cap - s->sent);
        over = 1;
    }
    s->sent += n;
    while (n) {
        size_t room = CHUNK - s->len;
        size_t k = n < room ? n : room;
        memcpy(s->buf + s->len, data, k);
        s->len += k;
        data += k;
        n -= k;
        if (s->len == CHUNK) flush_stream(s);
    }
    return over;
}

static struct stream out_s = {.kind = FRAME_OUT}, err_s = {.kind = FRAME_ERR};

/* Written by the vfork child (which shares our memory until it execs or exits): why the
   program could not be started. A started program cannot write it. */
static volatile int64_t start_error;

struct reply {
    int64_t exit_code, signal;
    double cpu_ms, wall_ms;
    int64_t maxrss_kb, killed;
    uint64_t out_len, err_len;
    int64_t dirty, oom_kills, start_failed;
};

/* The reply frame: the reply, then what is still held of stdout and of stderr (the host
   tells them apart by the totals in the reply): a short run's answer is one frame. */
static void emit_reply(struct reply *reply) {
    uint32_t hr[2] = {FRAME_END, (uint32_t)(sizeof *reply + out_s.len + err_s.len)};
    struct iovec iov[4] = {{hr, sizeof hr}, {reply, sizeof *reply}, {out_s.buf, out_s.len},
                           {err_s.buf, err_s.len}};
    emit(iov, 4);
}

/* An interactive run's stdin and stdout, sent by the host on the stdio socket before the
   request (one byte, two fds). Anything else is a protocol error: the worker dies, the
   host replaces the jail and the run is a sandbox error. */
static void receive_stdio(int fds[2]) {
    char byte;
    struct iovec iov = {&byte, 1};
    union { char buf[CMSG_SPACE(2 * sizeof(int))]; struct cmsghdr align; } control;
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.buf;
    msg.msg_controllen = sizeof control.buf;
    ssize_t n;
    do n = recvmsg(stdio_fd, &msg, MSG_CMSG_CLOEXEC); while (n < 0 && errno == EINTR);
    struct cmsghdr *c = n == 1 ? CMSG_FIRSTHDR(&msg) : NULL;
    if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
        c->cmsg_len != CMSG_LEN(2 * sizeof(int)) || (msg.msg_flags & MSG_CTRUNC)) {
        errno = EPROTO;
        die("stdio socket");
    }
    memcpy(fds, CMSG_DATA(c), 2 * sizeof(int));
}

static void handle(void) {
    struct limits L;
    uint64_t *f = (uint64_t *)&L;
    for (int i = 0; i < 9; i++) f[i] = rd64();
    char *artifact = rdstr(rd32());
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
    uint32_t flags = rd32();
    uint64_t deadline_us = rd64(); /* CLOCK_MONOTONIC, microseconds; 0: none */
    uint64_t in_len = rd64();
    /* An interactive run: stdin and stdout are the pipes to the other program; the host
       sent them on the stdio socket. Otherwise stdin is a memfd and stdout comes to us. */
    int stdio[2] = {-1, -1};
    if (flags & FLAG_STDIO) {
        if (stdio_fd < 0) { errno = EPROTO; die("interactive run without a stdio socket"); }
        receive_stdio(stdio);
    }
    int in_fd = stdio[0] >= 0 ? stdio[0] : memfd_create("stdin", MFD_CLOEXEC); /* the program sees only this fd */
    if (in_fd < 0) die("memfd_create");
    char buf[65536];
    for (uint64_t left = in_len; left;) {
        size_t n = left < sizeof buf ? left : sizeof buf;
        read_exact(buf, n);
        if (stdio[0] < 0) write_all(in_fd, buf, n);
        left -= n;
    }
    if (stdio[0] < 0) lseek(in_fd, 0, SEEK_SET);
    double deadline = deadline_us ? (double)deadline_us / 1e3 : 0;
    if (deadline && now_ms() >= deadline) { /* the caller's time is up: do not start it */
        close(in_fd);
        if (stdio[1] >= 0) close(stdio[1]);
        out_s.len = err_s.len = 0;
        out_s.sent = err_s.sent = 0;
        struct reply reply = {-1, -1, 0, 0, 0, KILLED_DEADLINE, 0, 0, 0, 0, 0};
        for (int i = 0; i < n_roots; i++) /* the request's files */
            if (roots[i].fd >= 0 && wipe(&roots[i])) reply.dirty = DIRTY_FILES;
        emit_reply(&reply);
        free(artifact);
        for (uint32_t i = 0; i < argc; i++) free(argv[i]);
        free(argv);
        if (reply.dirty) {
            flush_out();
            _exit(0);
        }
        if (flags & FLAG_FLUSH) flush_out();
        return;
    }

    /* The program's own file, opened below the cache fd: the jail has no path to it. */
    int art_fd = -1, art_errno = 0, native = argc > 0 && argv[0][0] == 0;
    if (*artifact) {
        if (!safe_relative(artifact)) art_errno = EINVAL;
        else if ((art_fd = openat(cache_fd, artifact, O_RDONLY | O_CLOEXEC)) < 0) art_errno = errno;
    }
    if (native) {
        free(argv[0]);
        argv[0] = strdup("./prog");
    }

    int out[2] = {-1, -1}, err[2];
    if (stdio[1] >= 0) out[1] = stdio[1]; /* the program writes to the other program, not to us */
    else if (pipe2(out, O_CLOEXEC)) die("pipe");
    if (pipe2(err, O_CLOEXEC)) die("pipe");
    out_s.len = err_s.len = 0;
    out_s.sent = err_s.sent = 0;
    out_s.cap = L.out_bytes;
    err_s.cap = L.err_bytes;

    struct rusage kids0;
    getrusage(RUSAGE_CHILDREN, &kids0);
    double self0 = self_cpu_ms(), cg0 = cpu_fd >= 0 ? cgroup_cpu_ms() : -1;
    double start = now_ms();
    start_error = 0;
    pid_t pid = vfork();
    if (pid == 0) {
        /* vfork child: plain syscalls only, then exec or _exit. */
        setsid();
        for (int s = 1; s < NSIG; s++) signal(s, SIG_DFL);
        /* (No oom_score_adj of +1000 here: this child shares the worker's non-dumpable
           mm, so its /proc files are root's and the write always failed. Where root
           may lower it, the jail is at -1000 and the program is the OOM killer's only
           choice; elsewhere a jail the OOM killer takes is the run's MLE: Slot.oom_struck.) */
        if (chdir(run_dir)) {
            start_error = (START_CHDIR << 16) | errno;
            _exit(126);
        }
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
        if (art_errno) {
            start_error = (START_OPEN << 16) | art_errno;
            _exit(126);
        }
        if (native) {
            syscall(SYS_execveat, art_fd, "", argv, environ, AT_EMPTY_PATH);
        } else {
            if (art_fd >= 0) { /* an interpreter reads its program from /dev/fd/3 */
                if (art_fd == 3) fcntl(3, F_SETFD, 0);
                else dup2(art_fd, 3);
            }
            execve(argv[0], argv, environ);
        }
        start_error = (START_EXEC << 16) | errno;
        _exit(126);
    }
    if (pid < 0) die("vfork");
    close(in_fd);
    close(out[1]); /* (an interactive run's pipe ends: only the program holds them now) */
    close(err[1]);
    if (art_fd >= 0) close(art_fd);

    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0) die("pidfd_open");
    int64_t start_failed = start_error; /* the child has exec'd or exited: it is final */
    int killed = 0; /* 1 cpu, 2 wall, 3 output, 4 the caller's deadline */
    int oopen = out[0] >= 0, eopen = 1, exited = 0;
    double wall_deadline = start + (double)L.wall_ms;
    int wall_reason = 2;
    if (deadline && deadline < wall_deadline) {
        wall_deadline = deadline;
        wall_reason = KILLED_DEADLINE;
    }
    /* CPU cannot grow faster than wall time times the runnable processes. */
    double per = (double)(L.nproc < (uint64_t)ncpu ? L.nproc : (uint64_t)ncpu);
    if (per < 1) per = 1;
    double next_cpu = start + L.cpu_ms / per;
    while (!exited && !killed) {
        double t = now_ms();
        if (t >= wall_deadline) { killed = wall_reason; break; }
        if (t >= next_cpu) {
            double used = cg0 >= 0 ? (cgroup_cpu_ms() - cg0) - (self_cpu_ms() - self0) : cpu_ms_of(pid);
            if (used > (double)L.cpu_ms) { killed = 1; break; }
            double wait = ((double)L.cpu_ms - used) / per;
            next_cpu = t + (wait < 5 ? 5 : wait);
        }
        double until = next_cpu < wall_deadline ? next_cpu : wall_deadline;
        int timeout = (int)(until - t) + 1;
        if (olen) { /* replies of earlier runs wait: a run that lasts sends them on */
            if (t - start >= FLUSH_AFTER_MS) flush_out();
            else timeout = 1;
        }
        struct pollfd p[3] = {{pidfd, POLLIN, 0}, {oopen ? out[0] : -1, POLLIN, 0},
                              {eopen ? err[0] : -1, POLLIN, 0}};
        int n = poll(p, 3, timeout);
        if (n < 0 && errno != EINTR) die("poll");
        if (n <= 0) continue;
        if (p[1].revents) {
            ssize_t r = read(out[0], buf, sizeof buf);
            if (r <= 0) oopen = 0;
            else if (take(&out_s, buf, (size_t)r)) killed = 3;
        }
        if (p[2].revents) {
            ssize_t r = read(err[0], buf, sizeof buf);
            if (r <= 0) eopen = 0;
            else take(&err_s, buf, (size_t)r);
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
            ssize_t r = read(fd, buf, sizeof buf);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            if (take(which ? &err_s : &out_s, buf, (size_t)r) && !which && !killed) killed = 3;
        }
    }
    if (out[0] >= 0) close(out[0]);
    close(err[0]);

    /* The whole tree's CPU: everything the cgroup charged since the start, less our
       own; never below what the reaped processes' rusage adds up to (children that
       were auto-reaped, e.g. under SIGCHLD=SIG_IGN, are only in the cgroup's). */
    struct rusage kids1;
    getrusage(RUSAGE_CHILDREN, &kids1);
    double main_cpu = tv_ms(ru.ru_utime, ru.ru_stime);
    double kids_cpu = tv_ms(kids1.ru_utime, kids1.ru_stime) - tv_ms(kids0.ru_utime, kids0.ru_stime);
    double cpu = main_cpu > kids_cpu ? main_cpu : kids_cpu;
    if (cg0 >= 0) {
        double tree = (cgroup_cpu_ms() - cg0) - (self_cpu_ms() - self0);
        if (tree > cpu) cpu = tree;
    }

    int dirty = 0;
    if (clean_ipc) remove_ipc();
    for (int i = 0; i < n_roots; i++)
        if (roots[i].fd >= 0 && wipe(&roots[i])) dirty = DIRTY_FILES;
    int64_t ooms = 0;
    if (oom_fd >= 0) { /* OOM kills since the last run: every one is a run's (the host keeps count) */
        long long now = oom_kills();
        ooms = now - oom_seen;
        oom_seen = now;
    }
    if (!dirty && !settled()) dirty = DIRTY_MEMORY;

    struct reply reply = {
        WIFEXITED(status) ? WEXITSTATUS(status) : -1,
        WIFSIGNALED(status) ? WTERMSIG(status) : -1,
        cpu, wall, ru.ru_maxrss, killed, out_s.sent, err_s.sent, dirty, ooms, start_failed,
    };
    emit_reply(&reply);
    free(artifact);
    for (uint32_t i = 0; i < argc; i++) free(argv[i]);
    free(argv);
    if (dirty) { /* nothing more may run in this jail: the host replaces it */
        flush_out();
        _exit(0);
    }
    if (flags & FLAG_FLUSH) flush_out();
}

/* The compile jail's launcher (see the usage above). */
static int launch(int argc, char **argv) {
    int status = atoi(argv[2]);
    if (write(status, "L", 1) != 1) return 125;
    /* The status pipe and whatever else the jail was handed stay with us. */
    if (syscall(SYS_close_range, 3, ~0U, 4 /* CLOSE_RANGE_CLOEXEC */)) {
        for (int fd = 3; fd < 1024; fd++) fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    (void)argc;
    execvp(argv[3], argv + 3);
    int32_t e = errno;
    char msg[5] = {'E'};
    memcpy(msg + 1, &e, 4);
    write(status, msg, sizeof msg);
    return 127;
}

int main(int argc, char **argv) {
    if (argc >= 4 && !strcmp(argv[1], "--exec")) return launch(argc, argv);
    if (argc < 9) {
        fprintf(stderr, "usage: %s CACHE_FD CPU_FD RUN_DIR KILL_ALL NPROC_BASE CLEAN_IPC MEMORY STDIO_FD [WIPE_DIR...]\n",
                argv[0]);
        return 2;
    }
    cache_fd = atoi(argv[1]);
    cpu_fd = atoi(argv[2]);
    run_dir = argv[3];
    kill_all = atoi(argv[4]);
    nproc_base = atol(argv[5]);
    clean_ipc = atoi(argv[6]);
    if (strcmp(argv[7], "-") &&
        sscanf(argv[7], "%d,%d,%d,%d,%lld,%lld", &mem_usage_fd, &mem_stat_fd, &oom_fd, &mem_v2,
               &settle_slack, &settle_wait_ms) != 6) {
        fprintf(stderr, "tczoo-worker: bad MEMORY argument %s\n", argv[7]);
        return 2;
    }
    int memory_fds[] = {mem_usage_fd, mem_stat_fd, oom_fd};
    for (int i = 0; i < 3; i++)
        if (memory_fds[i] >= 0 && fcntl(memory_fds[i], F_SETFD, FD_CLOEXEC)) die("memory fd");
    stdio_fd = atoi(argv[8]);
    if (stdio_fd >= 0 && fcntl(stdio_fd, F_SETFD, FD_CLOEXEC)) die("stdio fd");
    n_roots = argc - 9;
    /* The cache and cgroup fds are ours alone: never inherited by a program. */
    if (fcntl(cache_fd, F_SETFD, FD_CLOEXEC)) die("cache fd");
    if (cpu_fd >= 0 && fcntl(cpu_fd, F_SETFD, FD_CLOEXEC)) die("cpu fd");
    if (cpu_fd >= 0 && cgroup_cpu_ms() < 0) cpu_fd = -1;
    my_uid = getuid();
    /* The writable roots stay open, with their modes as the jail made them. */
    roots = calloc((size_t)n_roots + 1, sizeof *roots);
    for (int i = 0; i < n_roots; i++) {
        roots[i].fd = open(argv[9 + i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (roots[i].fd >= 0 && fstat(roots[i].fd, &roots[i].after) == 0)
            roots[i].mode = roots[i].after.st_mode & 07777;
        else
            roots[i].mode = 0700;
    }
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) ncpu = CPU_COUNT(&set);
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
    /* The seccomp filter goes on the worker, once: every program inherits it. Installed
       per run it cost ~80 us of each run (a BPF JIT compile and its executable memory). */
    struct sock_fprog prog = {sizeof seccomp_code / sizeof seccomp_code[0], seccomp_code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
        fprintf(stderr, "tczoo-worker: no seccomp filter (%s): kernel keyrings stay open\n", strerror(errno));
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP && s != SIGCHLD) signal(s, SIG_IGN);
    /* The idle jail's memory, which every run must leave as it found it. Touch our
       own buffers first: they are the worker's, not a run's. */
    memset(obuf, 0, sizeof obuf);
    memset(rbuf, 0, sizeof rbuf);
    if (mem_usage_fd >= 0) {
        base_usage = read_number(mem_usage_fd);
        base_held = held_memory();
        oom_seen = oom_kills();
    }
    char ready = 'R';
    write_all(ctrl_out, &ready, 1);
    for (;;) {
        if (!request_waiting()) flush_out(); /* the host waits for these */
        uint32_t magic = rd32();
        if (magic != MAGIC) { errno = EPROTO; die("bad request"); }
        handle();
    }
}
