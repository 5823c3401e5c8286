import APNsMock
import Foundation

/// A throwaway CA and a server certificate for 127.0.0.1 / localhost, written as PEM files.
struct TestPKI {
    let identity: TLSIdentity
    let caFile: String
    let certificateFile: String
    let keyFile: String

    init(in directory: TempDirectory, name: String = "server") throws {
        identity = try TLSIdentity.throwaway()
        caFile = try directory.write("\(name)-ca.pem", identity.caCertificatePEM!)
        certificateFile = try directory.write("\(name)-cert.pem", identity.certificatePEM)
        keyFile = try directory.write("\(name)-key.pem", identity.privateKeyPEM)
    }
}
