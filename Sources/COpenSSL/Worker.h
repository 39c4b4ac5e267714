// A thread that works beside the command: OpenSSL's start-up (OpenSSL.c) and the session
// file's write (SessionFile.c). exit() waits for it: the process must not be torn down
// under a thread still inside dlopen, OpenSSL or a file write.
#ifndef NEXUS_WORKER_H
#define NEXUS_WORKER_H

#include <pthread.h>

typedef struct {
    pthread_mutex_t lock;
    pthread_t thread;
    int running, joinedAtExit;
} nexus_worker;

#define NEXUS_WORKER_INITIALIZER {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0}

/// Waits for the worker's thread, if one runs. The caller holds worker->lock.
void nexus_worker_join(nexus_worker *worker);
/// Runs body(argument) on a new thread once the worker's previous one has ended. 0 when no
/// thread could be made: the caller then does the work itself. The caller holds worker->lock.
int nexus_worker_start(nexus_worker *worker, void *(*body)(void *), void *argument);

#endif
