import Foundation
import Synchronization
import Testing
@testable import NexusCore

/// A long list is kept in the cache on a thread of its own while the caller shows
/// it (`OfflineFirst.read(keepingAside:)`); `kept()` waits for it and tells what went wrong.
struct OfflineFirstKeepingAsideTests {
    /// The read returns while the keeping still waits for the caller: kept aside, not in line.
    @Test func theAnswerIsKeptBesideTheCaller() throws {
        let go = DispatchSemaphore(value: 0)
        let keptOn = Mutex<pthread_t?>(nil)
        let read = OfflineFirst<Int>(
            server: { () throws(APIError) in 7 },
            remember: { value throws(StoreError) in
                // In line, this would hold the read for its whole 5 s and fail it.
                guard go.wait(timeout: .now() + 5) == .success else { throw StoreError(path: "cache", reason: "kept in line") }
                keptOn.withLock { $0 = pthread_self() }
            },
            fallback: { _ throws(ReadError) in 0 })
        let started = Date()
        let fetched = try read.read(keepingAside: true)
        #expect(Date().timeIntervalSince(started) < 2, "the read waited for its keeping")
        #expect(fetched.value == 7 && fetched.fromServer && fetched.cacheProblems.isEmpty)
        go.signal()
        #expect(fetched.kept().isEmpty)
        let thread = try #require(keptOn.withLock { $0 })
        #expect(pthread_equal(thread, pthread_self()) == 0)
    }

    @Test func whatWentWrongKeepingItIsToldByKept() throws {
        let failure = StoreError(path: "convos.tsv", reason: "disk full")
        let read = OfflineFirst<Int>(
            server: { () throws(APIError) in 7 }, remember: { _ throws(StoreError) in throw failure }, fallback: { _ throws(ReadError) in 0 })
        let aside = try read.read(keepingAside: true)
        #expect(aside.cacheProblems.isEmpty)
        #expect(aside.kept() == [.write(failure)])
        // Not aside: told at once, as before.
        let inLine = try read.read()
        #expect(inLine.cacheProblems == [.write(failure)] && inLine.kept().isEmpty)
    }
}
