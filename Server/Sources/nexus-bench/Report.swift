import Foundation

/// One row of the table `make bench` prints, as it is measured.
struct Row {
    var name: String
    var value: String
    var target: String
    var ok: Bool?
}

/// Every row so far, in the order measured; only the main thread appends.
nonisolated(unsafe) var rows: [Row] = []

func report(_ name: String, _ value: String, target: String = "", ok: Bool? = nil) {
    rows.append(Row(name: name, value: value, target: target, ok: ok))
    FileHandle.standardError.write(Data("  \(name): \(value)\n".utf8))
}

func ms(_ v: Double) -> String { String(format: "%.2f ms", v) }

/// The rows as a Markdown table on stdout, for docs/benchmarks.md.
func printTable() {
    let nameWidth = rows.map(\.name.count).max() ?? 0
    let valueWidth = rows.map(\.value.count).max() ?? 0
    print("| measure".padding(toLength: nameWidth + 2, withPad: " ", startingAt: 0) + " | " + "value".padding(toLength: valueWidth, withPad: " ", startingAt: 0) + " | target | met |")
    print("|" + String(repeating: "-", count: nameWidth + 2) + "|" + String(repeating: "-", count: valueWidth + 2) + "|--------|-----|")
    for r in rows {
        let met = r.ok.map { $0 ? "yes" : "NO" } ?? ""
        print("| " + r.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + " | "
              + r.value.padding(toLength: valueWidth, withPad: " ", startingAt: 0) + " | \(r.target) | \(met) |")
    }
}
