/// An offline-first read: the cache when it can answer alone, else the server (keeping
/// what it answers), else, when the server can't be reached, the cache's best answer
/// with the reason. Every read command follows this one policy; see `Reading`.
struct OfflineFirst<Value> {
    /// A complete answer from the cache alone, or nil when the server must be asked.
    public var cached: () throws(StoreError) -> Value?
    public var server: () throws(APIError) -> Value
    /// Keeps what the server answered, for later reads offline.
    public var remember: (Value) throws(StoreError) -> Void
    /// The cache's answer when the server can't be reached; `.cacheCannotAnswer` when it has none.
    public var fallback: (APIError) throws(ReadError) -> Value
    /// The cache's answer when the server says the caller is not a member (404 `not_found`):
    /// someone removed from a group keeps what they had read. Nil: the 404 is the answer.
    var formerMember: ((APIError) throws(ReadError) -> Value)?

    public init(
        cached: @escaping () throws(StoreError) -> Value? = { nil },
        server: @escaping () throws(APIError) -> Value,
        remember: @escaping (Value) throws(StoreError) -> Void,
        fallback: @escaping (APIError) throws(ReadError) -> Value,
        formerMember: ((APIError) throws(ReadError) -> Value)? = nil
    ) {
        self.cached = cached
        self.server = server
        self.remember = remember
        self.fallback = fallback
        self.formerMember = formerMember
    }

    /// Only a network failure turns to the cache: a refusal by the server is an answer.
    /// `keepingAside`: the server's answer is kept on a thread of its own while the caller
    /// shows it (a list of thousands takes milliseconds to write); `Fetched.kept()` waits.
    public func read(keepingAside: Bool = false) throws(ReadError) -> Fetched<Value> {
        var problems: [CacheProblem] = []
        do {
            if let value = try cached() { return Fetched(value: value, source: .cache) }
        } catch {
            problems.append(.read(error))
        }
        let value: Value
        do {
            value = try server()
        } catch {
            guard error.isNetwork else {
                guard case .server(404, "not_found", _, _) = error, let formerMember else { throw .api(error) }
                return Fetched(value: try formerMember(error), source: .notAMember(reason: error), cacheProblems: problems)
            }
            return Fetched(value: try fallback(error), source: .offline(reason: error), cacheProblems: problems)
        }
        let remember = remember
        let keep = { () -> [CacheProblem] in
            do throws(StoreError) { try remember(value) } catch { return [.write(error)] }
            return []
        }
        if keepingAside, let keeping = BackgroundWork.start(keep) {
            return Fetched(value: value, source: .server, cacheProblems: problems, keeping: keeping)
        }
        return Fetched(value: value, source: .server, cacheProblems: problems + keep())
    }
}

/// A value from an offline-first read, and where it came from.
public struct Fetched<Value> {
    public var value: Value
    public var source: ReadSource
    /// The cache failed on the way; the value is good, the cache may lag.
    public var cacheProblems: [CacheProblem] = []
    /// The server's answer being kept in the cache aside (`OfflineFirst.read(keepingAside:)`).
    var keeping: BackgroundWork<[CacheProblem]>?

    init(value: Value, source: ReadSource, cacheProblems: [CacheProblem] = [], keeping: BackgroundWork<[CacheProblem]>? = nil) {
        self.value = value
        self.source = source
        self.cacheProblems = cacheProblems
        self.keeping = keeping
    }

    /// Waits until the answer is kept; what went wrong keeping it. Before the process ends,
    /// and before anything else reads or writes the cache.
    public func kept() -> [CacheProblem] {
        keeping?.join() ?? []
    }

    public var fromServer: Bool {
        if case .server = source { return true }
        return false
    }

    /// Why the value comes from the cache, when the server could not be reached.
    public var offlineReason: APIError? {
        if case .offline(let reason) = source { return reason }
        return nil
    }

    /// True when the value is the cache's because the caller is no longer a member.
    public var fromFormerMembership: Bool {
        if case .notAMember = source { return true }
        return false
    }

    public func map<T>(_ transform: (Value) -> T) -> Fetched<T> {
        Fetched<T>(value: transform(value), source: source, cacheProblems: cacheProblems, keeping: keeping)
    }
}

/// Where an offline-first read's value came from.
public enum ReadSource {
    /// The cache held the whole answer; the server was not asked.
    case cache
    case server
    /// The server could not be reached; the value is the cache's.
    case offline(reason: APIError)
    /// The server answered 404: the caller is not a member (removed, or left); the value is
    /// what the cache kept from when they were.
    case notAMember(reason: APIError)
}

/// A cache that could not be read or written: worth a warning, never the read.
public enum CacheProblem: Error, Equatable, CustomStringConvertible {
    case read(StoreError)
    case write(StoreError)

    public var description: String {
        switch self {
        case .read(let error): return "could not read the local cache: \(error)"
        case .write(let error): return "could not update the local cache: \(error)"
        }
    }
}

public enum ReadError: Error {
    /// The server answered with a refusal, or could not be understood.
    case api(APIError)
    /// The cache could not be read when it was the only source.
    case store(StoreError)
    /// The server can't be reached and the cache can't answer this question.
    case cacheCannotAnswer(APIError)
}
