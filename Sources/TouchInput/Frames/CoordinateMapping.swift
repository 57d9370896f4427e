import TouchCore
import TouchSystem

/// Maps a device's raw positions onto window points: the BackBoard step of the iOS path.
///
///     raw (x, y) → normalized [0, 1) by the axis range (libinput: (v − min) / (max − min + 1))
///                → calibration matrix [a b c; d e f], libinput's LIBINPUT_CALIBRATION_MATRIX
///                → rotation (clockwise, 0/90/180/270) and flips
///                → the target rectangle (by default the whole window)
///
/// With the identity calibration and no rotation, the axis minimum lands on the target's top-left
/// corner and the maximum just inside its bottom-right corner.
public struct CoordinateMapping: Equatable, Sendable {
    /// Clockwise rotation of the panel relative to the display, in degrees.
    public enum Rotation: Int, Sendable, CaseIterable {
        case none = 0, clockwise90 = 90, upsideDown = 180, clockwise270 = 270
    }

    public var xAxis: AbsInfo
    public var yAxis: AbsInfo
    /// Where the panel's full range lands, in window points.
    public var target: Rect
    public var rotation: Rotation = .none
    public var flipX = false
    public var flipY = false
    /// libinput's calibration matrix, row-major, the first two rows of a 3×3 matrix in normalized
    /// coordinates; identity: [1, 0, 0, 0, 1, 0]. Anything but six numbers counts as the identity.
    public var calibration: [Double] = CoordinateMapping.identityMatrix {
        didSet { matrix = Matrix(calibration) }
    }
    /// `calibration` as six stored numbers: `map` runs for every contact of every frame.
    private var matrix = Matrix(CoordinateMapping.identityMatrix)

    private struct Matrix: Equatable, Sendable {
        var a = 1.0, b = 0.0, c = 0.0, d = 0.0, e = 1.0, f = 0.0

        init(_ m: [Double]) {
            guard m.count == 6 else { return }
            (a, b, c, d, e, f) = (m[0], m[1], m[2], m[3], m[4], m[5])
        }
    }

    public static let identityMatrix: [Double] = [1, 0, 0, 0, 1, 0]

    public init(xAxis: AbsInfo, yAxis: AbsInfo, target: Rect) {
        self.xAxis = xAxis
        self.yAxis = yAxis
        self.target = target
    }

    /// The mapping for `device` onto `target`, or nil when the device has no position axes.
    public init?(device: DeviceDescription, target: Rect) {
        guard let axes = device.positionAxes else { return nil }
        self.init(xAxis: axes.x, yAxis: axes.y, target: target)
    }

    /// A raw position in window points.
    public func map(x: Int32, y: Int32) -> Point { Plain(self).map(x: x, y: y) }

    /// The mapping as plain numbers (no array, nothing to retain), for the frame assembler to keep
    /// and apply to every contact of every frame.
    struct Plain: Sendable {
        private let xMinimum: Double, xSpan: Double, yMinimum: Double, ySpan: Double
        private let matrix: Matrix
        private let rotation: Rotation
        private let flipX: Bool, flipY: Bool
        private let target: Rect

        init(_ m: CoordinateMapping) {
            xMinimum = Double(m.xAxis.minimum)
            xSpan = m.xAxis.span
            yMinimum = Double(m.yAxis.minimum)
            ySpan = m.yAxis.span
            matrix = m.matrix
            rotation = m.rotation
            flipX = m.flipX
            flipY = m.flipY
            target = m.target
        }

        func map(x: Int32, y: Int32) -> Point {
            var nx = (Double(x) - xMinimum) / xSpan
            var ny = (Double(y) - yMinimum) / ySpan
            let m = matrix
            (nx, ny) = (m.a * nx + m.b * ny + m.c, m.d * nx + m.e * ny + m.f)
            switch rotation {
            case .none: break
            case .clockwise90: (nx, ny) = (1 - ny, nx)
            case .upsideDown: (nx, ny) = (1 - nx, 1 - ny)
            case .clockwise270: (nx, ny) = (ny, 1 - nx)
            }
            if flipX { nx = 1 - nx }
            if flipY { ny = 1 - ny }
            return Point(x: target.minX + nx * target.width, y: target.minY + ny * target.height)
        }

        /// A displacement of (dx, dy) raw units in window points: `map`'s linear part (the calibration's
        /// 2×2 part, the rotation, the flips, the target's scale), for directions such as a pen's tilt.
        func direction(dx: Double, dy: Double) -> Point {
            var nx = dx / xSpan, ny = dy / ySpan
            let m = matrix
            (nx, ny) = (m.a * nx + m.b * ny, m.d * nx + m.e * ny)
            switch rotation {
            case .none: break
            case .clockwise90: (nx, ny) = (-ny, nx)
            case .upsideDown: (nx, ny) = (-nx, -ny)
            case .clockwise270: (nx, ny) = (ny, -nx)
            }
            if flipX { nx = -nx }
            if flipY { ny = -ny }
            return Point(x: nx * target.width, y: ny * target.height)
        }
    }

    /// Points per raw unit along the panel's x axis, for sizes such as ABS_MT_TOUCH_MAJOR.
    public var pointsPerUnit: Double {
        let across = (rotation == .clockwise90 || rotation == .clockwise270) ? target.height : target.width
        return across / xAxis.span
    }

    /// The panel's resolution in units per millimetre (0 when the kernel does not say).
    public var resolution: (x: Double, y: Double) { (Double(xAxis.resolution), Double(yAxis.resolution)) }

    /// Parses a LIBINPUT_CALIBRATION_MATRIX value: six numbers separated by white space.
    public static func parseMatrix(_ text: String) -> [Double]? {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard parts.count == 6 else { return nil }
        let values = parts.compactMap { Double($0) }
        guard values.count == 6, values.allSatisfy(\.isFinite) else { return nil }
        return values
    }
}
