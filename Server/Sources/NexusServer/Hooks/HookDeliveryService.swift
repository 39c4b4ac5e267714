import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NexusWire
import ServiceLifecycle
import Synchronization

/// Makes outgoing webhook deliveries from the queue in the database (hook_deliveries,
/// filled by a trigger in the send's own transaction), off the send's path: a send only
/// wakes this worker after its commit.
///
/// Each hook has one lane at a time: its due deliveries go out one after another, in
/// order. A failure ends the lane: the failed delivery waits out its backoff (1 s, 2 s,
/// 4 s … up to an hour) and the hook's later ones wait with it, so a receiver that is down
/// is not hammered and order holds. At least once: a delivery is marked done after its 2xx,
/// so a crash in between repeats it, with the same delivery id.
struct HookDeliveryService: Service {
    let services: AppServices
    let logger: Logger

    private var store: any HookStore { services.stores.hooks }
    private var runtime: HookRuntime { services.hooks }
    private var settings: HookSettings { services.hooks.settings }
    static let laneSize = 20

    func run() async throws {
        let client = AsyncHTTPClient.HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(
                redirectConfiguration: .disallow,
                timeout: .init(connect: .seconds(min(5, settings.timeoutSeconds)), read: .seconds(settings.timeoutSeconds))))
        await cancelWhenGracefulShutdown { await self.loop(client) }
        try? await client.shutdown()
    }

    private func loop(_ client: AsyncHTTPClient.HTTPClient) async {
        let busy = BusyHooks()
        var refreshedAt: Int64 = -1_000_000
        await runtime.migrated.wait(timeout: .seconds(86_400))
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                let now = services.clock()
                // Hooks made or revoked on another replica, or disabled, reach the send path's check here.
                if now.milliseconds - refreshedAt >= 5_000, let set = try? await store.outgoingConversations() {
                    runtime.setOutgoing(set)
                    refreshedAt = now.milliseconds
                }
                let skip = Array(busy.set.withLock { $0 })
                let due: [PendingDelivery]
                do {
                    due = try await store.claim(limit: 100, now: now, leaseMs: settings.leaseSeconds * 1000, busy: skip)
                } catch {
                    logger.warning("webhooks: can't read the delivery queue: \(String(reflecting: error))")
                    await runtime.wake.wait(timeout: .seconds(1))
                    continue
                }
                var lanes: [Int64: [PendingDelivery]] = [:]
                for d in due where (lanes[d.hookId]?.count ?? 0) < Self.laneSize { lanes[d.hookId, default: []].append(d) }
                // Claimed beyond a lane's size: leased for nothing; release at once (PostgreSQL).
                let spare = due.filter { d in !(lanes[d.hookId]?.contains { $0.id == d.id } ?? false) }
                if !spare.isEmpty {
                    _ = try? await store.record(spare.map { DeliveryOutcome(delivery: $0, at: now, status: nil, latencyMs: 0, error: nil, retryAt: now, tried: false) }, giveUpBefore: Timestamp(milliseconds: 0))
                }
                for (hook, items) in lanes {
                    busy.set.withLock { _ = $0.insert(hook) }
                    group.addTask {
                        await self.deliver(items, client)
                        busy.set.withLock { _ = $0.remove(hook) }
                        self.runtime.wake.fire()
                    }
                }
                if !lanes.isEmpty { continue }
                var wait = Duration.seconds(runtime.hasOutgoing ? 1 : 5)
                if let next = try? await store.nextDue(), next.milliseconds > now.milliseconds {
                    wait = min(wait, .milliseconds(next.milliseconds - now.milliseconds))
                }
                await runtime.wake.wait(timeout: wait)
            }
        }
    }

    /// One lane: a hook's deliveries in order, until one fails or the lease runs short.
    private func deliver(_ items: [PendingDelivery], _ client: AsyncHTTPClient.HTTPClient) async {
        var outcomes: [DeliveryOutcome] = []
        let started = ContinuousClock.now
        for (index, d) in items.enumerated() {
            let outcome = await attempt(d, client)
            outcomes.append(outcome)
            let rest = items.dropFirst(index + 1)
            let late = ContinuousClock.now - started > .seconds(settings.leaseSeconds) / 2
            if outcome.error != nil || late {
                let retryAt = outcome.error != nil ? outcome.retryAt : outcome.at
                outcomes += rest.map {
                    DeliveryOutcome(delivery: $0, at: outcome.at, status: nil, latencyMs: 0, error: nil, retryAt: retryAt, tried: false)
                }
                break
            }
        }
        let giveUpBefore = Timestamp(milliseconds: services.clock().milliseconds - settings.giveUpSeconds * 1000)
        for wait in [0, 1, 2, 4] {
            if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
            do {
                let disabled = try await store.record(outcomes, giveUpBefore: giveUpBefore)
                for hook in disabled { logger.warning("webhooks: disabled hook \(hook): its receiver has failed for \(settings.giveUpSeconds) s") }
                if !disabled.isEmpty, let set = try? await store.outgoingConversations() { runtime.setOutgoing(set) }
                return
            } catch {
                logger.warning("webhooks: can't record deliveries: \(String(reflecting: error))")
            }
        }
        // Unrecorded: the deliveries stay due and are made again, with the same ids.
    }

    private func attempt(_ d: PendingDelivery, _ client: AsyncHTTPClient.HTTPClient) async -> DeliveryOutcome {
        let event = HookEvent(
            event: d.event, deliveryId: String(d.id), hook: d.hookName, conversationId: d.message?.conversationId ?? 0,
            message: d.message, sender: d.sender, change: d.change, actor: d.actor)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        let body = (try? Array(encoder.encode(event))) ?? []
        var request = HTTPClientRequest(url: d.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "nexusd-webhooks")
        request.headers.add(name: "X-Nexus-Event", value: d.event)
        request.headers.add(name: "X-Nexus-Delivery", value: String(d.id))
        request.headers.add(name: HookSigning.header, value: HookSigning.signature(body: body, secret: d.secret))
        request.body = .bytes(ByteBuffer(bytes: body))
        let at = services.clock()
        let start = ContinuousClock.now
        var status: Int?
        var error: String?
        do {
            let response = try await client.execute(request, timeout: .seconds(settings.timeoutSeconds))
            status = Int(response.status.code)
            // Read (and drop) the answer, so the connection can serve the next delivery.
            _ = try? await response.body.collect(upTo: 64 * 1024)
            if !(200..<300).contains(response.status.code) { error = "HTTP \(response.status.code)" }
        } catch let e as AsyncHTTPClient.HTTPClientError where e == .deadlineExceeded || e == .readTimeout || e == .connectTimeout {
            error = "no answer within \(settings.timeoutSeconds) s"
        } catch let e {
            error = Self.describe(e)
        }
        let elapsed = ContinuousClock.now - start
        let latency = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        let retryAt = Timestamp(milliseconds: at.milliseconds + settings.backoffMs(afterAttempt: d.attempt))
        return DeliveryOutcome(
            delivery: d, at: at, status: status, latencyMs: latency, error: error, retryAt: retryAt,
            giveUpReason: "Every delivery since the first failure has failed for over \(Self.span(settings.giveUpSeconds)) "
                + "(last: \(error ?? "?") at \(at.iso8601)). Fix the receiver, then revoke this hook and create it again.")
    }

    static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        if text.contains("remoteConnectionClosed") { return "the receiver closed the connection without an answer" }
        return String(text.prefix(200))
    }

    static func span(_ seconds: Int64) -> String {
        seconds % 86_400 == 0 ? "\(seconds / 86_400) day(s)" : seconds % 3600 == 0 ? "\(seconds / 3600) hour(s)" : "\(seconds) s"
    }
}

/// The hooks with a lane under way, which the next claim skips.
private final class BusyHooks: Sendable {
    let set = Mutex<Set<Int64>>([])
}
