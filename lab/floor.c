/* The least a reader of an evdev device can do: wait with epoll, read what is waiting, nothing else.
 * The lab runs it next to touchbridged and libinput as the floor of the CPU figure.
 *
 * `floor DEVICE BYTES`: also write BYTES to a Unix stream socket after every wakeup, read by a child
 * process that discards them: the floor of a daemon that hands each frame's lines to a client (the
 * child's CPU time is its own, as a client's is).
 *
 * `floor DEVICE BYTES MODE [CPU CHILD-CPU]` takes that delivery apart (the lab's `--check wakeup`):
 * MODE "read" is the child above, blocked in read(2), so that every write wakes it; "lazy" is a child
 * that empties the socket every 50 ms without ever waiting on it, so that a write wakes no one. With
 * CPU and CHILD-CPU the reader and the child are pinned there: the same CPU, or one each. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/input.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void pin(const char *cpu) {
    if (!cpu) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(atoi(cpu), &set);
    if (sched_setaffinity(0, sizeof set, &set) < 0) perror("sched_setaffinity");
}

/* The child: discards what it reads, waiting in read(2) ("read") or never waiting ("lazy"). */
static void drain(int fd, int lazy) {
    static char sink[1 << 16];
    if (!lazy) {
        while (read(fd, sink, sizeof sink) > 0) {}
        return;
    }
    struct timespec pause = { 0, 50 * 1000 * 1000 };
    for (;;) {
        nanosleep(&pause, NULL);
        ssize_t n;
        while ((n = recv(fd, sink, sizeof sink, MSG_DONTWAIT)) > 0) {}
        if (n == 0) return;
    }
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 6 || argc == 5) {
        fprintf(stderr, "usage: floor /dev/input/eventN [bytes-per-wakeup [read|lazy [cpu child-cpu]]]\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) { perror(argv[1]); return 1; }
    size_t bytes = argc >= 3 ? (size_t)atol(argv[2]) : 0;
    int lazy = argc >= 4 && strcmp(argv[3], "lazy") == 0;
    if (argc >= 4 && !lazy && strcmp(argv[3], "read") != 0) { fprintf(stderr, "floor: mode is read or lazy\n"); return 2; }
    const char *cpu = argc == 6 ? argv[4] : NULL, *child_cpu = argc == 6 ? argv[5] : NULL;
    int out = -1;
    static char line[1 << 16];
    if (bytes) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) { perror("socketpair"); return 1; }
        if (bytes > sizeof line) bytes = sizeof line;
        memset(line, 'x', bytes);
        line[bytes - 1] = '\n';
        if (fork() == 0) {
            close(sv[0]);
            pin(child_cpu);
            drain(sv[1], lazy);
            _exit(0);
        }
        close(sv[1]);
        out = sv[0];
    }
    pin(cpu);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    struct input_event buf[256];
    unsigned long events = 0;
    for (;;) {
        struct epoll_event ready[8];
        if (epoll_wait(ep, ready, 8, -1) < 0) continue;
        for (;;) {
            ssize_t n = read(fd, buf, sizeof buf);
            if (n <= 0) break;
            events += (unsigned long)n / sizeof buf[0];
            if ((size_t)n < sizeof buf) break;
        }
        if (out >= 0 && send(out, line, bytes, MSG_NOSIGNAL) < 0) return 1;
    }
}
