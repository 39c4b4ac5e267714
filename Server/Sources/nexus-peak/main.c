// nexus-peak OUTFILE COMMAND [ARG...]: runs COMMAND and writes its peak resident memory, in
// KiB, to OUTFILE; exits with COMMAND's status.
//
// Why a separate C program: on Linux a child's ru_maxrss starts from the high-water mark of
// the address space it replaced at exec. A child spawned by nexus-bench (posix_spawn is
// vfork, and fork copies the parent's pages) therefore reports at least nexus-bench's own
// peak, hundreds of MiB after a large fill. A child forked from this small program starts
// from this program's peak, about 1 MiB.
#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: nexus-peak OUTFILE COMMAND [ARG...]\n");
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("nexus-peak: fork");
        return 127;
    }
    if (pid == 0) {
        execv(argv[2], argv + 2);
        perror(argv[2]);
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    while (wait4(pid, &status, 0, &usage) < 0) {
        if (errno != EINTR) {
            perror("nexus-peak: wait4");
            return 127;
        }
    }
    FILE *out = fopen(argv[1], "w");
    if (out == NULL) {
        perror(argv[1]);
        return 127;
    }
    fprintf(out, "%ld\n", usage.ru_maxrss);
    fclose(out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
