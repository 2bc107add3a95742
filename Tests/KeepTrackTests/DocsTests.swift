import Foundation
import XCTest
import KeepTrack
import KeepTrackCLI
import KeepTrackMediaCLI

/// The documentation cannot drift from the tool: every command has a page whose reference part is what
/// `make docs` generates now, the README's table lists exactly the commands `keeptrack --help` lists, and
/// every `keeptrack` line in a `sh` block of the README and docs/ runs with the exit code it shows.
final class DocsTests: XCTestCase {
    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let commandPages = checkout.appendingPathComponent("docs/commands")

    func testEveryCommandHasAPageWhoseReferenceIsCurrent() throws {
        for command in MediaCommandLine.commands {
            let path = Self.commandPages.appendingPathComponent("\(command.name).md").path
            guard let page = try? String(contentsOfFile: path, encoding: .utf8) else {
                XCTFail("\(command.name) has no page at docs/commands/\(command.name).md: run `make docs`")
                continue
            }
            XCTAssertTrue(page.hasPrefix(CommandPages.reference(command)),
                          "docs/commands/\(command.name).md is out of date with the command's spec: run `make docs`")
        }
    }

    func testEveryPageIsACommand() throws {
        let names = Set(MediaCommandLine.commands.map(\.name))
        let pages = try FileManager.default.contentsOfDirectory(atPath: Self.commandPages.path).filter { $0.hasSuffix(".md") }
        for page in pages {
            XCTAssertTrue(names.contains(String(page.dropLast(3))), "docs/commands/\(page) names no command")
        }
    }

