import Foundation
import XCTest
@testable import KeepTrack

/// `--json` output is written as UTF-8 bytes (a fragmented movie prints thousands of objects);
/// Foundation's JSONSerialization, an independent parser, must read back exactly what went in.
final class JSONValueTests: XCTestCase {
    static let awkwardStrings = [
        "", "plain", "quote \" inside", "back\\slash", "line\nbreak", "cr\rtab\t", "bell \u{07} nul \u{00} unit \u{1F}",
        "delete \u{7F}", "© Apple", "ünïcödé ✓", "emoji 🎬 and 👩‍👩‍👧", "/slash/", "longer than fifteen bytes, to leave the small-string form",
    ]
    static let integers: [Int64] = [0, 1, -1, 9, 10, 99, 100, 1_068_496_653, Int64.max, Int64.min, -9_007_199_254_740_993]

    var document: JSONValue {
        .object([
            ("strings", .array(Self.awkwardStrings.map(JSONValue.string))),
            ("integers", .array(Self.integers.map(JSONValue.int))),
            ("doubles", .array([.double(0.5), .double(-2), .double(500.278), .double(.infinity), .double(1e20)])),
            ("nested", .object([("empty array", .array([])), ("empty object", .object([])), ("null", .null), ("yes", .bool(true)), ("no", .bool(false))])),
            ("key \"quoted\"\n", .string("value")),
        ])
    }

    func testRenderingReadsBackThroughJSONSerialization() throws {
        for pretty in [true, false] {
            let text = document.rendered(pretty: pretty)
            let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) as? [String: Any], "pretty \(pretty)")
            XCTAssertEqual(parsed["strings"] as? [String], Self.awkwardStrings, "pretty \(pretty)")
            // NSNumber keeps 64-bit integers exactly.
            let integers = try XCTUnwrap(parsed["integers"] as? [NSNumber]).map(\.int64Value)
            XCTAssertEqual(integers, Self.integers, "pretty \(pretty)")
            let doubles = try XCTUnwrap(parsed["doubles"] as? [Any])
            XCTAssertEqual(doubles.count, 5)
            XCTAssertEqual((doubles[0] as? NSNumber)?.doubleValue, 0.5)
            XCTAssertEqual((doubles[1] as? NSNumber)?.doubleValue, -2)
            XCTAssertEqual((doubles[2] as? NSNumber)?.doubleValue, 500.278)
            XCTAssertTrue(doubles[3] is NSNull, "a non-finite double is null")
            XCTAssertEqual((doubles[4] as? NSNumber)?.doubleValue, 1e20)
            let nested = try XCTUnwrap(parsed["nested"] as? [String: Any])
            XCTAssertEqual((nested["empty array"] as? [Any])?.count, 0)
            XCTAssertEqual((nested["empty object"] as? [String: Any])?.count, 0)
            XCTAssertTrue(nested["null"] is NSNull)
            XCTAssertEqual(nested["yes"] as? Bool, true)
            XCTAssertEqual(nested["no"] as? Bool, false)
            XCTAssertEqual(parsed["key \"quoted\"\n"] as? String, "value")
        }
    }

    func testLayout() {
        // Two-space indentation, one member per line; compact output has no whitespace at all.
        let value = JSONValue.object([("a", .array([.int(1), .int(-2)])), ("b", .object([])), ("c", .string("x\u{01}"))])
        XCTAssertEqual(value.rendered(), "{\n  \"a\": [\n    1,\n    -2\n  ],\n  \"b\": {},\n  \"c\": \"x\\u0001\"\n}")
        XCTAssertEqual(value.rendered(pretty: false), "{\"a\":[1,-2],\"b\":{},\"c\":\"x\\u0001\"}")
        XCTAssertEqual(value.rendered(indent: 1), "{\n    \"a\": [\n      1,\n      -2\n    ],\n    \"b\": {},\n    \"c\": \"x\\u0001\"\n  }")
    }
}

/// Box types are named in every path and message: literals, bytes and names must agree.
final class FourCCTests: XCTestCase {
    func testLiteralsBytesAndNames() {
        let moof: FourCC = "moof"
        XCTAssertEqual(moof.rawValue, 0x6D6F_6F66)
        XCTAssertEqual(moof, FourCC(bytes: Array("moof".utf8)))
        XCTAssertEqual(moof, FourCC(String("mo") + "of"))
        XCTAssertEqual(moof.description, "moof")
        // Latin-1 © is one byte (0xA9) in a QuickTime metadata key, and names as ©.
        let copyright: FourCC = "©nam"
        XCTAssertEqual(copyright.rawValue, 0xA96E_616D)
        XCTAssertEqual(copyright.description, "©nam")
        XCTAssertTrue(copyright.isPrintable)
        // Short text is padded with spaces; unprintable codes are named by their number.
        XCTAssertEqual(FourCC("ab").rawValue, 0x6162_2020)
        XCTAssertEqual(FourCC(rawValue: 1).description, "0x00000001")
        XCTAssertFalse(FourCC(rawValue: 0x6D6F_6F00).isPrintable)
        XCTAssertEqual(FourCC(rawValue: 0x7E7E_7E7F).description, "0x7e7e7e7f")
    }
}
