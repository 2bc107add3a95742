import Foundation
import KeepTrack
import KeepTrackCLI

// The container commands run here, linking no C library (fast start-up); media commands are
// handed to keeptrack-media beside this executable.
OutputSignals.installCleanupHandlers()
let arguments = Array(CommandLine.arguments.dropFirst())
if MediaDelegation.needsMedia(arguments) { exit(MediaDelegation.execute(arguments)) }
exit(KeepTrackCommandLine.run(arguments))
