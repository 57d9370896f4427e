// touchbridgectl: list devices, listen, replay recordings, check scenes, bind gestures to commands.
// The commands come from two modules that never import each other: TouchClients (what talks to the
// daemon) and TouchDaemon (what runs the daemon's pipeline in this process).
import Glibc
import TouchClients
import TouchDaemon
import TouchProtocol
import TouchScene
import TouchSystem

/// In the order the overview lists them (docs/commands.md follows it).
let commands: [Ctl.Command] = [
    Ctl.listen, Ctl.devices, Ctl.replay, Ctl.visualize, Ctl.edit, Ctl.setRotation, Ctl.setDisplay, Ctl.setBrightness, Ctl.setFocus, Ctl.followRotation, Ctl.followFocus,
    Ctl.mqtt, Ctl.tuio, Ctl.websocket, Ctl.enable, Ctl.disable, Ctl.scenePush, Ctl.sceneCheck, Ctl.sceneFormat, Ctl.sceneSchema, Ctl.sceneDefault, Ctl.strokeLearn, Ctl.strokeRecord, Ctl.strokeShapes, Ctl.bind, Ctl.doctor,
    Ctl.udevMirrorProperties,
]
exit(Ctl.main(Array(CommandLine.arguments.dropFirst()), commands: commands,
              version: "\(Version.string) (protocol \(Version.protocolVersion))"))
