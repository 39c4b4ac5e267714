// Writes the saved TLS session on a thread of its own. TLS 1.3 sends a connection's
// tickets after the handshake, so each connection replaces the file after its first
// answer; the rename that makes the replacement atomic costs about 0.25 ms on ext4, and
// it came between the answer and what the command still had to do (for a send, the
// outbox's acknowledgement and its fsync). Now both go on at once, and the process
// waits for the write at exit. Same temporary file and rename as before: a reader sees
// the old session or the new one, never a mix.
#include "COpenSSL.h"
#include "Worker.h"
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

static nexus_worker saver = NEXUS_WORKER_INITIALIZER;

// Reads the DER header at bytes[*at]: its tag, and its length in the short form or the
// long form (up to four bytes). 0 when the header or its contents overrun `end`.
static int nexus_der_header(const unsigned char *bytes, size_t end, size_t *at, unsigned char *tag, size_t *length) {
    size_t i = *at;
    if (end < 2 || i > end - 2) return 0;
    *tag = bytes[i++];
    size_t l = bytes[i++];
    if (l & 0x80) {
        size_t count = l & 0x7f;
        if (count == 0 || count > 4 || count > end - i) return 0;
        for (l = 0; count > 0; count--) l = (l << 8) | bytes[i++];
    }
    if (l > end - i) return 0;
    *at = i;
    *length = l;
    return 1;
}

// Drops the server's certificate (the [3] peer field of OpenSSL's SSL_SESSION_ASN1) from a
// saved session. Resuming never looks at it: the certificate was verified by the full
// handshake that made the session, and the session's key now authenticates the server.
// Yet decoding it cost every resumed command ~0.25 ms before its handshake (OpenSSL builds
// its key decoders for the certificate's public key); without it, ~0.01 ms.
// Bytes that are not the expected SEQUENCE are kept as they are. Returns the new length.
static size_t nexus_drop_peer_certificate(unsigned char *bytes, size_t length) {
    size_t at = 0, body, end;
    unsigned char tag;
    if (!nexus_der_header(bytes, length, &at, &tag, &body) || tag != 0x30 || at + body != length) return length;
    for (size_t i = at; i < length; i = end) {
        size_t start = i, content;
        if (!nexus_der_header(bytes, length, &i, &tag, &content)) return length;
        end = i + content;
        if (tag != 0xA3) continue;
        size_t kept = body - (end - start);
        unsigned char header[6] = {0x30};
        size_t headerLength = 2;
        if (kept < 0x80) {
            header[1] = (unsigned char)kept;
        } else {
            size_t count = kept > 0xFFFFFF ? 4 : kept > 0xFFFF ? 3 : kept > 0xFF ? 2 : 1;
            header[1] = (unsigned char)(0x80 | count);
            for (size_t k = 0; k < count; k++) header[2 + k] = (unsigned char)(kept >> (8 * (count - 1 - k)));
            headerLength += count;
        }
        // The new header is never longer than the old one (the body only shrank), so each
        // part moves towards the start: the fields before the certificate, then those after.
        memmove(bytes + headerLength, bytes + at, start - at);
        memmove(bytes + headerLength + (start - at), bytes + end, length - end);
        memcpy(bytes, header, headerLength);
        return headerLength + kept;
    }
    return length;
}

static void *nexus_write_session(void *argument) {
    nexus_session_file *file = argument;
    file->length = nexus_drop_peer_certificate(file->bytes, file->length);
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

void nexus_save_session_file(const char *path, const unsigned char *bytes, size_t length) {
    nexus_session_file *file = malloc(sizeof(nexus_session_file) + length);
    if (!file) return;
    file->length = length;
    memcpy(file->bytes, bytes, length);
    if (!(file->path = strdup(path))) {
        free(file);
        return;
    }
    // One write at a time (they share the temporary file's name): the worker starts this
    // one after the one before it has ended.
    pthread_mutex_lock(&saver.lock);
    if (!nexus_worker_start(&saver, nexus_write_session, file)) nexus_write_session(file);
    pthread_mutex_unlock(&saver.lock);
}
