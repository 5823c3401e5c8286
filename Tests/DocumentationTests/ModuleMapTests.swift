import Testing

/// The README's Architecture section is the module map: its table must name every module of Package.swift with the
/// dependencies Package.swift gives it, each one listed above the modules that use it.
@Suite struct ModuleMapTests {
    /// A row of the README's module table: the modules named in its first cell and its "depends on" cell.
    struct Row {
        var modules: [String]
        var dependencies: [String]
    }

    static func rows() throws -> [Row] {
        let readme = try Repository.text("README.md")
        let section = try #require(readme.components(separatedBy: "\n## Architecture\n").dropFirst().first)
            .components(separatedBy: "\n## ")[0]
        return section.split(separator: "\n").filter { $0.hasPrefix("| `") }.map { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            let modules = cells[1].split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 }.map { String($0.element) }
            let dependencies =
                cells[cells.count - 2] == "—"
                ? []
                : cells[cells.count - 2]
                    .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return Row(modules: modules, dependencies: dependencies)
        }
    }

    static func modules() throws -> [PackageTarget] {
        PackageTarget.parse(try Repository.text("Package.swift")).filter(\.isModule)
    }

    @Test func theTableNamesEveryModuleOnce() throws {
        let named = try Self.rows().flatMap(\.modules)
        #expect(named.sorted() == (try Self.modules()).map(\.name).sorted())
        #expect(Set(named).count == named.count, "a module named twice: \(named)")
    }

    @Test func eachRowGivesItsModulesDependenciesAsPackageSwiftDoes() throws {
        let targets = Dictionary(uniqueKeysWithValues: try Self.modules().map { ($0.name, $0) })
        for row in try Self.rows() {
            for module in row.modules {
                let declared = try #require(targets[module], "\(module) is not a target of Package.swift")
                #expect(
                    Set(row.dependencies) == Set(declared.dependencies),
                    "\(module): the README says \(row.dependencies.sorted()), Package.swift \(declared.dependencies.sorted())"
                )
            }
        }
    }

    @Test func everyModuleDependsOnlyOnModulesAboveIt() throws {
        var above: Set<String> = []
        for row in try Self.rows() {
            let below = row.dependencies.filter { !$0.hasPrefix("C") && !above.contains($0) }
            #expect(below.isEmpty, "\(row.modules) depends on \(below), listed further down the table")
            above.formUnion(row.modules)
        }
    }

    @Test func theParserReadsEveryKindOfTarget() {
        let manifest = """
            .systemLibrary(name: "CZ", pkgConfig: "z", providers: [.apt(["zlib1g-dev"])]),
            .target(name: "A"),
            .target(name: "B", dependencies: ["A", "CZ"], exclude: ["NOTES.txt"]),
            .executableTarget(name: "tool", dependencies: ["B"]),
            .executableTarget(name: "bench", dependencies: ["B"],
                              path: "Benchmarks/bench"),
            .testTarget(name: "BTests", dependencies: ["B"]),
            """
        let targets = PackageTarget.parse(manifest)
        #expect(targets.map(\.name) == ["CZ", "A", "B", "tool", "bench", "BTests"])
        #expect(targets.filter(\.isModule).map(\.name) == ["A", "B", "tool"])
        #expect(targets[2].dependencies == ["A", "CZ"])
        #expect(targets[4].path == "Benchmarks/bench")
    }
}
