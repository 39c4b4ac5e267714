#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NexusCLI

// Environment straight from the C runtime: no Foundation start-up cost.
var environment: [String: String] = [:]
var entry = environ
while let pointer = entry.pointee {
    let pair = String(cString: pointer)
    if let eq = pair.firstIndex(of: "=") {
        environment[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
    }
    entry += 1
}
exit(NexusCLI.run(arguments: Array(CommandLine.arguments.dropFirst()), environment: environment, terminal: SystemTerminal()))
