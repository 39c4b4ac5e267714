import Testing

extension Trait where Self == TimeLimitTrait {
    /// How long an integration suite may take before it counts as hung. Not the suite's own
    /// time: the suites run in parallel, their tests block the cooperative pool's threads (2
    /// on a 2-core machine) while nexusctl runs, and a test's clock starts when the run
    /// queues it. So each limit bounds the whole run: 3 to 4 minutes on PostgreSQL; with two
    /// busy loops beside it, 6, when limits of 5 minutes failed six tests that had not hung.
    static var harness: Self { .timeLimit(.minutes(15)) }
}
