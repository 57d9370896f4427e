import TouchCore
import TouchSystem

/// The recognizer types a scene file names in `"type"`, which the gesture lines report in their own
/// `"type"` field (docs/protocol.md): one vocabulary for both. `custom` is a recognizer of a class the
/// scene format does not know (one added by a library user).
package enum RecognizerKind: CaseIterable {
    case tap, longPress, pan, screenEdgePan, swipe, pinch, rotation, hover, stroke, custom

    package init(_ g: GestureRecognizer) {
        switch g {
        case is ScreenEdgePanGestureRecognizer: self = .screenEdgePan   // before pan: it is one
        case is PanGestureRecognizer: self = .pan
        case is TapGestureRecognizer: self = .tap
        case is LongPressGestureRecognizer: self = .longPress
        case is SwipeGestureRecognizer: self = .swipe
        case is PinchGestureRecognizer: self = .pinch
        case is RotationGestureRecognizer: self = .rotation
        case is HoverGestureRecognizer: self = .hover
        case is StrokeGestureRecognizer: self = .stroke
        default: self = .custom
        }
    }

    package var name: StaticString {
        switch self {
        case .tap: "tap"
        case .longPress: "longPress"
        case .pan: "pan"
        case .screenEdgePan: "screenEdgePan"
        case .swipe: "swipe"
        case .pinch: "pinch"
        case .rotation: "rotation"
        case .hover: "hover"
        case .stroke: "stroke"
        case .custom: "custom"
        }
    }
}
