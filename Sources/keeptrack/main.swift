import KeepTrackCLI
import Foundation
exit(KeepTrackCommandLine.run(Array(CommandLine.arguments.dropFirst())))
