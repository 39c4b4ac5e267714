import BenchRoutes
import NexusdCommand

// nexusd-bench: nexusd with the bench's trivial routes (BenchRoutes), for `make bench` only;
// nexusd has neither them nor their flag. `--bench-below-hummingbird` also answers the
// route from below Hummingbird, on a nexusd-bench of its own.
var arguments = Array(CommandLine.arguments.dropFirst())
let below = arguments.contains("--bench-below-hummingbird")
arguments.removeAll { $0 == "--bench-below-hummingbird" }
await Nexusd.start(arguments, extensions: [BenchRoutes(belowHummingbird: below)])
