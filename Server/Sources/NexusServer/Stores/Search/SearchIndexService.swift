import Hummingbird
import Logging
import ServiceLifecycle

/// Moves messages waiting for the search index into it (SQLiteSearchStore.indexPending),
/// in transactions of up to `batch` messages, moments after their commit: one FTS5
/// segment for many sends instead of one for each group commit. A long backlog (a bulk
/// import, an index rebuilt) logs its progress every few seconds while nexusd serves.
struct SearchIndexService: Service {
    let services: AppServices
    let logger: Logger
    var batch = 5_000

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            var failures = 0
            var lastLog = ContinuousClock.now
            // The messages indexed since the list was last empty, and whether this run logs.
            var done = 0
            var logging = false
            // One rest first, as after an idle pass, so the rest holds from the start (a
            // first pass racing the first sends indexed some of them at once: a test that
            // rests an hour saw fewer waiting than it sent).
            try await Task.sleep(for: .milliseconds(services.limits.searchIndexIdleMilliseconds))
            while !Task.isCancelled {
                let (indexed, left): (Int, Int)
                do {
                    (indexed, left) = try await services.stores.search.indexPending(limit: batch)
                } catch {
                    // The first passes can come before the migrations made the table.
                    failures += 1
                    if failures >= 10 {
                        logger.warning("search index: could not index waiting messages; trying again", metadata: ["error": "\(error)"])
                    }
                    try await Task.sleep(for: .milliseconds(failures >= 10 ? 1000 : 200))
                    continue
                }
                failures = 0
                if done == 0 && indexed > 0 && indexed + left >= Self.logBacklog {
                    logging = true
                    lastLog = ContinuousClock.now
                    logger.notice("search index: \(indexed + left) messages wait for the index; indexing them while serving")
                }
                done += indexed
                if logging && (left == 0 || ContinuousClock.now - lastLog >= .seconds(5)) {
                    logger.notice("search index: \(done) messages indexed, \(left) to go")
                    lastLog = ContinuousClock.now
                }
                if left == 0 {
                    done = 0
                    logging = false
                    // Also the index's usual lag (ServerLimits.searchIndexIdleMilliseconds).
                    try await Task.sleep(for: .milliseconds(services.limits.searchIndexIdleMilliseconds))
                }
            }
        }
    }

    /// A backlog this long is logged.
    static let logBacklog = 10_000
}
