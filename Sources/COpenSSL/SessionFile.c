// Writes the saved TLS session on a thread of its own. TLS 1.3 sends a connection's
// tickets after the handshake, so each connection replaces the file after its first
// answer; the rename that makes the replacement atomic costs about 0.25 ms on ext4, and
// it came between the answer and what the command still had to do (for a send, the
// outbox's acknowledgement and its fsync). Now both go on at once, and the process
// waits for the write at exit. Same temporary file and rename as before: a reader sees
// the old session or the new one, never a mix.
#include "COpenSSL.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    size_t length;
    char *path;
    unsigned char bytes[];
} nexus_session_file;

static pthread_mutex_t saveLock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t saveThread;
static int saveRunning, joinRegistered;

static void *nexus_write_session(void *argument) {
    nexus_session_file *file = argument;
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%d", file->path, (int)getpid()) < (int)sizeof tmp) {
        int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd >= 0) {
            size_t done = 0;
            while (done < file->length) {
                ssize_t n = write(fd, file->bytes + done, file->length - done);
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0) break;
                done += (size_t)n;
            }
            fchmod(fd, 0600);
            close(fd);
            // A cache: a failed write leaves the old session, and the next command
            // makes a full handshake at worst.
            if (done != file->length || rename(tmp, file->path) != 0) unlink(tmp);
        }
    }
    free(file->path);
    free(file);
    return NULL;
}

static void nexus_join_save(void) {
    if (saveRunning) {
        pthread_join(saveThread, NULL);
        saveRunning = 0;
    }
}

static void nexus_join_save_at_exit(void) {
    pthread_mutex_lock(&saveLock);
    nexus_join_save();
    pthread_mutex_unlock(&saveLock);
}

void nexus_save_session_file(const char *path, const unsigned char *bytes, size_t length) {
    nexus_session_file *file = malloc(sizeof(nexus_session_file) + length);
    if (!file) return;
    file->length = length;
    memcpy(file->bytes, bytes, length);
    if (!(file->path = strdup(path))) {
        free(file);
        return;
    }
    pthread_mutex_lock(&saveLock);
    nexus_join_save(); // one write at a time: they share the temporary file's name
    if (!joinRegistered) joinRegistered = atexit(nexus_join_save_at_exit) == 0;
    if (joinRegistered && pthread_create(&saveThread, NULL, nexus_write_session, file) == 0) {
        saveRunning = 1;
    } else {
        nexus_write_session(file);
    }
    pthread_mutex_unlock(&saveLock);
}
