import APNs
import Foundation

/// ISO 8601 times as producers give them (`--at`): `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±hh:mm)`, a real calendar
/// date in the years 2000–9999. Foundation's parser rolls 2026-02-30 over to 2 March and accepts years past
/// 9999; a notification scheduled on a date that does not exist is a mistake to report, not to guess at.
public enum Timestamp {
    /// Parses `text`; the error names what is wrong.
    public static func parse(_ text: String) throws(IntakeError) -> Date {
        let bytes = Array(text.utf8)
        func fail(_ why: String) -> IntakeError {
            IntakeError(
                "'\(Printable.escaped(String(text.prefix(60))))' is not an ISO 8601 time such as 2026-12-01T09:00:00Z (\(why))"
            )
        }
        var index = 0
        func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<(index + count)] {
                guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }
        func expect(_ character: Character) -> Bool {
            guard index < bytes.count, bytes[index] == character.asciiValue! else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), expect("-"), let month = digits(2), expect("-"), let day = digits(2) else {
            throw fail("expected YYYY-MM-DD")
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "T") || bytes[index] == UInt8(ascii: "t") else {
            throw fail("expected 'T' and a time after the date")
        }
        index += 1
        guard let hour = digits(2), expect(":"), let minute = digits(2), expect(":"), let second = digits(2) else {
            throw fail("expected HH:MM:SS")
        }
        var nanoseconds = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 100_000_000
            var count = 0
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                nanoseconds += Int(bytes[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                count += 1
                index += 1
            }
            guard count > 0, count <= 9 else { throw fail("1 to 9 digits of fractional seconds") }
        }
        var offset = 0
        if expect("Z") || expect("z") {
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = digits(2), expect(":"), let minutes = digits(2), hours <= 23, minutes <= 59 else {
                throw fail("the offset must be ±hh:mm")
            }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            throw fail("a time zone is required: Z or ±hh:mm")
        }
        guard index == bytes.count else { throw fail("unexpected text after the time") }
        guard (2000...9999).contains(year) else { throw fail("the year must be from 2000 to 9999") }
        guard (1...12).contains(month) else { throw fail("there is no month \(month)") }
        guard (1...daysIn(month: month, year: year)).contains(day) else {
            throw fail("\(year)-\(pad(month)) has no day \(day)")
        }
        guard hour <= 23, minute <= 59, second <= 59 else { throw fail("the time of day is out of range") }
        let days = daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1e9)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the date (proleptic Gregorian; Howard Hinnant's days_from_civil).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
