import APNsMock
import CLITestSupport
import Foundation
import TestSupport
import Testing

/// The console in a real Chromium (headless, Debian's, driven through chromedriver), against `apnsd serve` and
/// apns-mock: sign-in, what a read-only key sees, text that stays text, a campaign moving on screen, a cancel, the
/// banner of an outage, a delivery search, no page wider than a phone, no console error and no request leaving the
/// console's origin. Each test leaves a screenshot in `.build/console-screenshots/`. One browser at a time.
@Suite(.serialized, .offThePool, .enabled(if: Browser.available, "needs chromium and chromium-driver (scripts/setup)"))
struct ConsoleBrowserTests {
    /// Where screenshots go: the build folder, never a tracked file.
    static let screenshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/console-screenshots").path

    /// The console of `api` in a new browser, signed in with `key` unless nil.
    static func open(_ api: APIHarness, key: String?) async throws -> Browser {
        let browser = try await Browser()
        do {
            try await browser.open(api.base + "/console/")
            #expect(try await browser.waitFor("return !document.getElementById('sign-in').hidden"), "no sign-in form")
            if let key { try await signIn(browser, key) }
            return browser
        } catch {
            await browser.quit()
            throw error
        }
    }

    /// Waits until `script` returns true; records `what` with the page's text when it does not within `seconds`.
    static func expect(
        _ browser: Browser, _ script: String, arguments: [Any] = [], seconds: Double = 30, _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        if try await browser.waitFor(script, arguments, seconds: seconds) { return }
        let shown = try await browser.text("body") ?? ""
        Issue.record("\(what); the page shows: \(shown.prefix(2000))", sourceLocation: sourceLocation)
    }

