import LibC
import Synchronization

/// Work on a thread of its own beside the caller's, its result taken later (`join`): a long
/// list's second half read beside the first (SecondHalf), or the list kept in the cache while
/// it is shown (`OfflineFirst.read(keepingAside:)`). Joined by whoever started it, before what
/// the work reads goes away, and before anything else uses what it writes; and by exit() if
/// the process ends first (a closed pipe ends a command at its next write), so it is not torn
/// down in the middle of a file.
final class BackgroundWork<Result>: @unchecked Sendable {
    private var thread = pthread_t()
    /// Set by the thread; read only after `join`.
    private var result: Result?
    private var joined = false

    private init() {}

    /// Nil when no thread could be made: the caller then does the work itself.
    public static func start(_ body: @escaping () -> Result) -> BackgroundWork? {
        let work = BackgroundWork()
        // A C function cannot capture the generic type: the thread gets a plain closure.
        let run = Unmanaged.passRetained(Runner { work.result = body() }).toOpaque()
        let made = pthread_create(&work.thread, nil, { context in
            Unmanaged<Runner>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, run)
        guard made == 0 else {
            Unmanaged<Runner>.fromOpaque(run).release()
            return nil
        }
        Unjoined.add(ObjectIdentifier(work)) { work.join() }
        return work
    }

    /// Waits for the thread (once), and gives its result.
    @discardableResult
    public func join() -> Result {
        if !joined {
            pthread_join(thread, nil)
            joined = true
            Unjoined.remove(ObjectIdentifier(self))
        }
        return result!
    }
}

private final class Runner {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

/// The works not joined yet, joined at exit.
private enum Unjoined {
    static let works = Mutex<[ObjectIdentifier: @Sendable () -> Void]>([:])
    static let joinedAtExit: Bool = atexit { Unjoined.joinAll() } == 0

    static func add(_ id: ObjectIdentifier, join: @escaping @Sendable () -> Void) {
        _ = joinedAtExit
        works.withLock { $0[id] = join }
    }

    static func remove(_ id: ObjectIdentifier) {
        _ = works.withLock { $0.removeValue(forKey: id) }
    }

    static func joinAll() {
        // Each join removes itself: called outside the lock.
        for join in works.withLock({ Array($0.values) }) { join() }
    }
}
