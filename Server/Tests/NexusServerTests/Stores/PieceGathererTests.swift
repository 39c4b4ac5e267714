import NIOCore
import Testing

@testable import NexusServer

/// The gatherer behind both stores' uploads: every byte once and in order, writes of about
/// `size`, and a buffer given back gathers the next write in its own memory.
@Suite struct PieceGathererTests {
    @Test func piecesComeOutWholeAndInOrder() {
        var gatherer = PieceGatherer(size: 1000, room: 100)
        var input: [UInt8] = []
        var output: [UInt8] = []
        var writes: [Int] = []
        for n in 0..<200 {
            // Uneven pieces, some crossing a write's end.
            let piece = (0..<(n * 37 % 301)).map { UInt8(truncatingIfNeeded: n &+ $0) }
            input += piece
            var buffer = ByteBuffer(bytes: piece)
            if gatherer.add(&buffer), let full = gatherer.take() {
                writes.append(full.readableBytes)
                output += full.readableBytesView
                gatherer.recycle(full)
            }
        }
        if let rest = gatherer.take() { output += rest.readableBytesView }
        #expect(output == input)
        #expect(writes.count > 20)
        let sized = writes.allSatisfy { (1000..<1000 + 301).contains($0) }
        #expect(sized)
        #expect(gatherer.take() == nil)
    }

    @Test func aRecycledBufferGathersTheNextWrite() {
        var gatherer = PieceGatherer(size: 64, room: 16)
        var piece = ByteBuffer(repeating: 1, count: 64)
        var full = gatherer.add(&piece)
        #expect(full)
        let memory: UInt
        do {
            let first = gatherer.take()!
            memory = first.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) }
            gatherer.recycle(first)
        }
        // Memory freed here would go to this allocation of the same size (glibc reuses a
        // freed block first), and the check below would pass without the recycling.
        let squatter = ByteBufferAllocator().buffer(capacity: 64 + 16)
        // Taken, the recycled buffer's memory gathers again, emptied.
        piece = ByteBuffer(repeating: 2, count: 64)
        full = gatherer.add(&piece)
        #expect(full)
        let second = gatherer.take()!
        piece = ByteBuffer(repeating: 3, count: 10)
        _ = gatherer.add(&piece)
        let gathering = gatherer.buffer.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) }
        #expect(gathering == memory)
        #expect(Array(gatherer.buffer.readableBytesView) == Array(repeating: 3, count: 10))
        #expect(Array(second.readableBytesView) == Array(repeating: 2, count: 64))
        withExtendedLifetime(squatter) {}
    }
}
