#include "Worker.h"
#include <stdlib.h>

static pthread_mutex_t registryLock = PTHREAD_MUTEX_INITIALIZER;
static nexus_worker *registry[4];
static int registered;

static void nexus_join_workers_at_exit(void) {
    pthread_mutex_lock(&registryLock);
    for (int i = 0; i < registered; i++) {
        pthread_mutex_lock(&registry[i]->lock);
        nexus_worker_join(registry[i]);
        pthread_mutex_unlock(&registry[i]->lock);
    }
    pthread_mutex_unlock(&registryLock);
}

void nexus_worker_join(nexus_worker *worker) {
    if (worker->running) {
        pthread_join(worker->thread, NULL);
        worker->running = 0;
    }
}

int nexus_worker_start(nexus_worker *worker, void *(*body)(void *), void *argument) {
    nexus_worker_join(worker);
    if (!worker->joinedAtExit) {
        pthread_mutex_lock(&registryLock);
        int fits = registered < (int)(sizeof registry / sizeof registry[0])
            && (registered > 0 || atexit(nexus_join_workers_at_exit) == 0);
        if (fits) registry[registered++] = worker;
        pthread_mutex_unlock(&registryLock);
        if (!fits) return 0;
        worker->joinedAtExit = 1;
    }
    if (pthread_create(&worker->thread, NULL, body, argument) != 0) return 0;
    worker->running = 1;
    return 1;
}
