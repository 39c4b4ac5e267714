import Hummingbird
import Logging
import NIOCore
import NexusWire

/// Long polls parked in their connections' pipelines (ParkedPoll, ParkingHandler).
extension SyncController {
    /// Parks the poll and returns the stand-in answer that ParkingHandler swallows; nil when
    /// the poll must look again first (its feed moved) or cannot be parked.
    func park(_ poll: Poll, seen: UInt64, loop: any EventLoop, end: @escaping @Sendable () -> Void) -> Response? {
        // Hummingbird's idle timer restarts when the stand-in is written and does not see
        // the real answer: it must not close the connection before the poll ends.
        let remaining = poll.deadline - ContinuousClock.now
        guard remaining + .seconds(1) < .seconds(services.limits.idleTimeoutSeconds) else { return nil }
        let parked = ParkedPoll(poll: poll, controller: self, loop: loop, end: end)
        guard services.notifier.park(parked, seen: seen, timeout: remaining) else {
            parked.abandon()
            return nil
        }
        return Response(status: .ok, headers: [ParkingHandler.marker: String(parked.token)])
    }

    /// Looks again for parked polls that ask the same (one key): answers those that now
    /// have something to say, and parks the others again.
    func look(again polls: [ParkedPoll]) async {
        let poll = polls[0].poll
        var waiting = polls
        while !waiting.isEmpty {
            let seen = services.notifier.version(of: poll.viewer)
            let page: SharedFeedReads.Page
            let mutes: MuteSnapshot?
            do {
                // Removed (or left) while parked: the non-member's 404 now.
                if let conversationId = poll.conversationId {
                    _ = try await services.members(of: conversationId, viewer: poll.viewer)
                }
                page = try await read(poll, version: seen)
                // The same viewer's: one read for every poll of the key that asked.
                mutes = try await self.mutes(for: waiting.first { $0.poll.askedMutes != nil }?.poll ?? poll)
            } catch {
                let answer = Self.parkedAnswer(for: error)
                ParkedPoll.answer(waiting.map { ($0, answer) })
                return
            }
            // The page's answer, its headers made once for every poll that takes it.
            let shared = page.body.map(ParkedPoll.Answer.json)
            var answers: [(poll: ParkedPoll, answer: ParkedPoll.Answer)] = []
            var again: [ParkedPoll] = []
            for parked in waiting {
                do {
                    try await services.checkStillValid(parked.poll.credential)
                } catch {
                    answers.append((parked, Self.parkedAnswer(for: error)))
                    continue
                }
                switch reply(parked.poll, page: page, mutes: parked.poll.askedMutes == nil ? nil : mutes) {
                case .page:
                    if let shared { answers.append((parked, shared)) }
                case .own(let response):
                    do {
                        answers.append((parked, .json(try jsonBody(response))))
                    } catch {
                        answers.append((parked, Self.parkedAnswer(for: error)))
                    }
                case nil:
                    if !services.notifier.park(parked, seen: seen, timeout: parked.poll.deadline - ContinuousClock.now) {
                        again.append(parked)
                    }
                }
            }
            ParkedPoll.answer(answers)
            waiting = again
        }
    }

    /// The answer ErrorMiddleware would have made of `error`.
    private static func parkedAnswer(for error: any Error) -> ParkedPoll.Answer {
        let apiError = APIError.from(error, logger: logger)
        return .init(status: apiError.status, headers: apiError.responseHeaders, body: apiError.body)
    }
}

/// A parked poll's failure is logged as a request's would be, without its request.
private let logger = Logger(label: "nexusd")
