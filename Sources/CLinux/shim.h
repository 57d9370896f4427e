// Linux interfaces Swift's Glibc module does not bring in: epoll, timerfd, signalfd, peer credentials.
#ifndef TOUCHBRIDGE_CLINUX_H
#define TOUCHBRIDGE_CLINUX_H
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <spawn.h>
#include <signal.h>
#include <malloc.h>
#include <sys/random.h>

static inline int clinux_epoll_in(void) { return EPOLLIN; }
static inline int clinux_epoll_out(void) { return EPOLLOUT; }
static inline int clinux_epoll_hup(void) { return EPOLLHUP | EPOLLERR | EPOLLRDHUP; }
/// The peer closed both directions (or the socket failed): reported whatever the interest.
static inline int clinux_epoll_closed(void) { return EPOLLHUP | EPOLLERR; }

/// SO_PEERCRED (the peer's pid, uid and gid: three ints), without _GNU_SOURCE's struct ucred.
static inline int clinux_so_peercred(void) { return SO_PEERCRED; }
/// SO_PEERGROUPS (the peer's supplementary groups, Linux 4.13): whom `--control-group` admits.
#ifdef SO_PEERGROUPS
static inline int clinux_so_peergroups(void) { return SO_PEERGROUPS; }
#else
static inline int clinux_so_peergroups(void) { return 59; }
#endif

/// glibc's mmap threshold, fixed (mallopt(M_MMAP_THRESHOLD)): blocks of `bytes` or more get mappings
/// of their own, given back to the kernel when freed. Returns 1 on success.
static inline int clinux_fix_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }
/// getrandom(2), the kernel's random source, filling `n` bytes: the visualizer's token. Returns the
/// bytes written, or -1.
static inline long clinux_getrandom(void *buffer, unsigned long n) { return (long)getrandom(buffer, n, 0); }
#endif
