import NexusCore

/// An upload request's body made durable in steps of `Limits.maxUploadChunkBytes`: each
/// step's sync and record (its acknowledgement) runs while the next step's bytes arrive,
/// so the disk keeps writing while the network brings more, and the network keeps going
/// while the disk syncs. A step is recorded only once its bytes are on disk, and only after
/// the step before it: what is recorded is always a durable prefix of the upload.
struct DurableSteps {
    /// The end of the last step started: everything before it is durable or being made so.
    private var started: Int64
    private var underWay: Task<Void, any Error>?
    private let step: Int64

    init(offset: Int64, step: Int64 = Int64(Limits.maxUploadChunkBytes)) {
        started = offset
        self.step = step
    }

    /// True once a step's worth of bytes past the last step was written.
    func due(at end: Int64) -> Bool { end - started >= step }

    /// Waits for the step under way, then starts `work(from, to)` for the bytes up to `end`
    /// and returns without waiting for it.
    mutating func start(to end: Int64, _ work: @escaping @Sendable (Int64, Int64) async throws -> Void) async throws {
        try await finish()
        guard end > started else { return }
        let from = started
        underWay = Task { try await work(from, end) }
        started = end
    }

    /// Waits for the step under way, if any; throws what it threw.
    mutating func finish() async throws {
        guard let task = underWay else { return }
        underWay = nil
        try await task.value
    }
}
