import NexusCore

/// The keys of the new-conversation screen: typing searches the server's users, Space
/// marks, Enter opens the direct conversation with one person or names a group of several.
extension ChatLoop {
    func startPicking() {
        let picker = ContactPicker()
        model.locked { _ in self.picker = picker }
        screen = .picker
        worker.searchUsers("", into: picker)
    }

    func pickerKey(_ key: Key) {
        guard let picker else { return }
        if model.locked({ _ in picker.naming != nil }) { return namingKey(key, picker) }
        var search: String?
        var start: [User]?
        model.locked { _ in
            switch key {
            case .up: picker.selected = max(0, picker.selected - 1)
            case .down: picker.selected = min(max(0, picker.found.count - 1), picker.selected + 1)
            case .text(" "):
                if let u = picker.found.dropFirst(picker.selected).first { picker.toggle(u) }
            case .text("?"): showingKeys = true
            case .text(let s):
                picker.query += s.filter { !$0.isNewline }
                search = picker.query
            case .backspace where !picker.query.isEmpty:
                picker.query.removeLast()
                search = picker.query
            case .enter where !picker.opening:
                let chosen = picker.marked.isEmpty ? Array(picker.found.dropFirst(picker.selected).prefix(1)) : picker.marked
                if chosen.count > 1 { picker.naming = LineEditor() } else if !chosen.isEmpty { start = chosen }
            default: break
            }
            if search != nil { picker.selected = 0; picker.answered = nil; picker.problem = nil }
        }
        if key == .escape { closePicker(); return }
        if let search { worker.searchUsers(search, into: picker) }
        if let start { create(with: start, name: nil, picker) }
    }

    private func namingKey(_ key: Key, _ picker: ContactPicker) {
        switch key {
        case .escape: model.locked { _ in picker.naming = nil; picker.problem = nil }
        case .enter:
            let (name, people) = model.locked { _ in (picker.naming?.text.trimmingSpaces() ?? "", picker.marked) }
            if !name.isEmpty, let problem = Identity.problem(withName: name, what: "title", checkLength: false) {
                model.locked { _ in picker.problem = problem }
                return
            }
            create(with: people, name: name.isEmpty ? nil : name, picker)
        default:
            model.locked { _ in _ = picker.naming?.apply(key) }
        }
    }

    /// Once: a second Enter while the server is at it would ask for a second group.
    private func create(with people: [User], name: String?, _ picker: ContactPicker) {
        let go = model.locked { _ -> Bool in
            guard !picker.opening else { return false }
            picker.opening = true
            picker.problem = nil
            return true
        }
        if go { worker.start(people.map(\.email), name: name, into: picker) }
    }

    func closePicker() {
        model.locked { _ in picker = nil }
        screen = .list
    }

    /// The conversation the picker got from the server, opened once it is there.
    func openPicked() {
        guard let id = model.locked({ _ in picker?.opened }) else { return }
        model.locked { _ in picker = nil }
        worker.refreshList()
        open(id)
    }
}
