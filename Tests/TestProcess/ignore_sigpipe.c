#include <signal.h>
#include <stddef.h>
#include "test_process.h"

// The test runner starts children with pipes and talks to hung-up peers (FaultProxy, nexusd
// killed mid-request). A write to a pipe or socket whose reader is gone must fail with EPIPE
// in the test that did it, not kill the whole runner with SIGPIPE, whichever test writes first
// and whenever: CI's runner died of signal 13 twice while SIGPIPE was ignored only from the
// first test's setup. A constructor runs before any test.
__attribute__((constructor)) static void nexus_tests_ignore_sigpipe(void) {
    signal(SIGPIPE, SIG_IGN);
}

int nexus_tests_sigpipe_ignored(void) {
    struct sigaction current;
    return sigaction(SIGPIPE, NULL, &current) == 0 && current.sa_handler == SIG_IGN;
}
