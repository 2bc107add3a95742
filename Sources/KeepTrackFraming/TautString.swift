/// Where the crop centre may be at one instant: between `low` and `high`.
struct CorridorPoint: Equatable {
    var time: Double
    var low: Double
    var high: Double
}

/// The shortest path through a corridor over time (a taut string): it stays flat whenever a flat line fits,
/// bends only where a bound forces it, never overshoots and never reverses unless the corridor does.
/// That is the camera operator's "do not move unless you must"; smoothing the corners comes after.
enum TautString {
    struct Vertex: Equatable {
        var time: Double
        var value: Double
    }

    /// Vertices of the path; `corridor` times must be strictly increasing. Free ends are flat.
    /// `preferred` picks the level when one flat line fits the whole corridor.
    static func solve(_ corridor: [CorridorPoint], preferred: Double) -> [Vertex] {
        guard let first = corridor.first, let last = corridor.last else { return [] }
        guard let start = freeEndLevel(corridor), let end = freeEndLevel(corridor.reversed()) else {
            let (low, high) = corridor.reduce((-Double.infinity, Double.infinity)) { (max($0.0, $1.low), min($0.1, $1.high)) }
            let level = min(max(preferred, low), high)
            return [Vertex(time: first.time, value: level), Vertex(time: last.time, value: level)]
        }
        var points = corridor
        points[0].low = start
        points[0].high = start
        points[points.count - 1].low = end
        points[points.count - 1].high = end
        return funnel(points)
    }

    /// The level a free end sits at: flat until the first point where no flat line fits any more, at the
    /// bound it then has to leave from. Nil when one flat line fits everything.
    private static func freeEndLevel<Points: Sequence<CorridorPoint>>(_ points: Points) -> Double? {
        var low = -Double.infinity, high = Double.infinity
        for point in points {
            if point.low > high { return high }
            if point.high < low { return low }
            low = max(low, point.low)
            high = min(high, point.high)
        }
        return nil
    }

    /// Funnel algorithm with fixed ends: from the current apex keep the range of slopes that passes every
    /// later bound; when it empties, the path bends at the bound that closed it, which becomes the new apex.
    private static func funnel(_ points: [CorridorPoint]) -> [Vertex] {
        var path = [Vertex(time: points[0].time, value: points[0].low)]
        var apex = 0
        var apexValue = points[0].low
        var ceilingSlope = Double.infinity, ceilingIndex = 0
        var floorSlope = -Double.infinity, floorIndex = 0
        var index = 1
        while index < points.count {
            let elapsed = points[index].time - points[apex].time
            let highSlope = (points[index].high - apexValue) / elapsed
            let lowSlope = (points[index].low - apexValue) / elapsed
            var bend: (index: Int, value: Double)?
            if highSlope < floorSlope {
                bend = (floorIndex, points[floorIndex].low)
            } else if lowSlope > ceilingSlope {
                bend = (ceilingIndex, points[ceilingIndex].high)
            }
            if let bend {
                apex = bend.index
                apexValue = bend.value
                path.append(Vertex(time: points[apex].time, value: apexValue))
                ceilingSlope = .infinity
                floorSlope = -.infinity
                index = apex + 1
                continue
            }
            if highSlope < ceilingSlope { ceilingSlope = highSlope; ceilingIndex = index }
            if lowSlope > floorSlope { floorSlope = lowSlope; floorIndex = index }
            index += 1
        }
        let end = points[points.count - 1]
        if path.last?.time != end.time { path.append(Vertex(time: end.time, value: end.low)) }
        return path
    }

    /// The path's value at `time` (flat before the first and after the last vertex).
    static func value(of path: [Vertex], at time: Double, from hint: inout Int) -> Double {
        guard let first = path.first, let last = path.last else { return 0 }
        if time <= first.time { return first.value }
        if time >= last.time { return last.value }
        while hint + 1 < path.count, path[hint + 1].time < time { hint += 1 }
        while hint > 0, path[hint].time > time { hint -= 1 }
        let a = path[hint], b = path[hint + 1]
        return a.value + (b.value - a.value) * (time - a.time) / (b.time - a.time)
    }
}
