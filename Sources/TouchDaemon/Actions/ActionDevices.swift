import TouchInput

/// The uinput devices actions write to: the `TouchBridge keyboard` and the `TouchBridge pointer`
/// (ActionDeviceDescription), and the `TouchBridge touchpad` once a scene plays on it; any sink in tests.
public final class ActionDevices {
    public let keyboard: MirrorSink
    public let pointer: MirrorSink
    /// Made when a touchpad action is first bound (an idle touchpad would show in the desktop's
    /// settings for nothing); nil until then, or when it could not be made.
    public private(set) var touchpad: MirrorSink?
    private var makeTouchpad: (() throws -> MirrorSink)?

    public init(keyboard: MirrorSink, pointer: MirrorSink, touchpad: MirrorSink? = nil,
                makeTouchpad: (() throws -> MirrorSink)? = nil) {
        self.keyboard = keyboard
        self.pointer = pointer
        self.touchpad = touchpad
        self.makeTouchpad = makeTouchpad
    }

    /// Creates the keyboard and the pointer through /dev/uinput, and the touchpad when asked. Like a
    /// mirror, none is ever read back: the kernel removes them, and releases whatever they hold, when
    /// this process's descriptors close, however it ends.
    public static func create() throws -> ActionDevices {
        let keyboard = try UinputDevice(description: ActionDeviceDescription.keyboard, phys: ActionDeviceDescription.phys)
        let pointer = try UinputDevice(description: ActionDeviceDescription.pointer, phys: ActionDeviceDescription.phys)
        return ActionDevices(keyboard: keyboard, pointer: pointer) {
            try UinputDevice(description: ActionDeviceDescription.touchpad, phys: ActionDeviceDescription.phys)
        }
    }

    /// The touchpad, made now if it is not yet; nil: it was just made (`made` says its node) or it
    /// already was. Throws when it cannot be made (once: later calls find it absent and say nothing).
    func prepareTouchpad() throws -> (made: Bool, node: String?) {
        if touchpad != nil { return (false, nil) }
        guard let make = makeTouchpad else { return (false, nil) }
        makeTouchpad = nil
        let t = try make()
        touchpad = t
        return (true, (t as? UinputDevice)?.devnode)
    }

    /// Removes the devices (the kernel releases anything still down on them first).
    public func destroy() {
        (keyboard as? UinputDevice)?.destroy()
        (pointer as? UinputDevice)?.destroy()
        (touchpad as? UinputDevice)?.destroy()
    }
}
