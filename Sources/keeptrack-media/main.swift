import Foundation
import KeepTrack
import KeepTrackMediaCLI

// The media half of keeptrack (levels, reframe, demo, compare --levels). Users run `keeptrack`,
// which hands these commands over; running this directly works the same.
OutputSignals.installCleanupHandlers()
exit(MediaCommandLine.run(Array(CommandLine.arguments.dropFirst())))
