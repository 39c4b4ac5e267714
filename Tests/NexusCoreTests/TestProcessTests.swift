import Testing
import TestProcess

/// The runner's own set-up (Tests/TestProcess): whatever test runs first, a write to a pipe
/// whose reader is gone fails in that test instead of killing the runner with SIGPIPE.
struct TestProcessTests {
    @Test func sigpipeIsIgnoredBeforeAnyTestRuns() {
        #expect(nexus_tests_sigpipe_ignored() == 1)
    }
}
