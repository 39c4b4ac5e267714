import Foundation

/// Waits (looking every 50 ms) until `condition` holds; false on timeout. For what shows
/// only in a file or on a screen: where a test can wait on the event itself, it does.
func waitFor(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.05)
    }
    return condition()
}

/// What a file holds as text so far (a pane's recording, say); empty while it is missing.
func written(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
