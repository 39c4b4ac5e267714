#include "TailEpoll.h"

#include <stdlib.h>
#include <sys/epoll.h>

int tail_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int tail_epoll_add(int epoll, int fd, unsigned int tag) {
    struct epoll_event event = {.events = EPOLLIN, .data.u32 = tag};
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
}

int tail_epoll_remove(int epoll, int fd) {
    struct epoll_event unused = {0};
    return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, &unused);
}

int tail_epoll_wait(int epoll, unsigned int *tags, int max, int timeout_ms) {
    struct epoll_event events[1024];
    if (max > 1024) max = 1024;
    int n = epoll_wait(epoll, events, max, timeout_ms);
    for (int i = 0; i < n; i++) tags[i] = events[i].data.u32;
    return n;
}
