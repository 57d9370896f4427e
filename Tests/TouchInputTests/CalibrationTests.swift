import Testing
import TouchCore
@testable import TouchInput
import TouchSystem

@Suite("Calibration to window points")
struct CalibrationTests {
    let x = AbsInfo(minimum: 0, maximum: 999, resolution: 12)
    let y = AbsInfo(minimum: 0, maximum: 499, resolution: 10)
    let window = Rect(x: 0, y: 0, width: 800, height: 600)

    @Test("By default the axis range maps onto the window: minimum → top-left, the far corner just inside")
    func defaultMapping() {
        let m = CoordinateMapping(xAxis: x, yAxis: y, target: window)
        #expect(m.map(x: 0, y: 0) == Point(x: 0, y: 0))
        #expect(m.map(x: 500, y: 250) == Point(x: 400, y: 300))
        #expect(m.map(x: 999, y: 499).x < 800 && m.map(x: 999, y: 499).y < 600)
        #expect(m.resolution.x == 12 && m.resolution.y == 10)
    }

    @Test("Rotation 90°: the panel's top-left corner lands on the window's top-right; 180° bottom-right; 270° bottom-left")
    func rotation() {
        var m = CoordinateMapping(xAxis: x, yAxis: y, target: window)
        m.rotation = .clockwise90
        #expect(m.map(x: 0, y: 0) == Point(x: 800, y: 0))
        m.rotation = .upsideDown
        #expect(m.map(x: 0, y: 0) == Point(x: 800, y: 600))
        m.rotation = .clockwise270
        #expect(m.map(x: 0, y: 0) == Point(x: 0, y: 600))
        m.rotation = .none
        m.flipX = true
        #expect(m.map(x: 0, y: 0) == Point(x: 800, y: 0))
        m.flipY = true
        #expect(m.map(x: 0, y: 0) == Point(x: 800, y: 600))
    }

    @Test("A libinput calibration matrix maps a known corner to a known window point")
    func matrix() throws {
        var m = CoordinateMapping(xAxis: x, yAxis: y, target: window)
        // Use only the left half of the panel for the whole window, shifted down by a quarter.
        m.calibration = try #require(CoordinateMapping.parseMatrix("2 0 0  0 1 0.25"))
        #expect(m.map(x: 0, y: 0) == Point(x: 0, y: 150))
        #expect(m.map(x: 500, y: 0) == Point(x: 800, y: 150))       // the middle of the panel is the right edge
        // libinput's documented 90° matrix equals the rotation setting.
        m.calibration = try #require(CoordinateMapping.parseMatrix("0 -1 1 1 0 0"))
        var r = CoordinateMapping(xAxis: x, yAxis: y, target: window)
        r.rotation = .clockwise90
        for p in [(0, 0), (999, 0), (999, 499), (123, 456)] {
            #expect(m.map(x: Int32(p.0), y: Int32(p.1)) == r.map(x: Int32(p.0), y: Int32(p.1)))
        }
        #expect(CoordinateMapping.parseMatrix("1 0 0 0 1") == nil)
        #expect(CoordinateMapping.parseMatrix("1 0 0 0 1 x") == nil)
    }

    @Test("majorRadius: points per unit follow the axis the panel's x ends up on")
    func pointsPerUnit() {
        var m = CoordinateMapping(xAxis: x, yAxis: y, target: window)
        #expect(m.pointsPerUnit == 0.8)
        m.rotation = .clockwise90
        #expect(m.pointsPerUnit == 0.6)
    }
}
