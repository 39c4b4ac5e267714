import Foundation

/// The arguments nexus-bench and nexus-soak both take, NEXUSCTL NEXUSD WORKDIR; anything
/// else prints the usage line of `tool` and exits 2.
public func toolArguments(_ tool: String) -> (nexusctl: String, nexusd: String, work: String) {
    let args = CommandLine.arguments
    guard args.count == 4 else {
        FileHandle.standardError.write(Data("usage: \(tool) NEXUSCTL NEXUSD WORKDIR\n".utf8))
        exit(2)
    }
    return (args[1], args[2], args[3])
}