    /// The README's table, `keeptrack --help` (the slim executable's overview) and the full command table agree.
    func testTheReadmeTableListsEveryCommandTheToolLists() throws {
        let readme = try String(contentsOf: Self.checkout.appendingPathComponent("README.md"), encoding: .utf8)
        let row = try NSRegularExpression(pattern: #"^\| \[`([a-z-]+)`\]\(docs/commands/([a-z-]+)\.md\) \|"#, options: .anchorsMatchLines)
        var listed: [String] = []
        for match in row.matches(in: readme, range: NSRange(readme.startIndex..., in: readme)) {
            let name = String(readme[Range(match.range(at: 1), in: readme)!])
            XCTAssertEqual(name, String(readme[Range(match.range(at: 2), in: readme)!]), "the README row for \(name) links another page")
            listed.append(name)
        }
        XCTAssertEqual(Set(listed), Set(MediaCommandLine.commands.map(\.name)), "README's command table")
        XCTAssertEqual(listed.count, Set(listed).count, "a command listed twice in the README")

        let capture = Console.capturing()
        XCTAssertEqual(KeepTrackCommandLine.run(["--help"], console: capture.console), 0)
        let overview = capture.output.out.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), let word = line.split(separator: " ").first else { return nil }
            return String(word)
        }
        XCTAssertEqual(Set(overview), Set(listed), "`keeptrack --help` and the README list other commands")
    }

    func testTheReadmeExamplesRun() throws {
        try runExamples(in: [Self.checkout.appendingPathComponent("README.md")])
    }

    func testTheDocsExamplesRun() throws {
        let docs = Self.checkout.appendingPathComponent("docs")
        let files = FileManager.default.enumerator(at: docs, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL }
            .filter { $0.pathExtension == "md" }.sorted { $0.path < $1.path } ?? []
        XCTAssertFalse(files.isEmpty)
        try runExamples(in: files)
    }

    // MARK: running the examples

    struct Example {
        var file: String
        var line: Int
        var arguments: [String]
        var expectedExit: Int32
    }

    /// `keeptrack` lines of ```sh blocks; a trailing `# exit N` says the exit code expected (else 0).
    static func examples(in text: String, file: String) -> [Example] {
        var examples: [Example] = []
        var inShell = false
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            if line.hasPrefix("```") {
                inShell = !inShell && ["```sh", "```bash", "```shell"].contains(line.trimmingCharacters(in: .whitespaces))
                continue
            }
            guard inShell, line.hasPrefix("keeptrack ") else { continue }
            var command = line
            var expected: Int32 = 0
            if let hash = line.range(of: " #") {
                command = String(line[..<hash.lowerBound])
                let comment = line[hash.upperBound...].trimmingCharacters(in: .whitespaces)
                if comment.hasPrefix("exit "), let code = Int32(comment.dropFirst(5).prefix { $0.isNumber }) { expected = code }
            }
            examples.append(Example(file: file, line: index + 1, arguments: Array(shellWords(command).dropFirst()), expectedExit: expected))
        }
        return examples
    }

    /// Words as a POSIX shell splits a simple command line: whitespace, single and double quotes.
    static func shellWords(_ line: String) -> [String] {
        var words: [String] = []
        var word = ""
        var quote: Character?
        var inWord = false
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == " " || character == "\t" {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(character)
                inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }

    /// The files the examples name, in a fresh folder per documentation file (examples of one file run
    /// in order and may use each other's outputs).
    func workspace() throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        let fixtures = RealFixtures.folder
        let copies = [
            ("IMG_0001.MOV", try RealFixtures.require(RealFixtures.iphone)),
            ("clip.mp4", try RealFixtures.require(fixtures.appendingPathComponent("footage/two_people_apart.mp4").path)),
            ("spatial.mov", try RealFixtures.require(fixtures.appendingPathComponent("wild/androidx-media/water_180_mvhevc_5frames.mov").path)),
        ]
        for (name, source) in copies {
            try FileManager.default.copyItem(atPath: source, toPath: folder.path(name))
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: folder.path(name))
        }
        _ = try writeVariant("both-enabled", in: folder)
        // An interrupted recording for `repair`: the real recording's media data without the moov after it,
        // the recording itself the reference.
        let recording = try Data(contentsOf: URL(fileURLWithPath: folder.path("IMG_0001.MOV")))
        let moov = Int(try Movie.open(path: folder.path("IMG_0001.MOV")).moov.offset)
        try recording.prefix(moov).write(to: URL(fileURLWithPath: folder.path("BROKEN.mov")))
        try FileManager.default.copyItem(atPath: folder.path("IMG_0001.MOV"), toPath: folder.path("GOOD.mov"))
        // An HLS fMP4 rendition for `--init`: init.mp4 and seg-1.m4s ... seg-3.m4s.
        guard runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30:duration=3", "-f", "lavfi", "-i", "sine=duration=3",
                                 "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac",
                                 "-f", "hls", "-hls_segment_type", "fmp4", "-hls_time", "1", "-start_number", "1",
                                 "-hls_fmp4_init_filename", "init.mp4", "-hls_segment_filename", folder.path("seg-%d.m4s"), folder.path("rendition.m3u8")])?.code == 0,
              FileManager.default.fileExists(atPath: folder.path("seg-3.m4s")) else {
            throw unavailable("ffmpeg could not write the HLS rendition the --init examples read")
        }
        try FileManager.default.createDirectory(atPath: folder.path("Movies"), withIntermediateDirectories: true)
        for name in ["IMG_0001.MOV", "both-enabled.mov"] {
            try FileManager.default.copyItem(atPath: folder.path(name), toPath: folder.path("Movies/\(name)"))
        }
        return folder
    }

    func runExamples(in files: [URL]) throws {
        let previous = FileManager.default.currentDirectoryPath
        defer { FileManager.default.changeCurrentDirectoryPath(previous) }
        var count = 0
        for file in files {
            let name = file.path.replacingOccurrences(of: Self.checkout.path + "/", with: "")
            let examples = Self.examples(in: try String(contentsOf: file, encoding: .utf8), file: name)
            guard !examples.isEmpty else { continue }
            let folder = try workspace()
            XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(folder.url.path))
            for example in examples {
                let result = runCLI(example.arguments)
                XCTAssertEqual(result.code, example.expectedExit,
                               "\(example.file):\(example.line): keeptrack \(example.arguments.joined(separator: " ")) exited \(result.code): \(result.error.prefix(400))")
                count += 1
            }
        }
        XCTAssertGreaterThan(count, 0, "no examples found")
    }
}
