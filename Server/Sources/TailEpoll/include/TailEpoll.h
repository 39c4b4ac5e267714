// nexus-bench's live tails (LiveTails.swift): epoll for 10,000 sockets. Swift's Glibc
// module has no epoll, and poll(2) scans every descriptor at each call, which on 2 cores
// took CPU from the nexusd being measured.
#ifndef TAIL_EPOLL_H
#define TAIL_EPOLL_H

/// A new epoll instance, or -1 (errno set).
int tail_epoll_create(void);
/// Watches `fd` for input; `tag` comes back from tail_epoll_wait. 0, or -1 (errno set).
int tail_epoll_add(int epoll, int fd, unsigned int tag);
/// Stops watching `fd`. 0, or -1.
int tail_epoll_remove(int epoll, int fd);
/// Up to `max` tags of ready descriptors into `tags`; their count, 0 after `timeout_ms`, or -1.
int tail_epoll_wait(int epoll, unsigned int *tags, int max, int timeout_ms);

#endif
