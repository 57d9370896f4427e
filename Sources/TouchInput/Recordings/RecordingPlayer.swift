import TouchCore
import TouchSystem

/// Plays a recording's events through a `FrameAssembler` the way a live device would deliver them.
///
/// It keeps the kernel's view of the device as a shadow (`KernelState`) fed with *every* event, so that
/// when the recording contains SYN_DROPPED (as a reader that fell behind sees it), the events up to the
/// next SYN_REPORT are lost to the assembler but not to the shadow, and the assembler resyncs to the
/// shadow exactly as a live device resyncs to what libevdev reads back from the kernel.
public struct RecordingPlayer {
    public private(set) var assembler: FrameAssembler
    private var kernel: KernelState

    public init(device: DeviceDescription, mapping: CoordinateMapping, deviceIndex: Int = 0,
                onWarning: ((String) -> Void)? = nil) {
        assembler = FrameAssembler(device: device, mapping: mapping, deviceIndex: deviceIndex)
        assembler.onWarning = onWarning
        kernel = KernelState(device: device)
    }

    /// How contacts map onto the window (a live rotation changes it between touch sequences).
    public var mapping: CoordinateMapping {
        get { assembler.mapping }
        set { assembler.mapping = newValue }
    }

    /// Feeds one event; returns the frames it completes (a SYN_REPORT's frame, or the resync after a drop).
    public mutating func play(_ e: InputEvent) -> DigitizerFrame? {
        if !(e.type == EventType.syn && e.code == SynCode.dropped) { kernel.apply(e) }
        let wasDropping = assembler.isDropping
        let frame = assembler.feed(e)
        if wasDropping && !assembler.isDropping {
            // The SYN_REPORT that closes the lost stretch: read the state back (libevdev's sync).
            return assembler.resync(to: kernel, at: e.time)
        }
        return frame
    }

    /// The device is gone (or the recording is over while fingers are down): cancel them.
    public mutating func cancelAll(at time: Double) -> DigitizerFrame {
        assembler.cancelAll(at: time)
    }

    /// Every frame of `recording`, mapped onto `target`.
    public static func frames(of recording: Recording, target: Rect, deviceIndex: Int = 0,
                              onWarning: ((String) -> Void)? = nil) -> [DigitizerFrame] {
        guard let mapping = CoordinateMapping(device: recording.device, target: target) else { return [] }
        var player = RecordingPlayer(device: recording.device, mapping: mapping, deviceIndex: deviceIndex,
                                     onWarning: onWarning)
        var frames: [DigitizerFrame] = []
        frames.reserveCapacity(recording.events.count / 4)
        for e in recording.events {
            if let f = player.play(e) { frames.append(f) }
        }
        return frames
    }
}
