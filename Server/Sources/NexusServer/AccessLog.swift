import Hummingbird
import Logging
import NIOCore

/// One `info` line a request, once its answer's head is ready:
/// `GET /v1/conversations/{id}/messages 200 1.3ms user=42`.
///
/// The route is the router's template, never the path asked for, and nothing of the query,
/// the headers or the body is written: paths hold ids and names, queries and bodies can
/// hold passwords and tokens, none of which belongs in a log. Below `info` nothing is
/// measured, allocated or written. A parked long poll is logged when it parks, since its
/// real answer is written later, below the router.
struct AccessLog: RouterMiddleware {
    let logger: Logger
    private let enabled: Bool

    init(logger: Logger) {
        self.logger = logger
        enabled = logger.logLevel <= .info
    }

    func handle(
        _ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        guard enabled else { return try await next(request, context) }
        let start = NIODeadline.now()
        var context = context
        let note = AccessNote()
        context.accessNote = note
        do {
            let response = try await next(request, context)
            write(request, context, status: response.status.code, since: start, note: note)
            return response
        } catch {
            write(request, context, status: (error as? any HTTPResponseError)?.status.code ?? 500, since: start, note: note)
            throw error
        }
    }

    private func write(_ request: Request, _ context: AppRequestContext, status: Int, since start: NIODeadline, note: AccessNote) {
        let micros = (NIODeadline.now() - start).nanoseconds / 1000
        let tenths = micros / 100
        // A request no route took has no template: its path may be anything, so it is not shown.
        let route = context.endpointPath ?? "(no route)"
        let user = note.userId.map { " user=\($0)" } ?? ""
        logger.info("\(request.method) \(route) \(status) \(tenths / 10).\(tenths % 10)ms\(user)")
    }
}

/// What a request's handlers learn that its access log line names (the caller), shared
/// by reference because each middleware gets its own copy of the context.
final class AccessNote: @unchecked Sendable {
    // Written by AuthenticationMiddleware and read by AccessLog after it, in one task.
    var userId: Int64?
}
