// touchbridgectl: list devices, listen, replay recordings, check scenes, bind gestures to commands.
import Glibc
import TouchBridge

exit(Ctl.main(Array(CommandLine.arguments.dropFirst())))
