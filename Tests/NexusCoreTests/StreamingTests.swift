import Foundation
import NexusCore
import Testing

/// `Sending.stream` (`send --each-line` on a pipe) in-process, against the fake server:
/// lines that arrive together go in one batch, later lines in their own, at once.
struct StreamingTests {
    let profile: Profile
    let server = FakeSendingServer()
    let sending: Sending

    init() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("nexus-stream-\(UUID().uuidString)").path
        profile = Profile(name: "t", home: home)
        try profile.ensureDirectory()
        sending = Sending(profile: profile, api: server)
    }

    /// A pipe whose writer writes `chunks`, `gap` seconds apart, then closes.
    func pipe(_ chunks: [String], gap: Double) -> Int32 {
        // A stream stopped by a NUL closes its end before the last chunk is written: that
        // write fails with EPIPE, as SIGPIPE is ignored in the runner (Tests/TestProcess).
        var fds: [Int32] = [-1, -1]
        _ = Foundation.pipe(&fds)
        let writer = fds[1]
        Thread.detachNewThread {
            for (i, chunk) in chunks.enumerated() {
                if i > 0 { Thread.sleep(forTimeInterval: gap) }
                let bytes = Array(chunk.utf8)  // NULs included
                _ = bytes.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
            }
            close(writer)
        }
        return fds[0]
    }

    func stream(_ fd: Int32, settled: inout [[String]]) throws -> Sending.StreamResult {
        var input = LineStream(fd: fd)
        defer { close(fd) }
        return try sending.stream(
            &input, conversationId: 7, to: nil, lock: .wait(onBusy: nil), check: { Limits.problem(withText: $0) },
            settled: { _, done in settled.append(done.map(\.entry.text)) })
    }

    @Test func linesThatArriveTogetherGoInOneBatchAndLaterOnesAtOnce() throws {
        var settled: [[String]] = []
        let start = Date()
        let result = try stream(pipe(["a\nb\n\nc\n", "d\n", "e"], gap: 0.3), settled: &settled)
        #expect(result.end == .endOfInput)
        #expect(result.queued == 5 && result.stillQueued.isEmpty)
        #expect(server.batches.map { $0.map(\.text) } == [["a", "b", "c"], ["d"], ["e"]])
        #expect(settled == [["a", "b", "c"], ["d"], ["e"]])
        #expect(Date().timeIntervalSince(start) < 1.5)
    }

    @Test func whileTheServerIsDownLinesQueueAndGoWhenItIsBack() throws {
        // The first two tries find nothing listening; the stream keeps reading meanwhile.
        server.faults = [.unreachable("connection refused"), .unreachable("connection refused")]
        var settled: [[String]] = []
        let result = try stream(pipe(["one\n", "two\n", "three\n"], gap: 0.4), settled: &settled)
        #expect(result.end == .endOfInput && result.stillQueued.isEmpty)
        #expect(server.messages(in: 7).map(\.text) == ["one", "two", "three"])
        #expect(try sending.outbox.read().entries.allSatisfy { $0.status == .sent })
    }

    @Test func aBadLineStopsTheStreamAndNothingThatCameWithItIsQueued() throws {
        var settled: [[String]] = []
        let result = try stream(pipe(["fine\n", "also fine\nnul\u{0}here\n", "never read\n"], gap: 0.3), settled: &settled)
        #expect(result.end == .refused(line: 3, problem: Limits.problem(withText: "nul\u{0}here")!))
        #expect(result.queued == 1)
        #expect(try sending.outbox.read().entries.map(\.text) == ["fine"])
    }
}
