import NIOCore
import NIOPosix

/// Resumes woken polls on the event loops of their connections, one hand-over a loop.
///
/// Swift concurrency runs on NIO's loops here (nexusd's main), and a job enqueued from a
/// loop stays on that loop. So every poll a send woke was resumed on the sender's loop: one
/// loop ran all 10,000 polls that a busy group's message woke, and each answer for a
/// connection of the other loop hopped there to be written.
struct LoopResumer<Item: Sendable>: Sendable {
    private var batches: [(loop: (any EventLoop)?, items: [Item])] = []

    mutating func add(_ item: Item, on loop: (any EventLoop)?) {
        if let i = batches.firstIndex(where: { $0.loop === loop }) {
            batches[i].items.append(item)
        } else {
            batches.append((loop, [item]))
        }
    }

    /// Resumes every item: on this thread for its own loop's (and those with none), in one
    /// task a loop for the others.
    func run(_ resume: @escaping @Sendable (Item) -> Void) {
        for (loop, items) in batches {
            guard let loop, !loop.inEventLoop else {
                items.forEach(resume)
                continue
            }
            loop.execute { items.forEach(resume) }
        }
    }
}

/// The loops of NIO's singleton group, which nexusd serves on and runs Swift concurrency on.
enum ServingLoops {
    private static let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())

    /// `loop` when it is one of them; nil for any other (the router test framework's loop
    /// runs what it is given only when a test tells it to).
    static func resumable(_ loop: (any EventLoop)?) -> (any EventLoop)? {
        guard let loop, loops.contains(where: { $0 === loop }) else { return nil }
        return loop
    }
}
