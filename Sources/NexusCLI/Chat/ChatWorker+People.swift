import NexusCore

/// The worker's part in starting a conversation: the server's users, then the
/// conversation, by the same core calls as `users --search` and `new`.
extension ChatWorker {
    /// The users matching `query`; skipped when the picker has moved on to another query
    /// meanwhile, so the keys typed while the server is slow make one call, not one each.
    func searchUsers(_ query: String, into picker: ContactPicker) {
        async { [self] in
            guard model.locked({ _ in picker.query == query }) else { return }
            let result: Result<[User], APIError>
            do throws(APIError) { result = .success(try api.users(search: query.isEmpty ? nil : query)) } catch { result = .failure(error) }
            model.change { _ in
                guard picker.query == query else { return }
                switch result {
                case .success(let users):
                    (picker.found, picker.answered, picker.problem) = (users, query, nil)
                    picker.selected = min(picker.selected, max(0, users.count - 1))
                case .failure(let error): picker.problem = why(error)
                }
            }
        }
    }

    /// The conversation with `emails`: the direct one with one person, reused as `new`
    /// reuses it (never a second), or the group of several, named `name`.
    func start(_ emails: [String], name: String?, into picker: ContactPicker) {
        async { [self] in
            do throws(APIError) {
                let made = try actions.open(emails, name: name).value.conversation
                model.change { m in
                    m.learn(made)
                    picker.opened = made.id
                }
            } catch {
                model.change { _ in
                    picker.opening = false
                    picker.problem = why(error)
                }
            }
        }
    }

    private func why(_ error: APIError) -> String {
        guard error.isNetwork else { return context.failure(error).message }
        return "A new conversation needs the server: can't reach \(Self.server(api))."
    }
}
