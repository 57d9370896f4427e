/* The least a reader of an evdev device can do: wait with epoll, read what is waiting, nothing else.
 * The lab runs it next to touchbridged and libinput as the floor of the CPU figure. */
#include <fcntl.h>
#include <linux/input.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: floor /dev/input/eventN\n"); return 2; }
    int fd = open(argv[1], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) { perror(argv[1]); return 1; }
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    struct input_event buf[256];
    unsigned long events = 0;
    for (;;) {
        struct epoll_event out[8];
        if (epoll_wait(ep, out, 8, -1) < 0) continue;
        for (;;) {
            ssize_t n = read(fd, buf, sizeof buf);
            if (n <= 0) break;
            events += (unsigned long)n / sizeof buf[0];
            if ((size_t)n < sizeof buf) break;
        }
    }
}
