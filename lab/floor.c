/* The least a reader of an evdev device can do: wait with epoll, read what is waiting, nothing else.
 * The lab runs it next to touchbridged and libinput as the floor of the CPU figure.
 *
 * `floor DEVICE BYTES`: also write BYTES to a Unix stream socket after every wakeup, read by a child
 * process that discards them: the floor of a daemon that hands each frame's lines to a client (the
 * child's CPU time is its own, as a client's is). */
#include <fcntl.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 2 && argc != 3) { fprintf(stderr, "usage: floor /dev/input/eventN [bytes-per-wakeup]\n"); return 2; }
    int fd = open(argv[1], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) { perror(argv[1]); return 1; }
    size_t bytes = argc == 3 ? (size_t)atol(argv[2]) : 0;
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
            static char sink[1 << 16];
            while (read(sv[1], sink, sizeof sink) > 0) {}
            _exit(0);
        }
        close(sv[1]);
        out = sv[0];
    }
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
