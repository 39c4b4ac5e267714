import CMallocTuning
import LibC
import NexusCLI

nexus_malloc_tune_for_commands()

// A parent may hand down a signal mask that blocks these (a libdispatch worker thread
// does); `tail -f` must still stop when it is told to.
var stopSignals = sigset_t()
sigemptyset(&stopSignals)
for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&stopSignals, signal) }
sigprocmask(SIG_UNBLOCK, &stopSignals, nil)

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
exit(NexusCLI.run(
    arguments: Array(CommandLine.arguments.dropFirst()), environment: environment, terminal: SystemTerminal(),
    replacedArguments: NexusCLI.argumentsNotUTF8()))
