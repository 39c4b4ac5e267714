#ifndef NEXUS_TEST_PROCESS_H
#define NEXUS_TEST_PROCESS_H
/// 1 when SIGPIPE is ignored in this process (set before any test by a constructor).
int nexus_tests_sigpipe_ignored(void);
#endif
