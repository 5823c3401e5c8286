import Commands
import Foundation

exit(await Apnsd.main(Array(CommandLine.arguments.dropFirst())))