    /// Runs `body` with the console of `api` open in a new browser, and closes the browser however `body` ends
    /// (chromedriver and Chromium are processes of their own, which must not outlive the test).
    static func withConsole(_ api: APIHarness, key: String?, _ body: (Browser) async throws -> Void) async throws {
        let browser = try await open(api, key: key)
        do {
            try await body(browser)
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    static func signIn(_ browser: Browser, _ key: String) async throws {
        try await browser.type("#key", key)
        try await browser.click("#sign-in button[type=submit]")
        try await expect(browser, "return !document.getElementById('nav').hidden", "not signed in")
    }

    /// Shows `hash` and waits until the page says it was updated after the switch.
    static func show(_ browser: Browser, _ hash: String) async throws {
        try await browser.run(
            "document.getElementById('refreshed').textContent = ''; location.hash = arguments[0];", [hash])
        try await expect(
            browser, "return document.getElementById('refreshed').textContent.startsWith('Updated')",
            "\(hash) was not updated")
    }

    /// Waits until the page's text contains `text`.
    static func waitForText(_ browser: Browser, _ text: String, seconds: Double = 30) async throws -> Bool {
        try await browser.waitFor("return document.body.innerText.includes(arguments[0])", [text], seconds: seconds)
    }

    static func screenshot(_ browser: Browser, _ name: String) async throws {
        try await browser.screenshot(screenshots + "/\(name).png")
    }

    /// No error in the browser's console since the last check, and every resource the page loaded came from `origin`.
    static func expectClean(_ browser: Browser, origin: String, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let errors = try await browser.consoleMessages().filter { $0.level == "SEVERE" }
        #expect(errors.isEmpty, "console errors: \(errors)", sourceLocation: sourceLocation)
        let loaded =
            try await browser.run("return performance.getEntriesByType('resource').map((e) => e.name);") as? [String]
            ?? []
        let elsewhere = loaded.filter { !$0.hasPrefix(origin + "/") }
        #expect(
            !loaded.isEmpty && elsewhere.isEmpty, "requests elsewhere: \(elsewhere)", sourceLocation: sourceLocation)
    }

    /// Text shown with less contrast than WCAG AA asks (4.5:1, 3:1 for large text) against its background.
    static func contrastProblems(_ browser: Browser) async throws -> [String] {
        try await browser.run(
            #"""
            const luminance = (color) => {
              const [r, g, b] = color.match(/[0-9.]+/g).slice(0, 3).map((v) => {
                const c = Number(v) / 255;
                return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
              });
              return 0.2126 * r + 0.7152 * g + 0.0722 * b;
            };
            const background = (element) => {
              for (let e = element; e; e = e.parentElement) {
                const color = getComputedStyle(e).backgroundColor;
                if (color !== 'transparent' && !/rgba\(.*,\s*0\)$/.test(color)) return color;
              }
              return 'rgb(255, 255, 255)';
            };
            const problems = [];
            for (const element of document.querySelectorAll('body *')) {
              if (element.getClientRects().length === 0) continue;
              if (![...element.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
              const style = getComputedStyle(element);
              const [a, b] = [luminance(style.color), luminance(background(element))];
              const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
              const size = parseFloat(style.fontSize);
              const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
              if (ratio < (large ? 3 : 4.5)) {
                problems.push(`${element.tagName}.${element.className} ${ratio.toFixed(2)}: ${element.textContent.trim().slice(0, 40)}`);
              }
            }
            return problems;
            """#) as? [String] ?? ["no answer"]
    }

    /// Controls shown that a keyboard cannot reach (a negative tabindex) or that have no name a screen reader can say
    /// (no text, no aria-label, no label).
    static func unlabelledControls(_ browser: Browser) async throws -> [String] {
        try await browser.run(
            #"""
            const problems = [];
            for (const control of document.querySelectorAll('a[href], button, input, select, textarea, summary')) {
              if (control.getClientRects().length === 0) continue;
              const name = control.getAttribute('aria-label') || control.innerText?.trim()
                || (control.id && document.querySelector(`label[for="${control.id}"]`)?.innerText.trim())
                || control.closest('label')?.innerText.trim();
              if (!name) problems.push(`${control.tagName}#${control.id} has no name`);
              if (control.tabIndex < 0) problems.push(`${control.tagName}#${control.id} is out of the tab order`);
            }
            return problems;
            """#) as? [String] ?? ["no answer"]
    }

    @Test func aWrongKeyIsRefusedAReadOnlyKeySeesNoButtonsAndAPIStringsStayText() async throws {
        let fleet = try await Fleet(devices: 10, rate: 50, campaign: false)
        defer { fleet.stop() }
        let api = try await APIHarness(cli: fleet.cli, arguments: ["--no-worker"], initialized: true)
        defer { api.stop() }
        let created = try api.call(
            "POST", "/v1/campaigns", key: api.admin, json: #"{"payload":\#(Fleet.payload),"audience":{"all":true}}"#)
        let campaign = try #require(try APIHarness.object(created)["id"] as? String, "\(created.body)")
        #expect(try api.call("POST", "/v1/campaigns/\(campaign)/pause", key: api.admin).status == 200)
        let hostile = "<script>window.pwned=1</script><img src=x>"
        let registered = try api.call(
            "PUT", "/v1/devices/\(Tokens.hex(77))", key: api.backend,
            json: #"{"user":"\#(hostile.replacingOccurrences(of: "\"", with: "\\\""))"}"#)
        #expect(registered.status == 201, "\(registered.body)")

        try await Self.withConsole(api, key: nil) { browser in
            try await browser.type("#key", String(api.reader.reversed()))
            try await browser.click("#sign-in button[type=submit]")
            #expect(try await Self.waitForText(browser, "That key is not valid"))
            #expect(try await browser.run("return sessionStorage.length") as? Int == 0)
            // The refused key's 401 is the one error the console may show.
            _ = try await browser.consoleMessages()

            try await Self.signIn(browser, api.reader)
            #expect(try await browser.text("#key-name") == "Key: reader")
            #expect(try await browser.run("return sessionStorage.getItem('apnsd.key')") as? String == api.reader)
            #expect(try await browser.run("return localStorage.length") as? Int == 0)
            #expect(try await browser.run("return location.href") as? String == api.base + "/console/#/overview")
            try await Self.show(browser, "#/campaigns")
            #expect(try await Self.waitForText(browser, "paused"))
            #expect(try await browser.run("return document.querySelectorAll('[data-action]').length") as? Int == 0)
            try await Self.screenshot(browser, "read-only-campaigns")

            try await Self.show(
                browser, "#/devices?user=" + hostile.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            #expect(try await Self.waitForText(browser, hostile), "the user id is not shown as text")
            #expect(
                try await browser.run(
                    "return window.pwned === undefined && document.querySelectorAll('#page script, #page img').length === 0"
                ) as? Bool == true)
            try await Self.screenshot(browser, "hostile-user-id")

            try await browser.click("#sign-out")
            #expect(
                try await browser.waitFor(
                    "return !document.getElementById('sign-in').hidden && sessionStorage.length === 0"))
            try await Self.signIn(browser, api.admin)
            try await Self.show(browser, "#/campaigns")
            #expect(
                try await browser.waitFor(
                    "return document.querySelector('[data-action=resume]') !== null && document.querySelector('[data-action=cancel]') !== null"
                ),
                "an admin key sees the buttons")
            try await Self.expectClean(browser, origin: api.base)

            // Revoked while signed in: the next refresh is refused, and the console asks for a key again.
            #expect(try await fleet.cli.run("api-key", "revoke", "ops").status == 0)
            try await Self.expect(
                browser, "return !document.getElementById('sign-in').hidden && sessionStorage.length === 0",
                "a revoked key stayed signed in")
            #expect(try await browser.text("#sign-in-error")?.contains("revoked") == true)
        }
    }

    @Test func everyPageFitsAPhoneAndTheOverviewDrawsTheHour() async throws {
        let fleet = try await Fleet(
            devices: 20, rate: 200, campaign: false,
            scenario: Scenario(tokens: [Tokens.hex(3): TokenBehaviour(respond: .unregistered)]))
        defer { fleet.stop() }
        let api = try await APIHarness(cli: fleet.cli, arguments: [], initialized: true)
        defer { api.stop() }
        let created = try api.call(
            "POST", "/v1/campaigns", key: api.admin, json: #"{"payload":\#(Fleet.payload),"audience":{"all":true}}"#)
        let campaign = try #require(try APIHarness.object(created)["id"] as? String, "\(created.body)")
        #expect(
            await Fleet.eventually(60, every: 0.1) {
                (try? APIHarness.object(try api.call("GET", "/v1/campaigns/\(campaign)", key: api.reader)))?["status"]
                    as? String == "completed"
            })
        try await Self.withConsole(api, key: api.admin) { browser in
            let pages = [
                "#/overview", "#/campaigns", "#/campaign/\(campaign)", "#/deliveries?campaign=\(campaign)",
                "#/devices?token=\(Tokens.hex(3))", "#/events",
            ]
            for (width, height) in [(1920, 1080), (360, 780)] {
                try await browser.viewport(width: width, height: height, mobile: width < 500)
                #expect(try await browser.run("return window.innerWidth") as? Int == width)
                for hash in pages {
                    try await Self.show(browser, hash)
                    let fits =
                        try await browser.run(
                            "return document.documentElement.scrollWidth <= document.documentElement.clientWidth")
                        as? Bool
                    #expect(fits == true, "\(hash) is wider than \(width) px")
                    let faint = try await Self.contrastProblems(browser)
                    #expect(faint.isEmpty, "\(hash): text below WCAG AA contrast: \(faint)")
                    let unlabelled = try await Self.unlabelledControls(browser)
                    #expect(unlabelled.isEmpty, "\(hash): \(unlabelled)")
                }
            }
            // The events page starts from the newest events (`last=`): the 410's deactivation is there.
            try await Self.expect(
                browser, "return document.getElementById('page').textContent.includes('\(Tokens.hex(3))')",
                "the events page does not show the 410 token's deactivation")
            try await Self.screenshot(browser, "phone-events")
            // The contrast check sees faint text: grey #bbb on white is 1.9:1.
            try await browser.run(
                "const p = document.createElement('p'); p.id = 'faint'; p.textContent = 'faint'; p.style.color = '#bbb'; "
                    + "document.getElementById('page').append(p);")
            #expect(try await Self.contrastProblems(browser).contains { $0.hasSuffix(": faint") })
            try await browser.run("document.getElementById('faint').remove();")
            // And a button without a name.
            try await browser.run(
                "const b = document.createElement('button'); b.id = 'nameless'; document.getElementById('page').append(b);"
            )
            #expect(try await Self.unlabelledControls(browser) == ["BUTTON#nameless has no name"])
            try await browser.run("document.getElementById('nameless').remove();")
            // The 410 token: found by a search, with its reason.
            try await Self.show(browser, "#/deliveries")
            try await browser.type("#search-token", Tokens.hex(3))
            try await browser.click("form[role=search] button[type=submit]")
            #expect(try await Self.waitForText(browser, "Unregistered"), "the 410 delivery and its reason")
            #expect(
                try await browser.run("return document.querySelector('.badge-unregistered')?.textContent") as? String
                    == "unregistered")
            try await Self.screenshot(browser, "phone-delivery-search")

            try await browser.viewport(width: 1600, height: 1000)
            try await Self.show(browser, "#/campaign/\(campaign)")
            #expect(try await Self.waitForText(browser, "100%"))
            #expect(
                try await browser.run("return document.querySelectorAll('svg.chart-bars rect').length > 0") as? Bool
                    == true
            )
            try await Self.screenshot(browser, "campaign")
            try await Self.show(browser, "#/overview")
            #expect(try await browser.waitFor("return document.querySelectorAll('svg.chart-bars rect').length > 0"))
            try await Self.screenshot(browser, "overview")
            try await Self.expectClean(browser, origin: api.base)
        }
    }

    @Test func aPausedCampaignMovesToAHundredPercentOnceResumedAndACancelMatchesTheCLI() async throws {
        // 5 requests a second: a campaign of 40 takes 8 s, long enough to cancel one half-way.
        let fleet = try await Fleet(devices: 40, rate: 5, campaign: false)
        defer { fleet.stop() }
        let api = try await APIHarness(cli: fleet.cli, arguments: ["--no-worker"], initialized: true)
        defer { api.stop() }
        let created = try await fleet.cli.run("campaign", "create", "--all", "--payload", Fleet.payload)
        let first = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await fleet.cli.run("campaign", "pause", first).status == 0)
        try await Self.withConsole(api, key: api.admin) { browser in
            try await Self.show(browser, "#/campaign/\(first)")
            #expect(try await browser.waitFor("return document.querySelector('.percent')?.dataset.percent === '0'"))
            #expect(try await Self.waitForText(browser, "paused"))

            let worker = try fleet.startWorker()
            defer { worker.killIfRunning() }
            try await browser.click("[data-action=resume]")
            #expect(
                try await browser.text("#confirm-text")
                    == "Its 0 pending deliveries, and the part of its audience not expanded yet, will be sent.",
                "the confirmation states the count")
            try await browser.click("#confirm-ok")
            try await Self.expect(
                browser, "return document.querySelector('.percent')?.dataset.percent === '100'", seconds: 90,
                "not at 100%")
            try await Self.screenshot(browser, "resumed")

            // A second campaign, cancelled in the console once some of it is sent.
            let second = try await fleet.cli.run("campaign", "create", "--all", "--payload", Fleet.payload).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(
                await Fleet.eventually(60, every: 0.1) {
                    let report = try? APIHarness.object(try api.call("GET", "/v1/campaigns/\(second)", key: api.reader))
                    return report?["expanded"] as? Bool == true
                        && ((report?["counts"] as? [String: Int])?["accepted"] ?? 0) >= 5
                })
            try await Self.show(browser, "#/campaign/\(second)")
            try await browser.click("[data-action=cancel]")
            let question = try await browser.text("#confirm-text") ?? ""
            #expect(
                question.hasPrefix("Its ") && question.contains(" pending deliveries will not be sent"), "\(question)")
            try await browser.click("#confirm-ok")
            #expect(try await Self.waitForText(browser, "Campaign \(second) cancelled"))
            try await Self.expect(
                browser, "return document.querySelector('.percent')?.dataset.percent === '100'",
                "not finished on screen")
            // What the page shows and what `apnsd campaign show --json` prints agree, once the requests that were in
            // flight have been answered.
            let statuses = ["pending", "accepted", "unregistered", "rejected", "failed", "cancelled"]
            var shown: [String: Int] = [:]
            var printed: [String: Int] = [:]
            let agree = try await Fleet.eventually(30, every: 0.5) {
                shown =
                    try await browser.run(
                        """
                        const counts = {};
                        for (const row of document.querySelectorAll('section[aria-labelledby=counts-heading] tbody tr')) {
                          const cells = row.querySelectorAll('td');
                          counts[cells[0].innerText.trim()] = Number(cells[1].innerText.replace(/[^0-9]/g, ''));
                        }
                        return counts;
                        """) as? [String: Int] ?? [:]
                let cli = try await fleet.cli.run("campaign", "show", second, "--json")
                let json = try JSONSerialization.jsonObject(with: Data(cli.stdout.utf8)) as? [String: Any] ?? [:]
                printed = json.filter { statuses.contains($0.key) }.compactMapValues { $0 as? Int }
                return json["status"] as? String == "cancelled" && shown == printed
            }
            #expect(agree, "the page shows \(shown), the CLI \(printed)")
            #expect((printed["cancelled"] ?? 0) > 0 && (printed["accepted"] ?? 0) >= 5, "\(printed)")
            try await Self.screenshot(browser, "cancelled")
            try await Self.expectClean(browser, origin: api.base)
        }
    }

    @Test func theBannerShowsWhileAPNsIsUnreachableAndClearsWhenItIsBack() async throws {
        let fleet = try await Fleet(devices: 3, rate: 50, campaign: false)
        defer { fleet.stop() }
        let api = try await APIHarness(cli: fleet.cli, arguments: [], initialized: true)
        defer { api.stop() }
        try await Self.withConsole(api, key: api.admin) { browser in
            try await Self.show(browser, "#/overview")
            #expect(try await browser.run("return document.getElementById('banner').hidden") as? Bool == true)

            fleet.server.stop()
            let posted = try api.call(
                "POST", "/v1/notifications", key: api.backend, json: APIHarness.notification(Tokens.hex(1)))
            #expect(posted.status == 202, "\(posted.body)")
            try await Self.expect(
                browser,
                "return !document.getElementById('banner').hidden && document.getElementById('banner').innerText.includes('unreachable')",
                seconds: 90, "no banner")
            try await Self.screenshot(browser, "banner")
            let faint = try await Self.contrastProblems(browser)
            #expect(faint.isEmpty, "text below WCAG AA contrast: \(faint)")

            let back = try MockServer(configuration: fleet.mockConfiguration)
            defer { back.stop() }
            try await Self.expect(
                browser, "return document.getElementById('banner').hidden", seconds: 90, "the banner stayed")
            // A failed fetch of the outage is no console error: the API answered all along.
            try await Self.expectClean(browser, origin: api.base)
        }
    }
}
