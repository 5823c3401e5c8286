internal import COpenSSL

/// An OpenSSL server context for TLS 1.2+ that offers only `h2` by ALPN, as APNs does; with a client CA it asks
/// for (does not require) a client certificate.
final class TLSServerContext: @unchecked Sendable {
    let context: OpaquePointer

    /// `clientCAPEM`: the CA certificates (PEM) client certificates are verified against; nil asks for none.
    init(identity: TLSIdentity, clientCAPEM: String? = nil) throws {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw MockError.tls("SSL_CTX_new failed") }
        self.context = context
        _ = apnsd_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION)
        _ = apnsd_SSL_CTX_set_mode(
            context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS)
        )

        try Self.withBIO(identity.certificatePEM) { bio in
            guard let leaf = PEM_read_bio_X509(bio, nil, nil, nil) else {
                throw MockError.tls("certificate PEM unreadable")
            }
            defer { X509_free(leaf) }
            guard SSL_CTX_use_certificate(context, leaf) == 1 else { throw MockError.tls("certificate rejected") }
            while let extra = PEM_read_bio_X509(bio, nil, nil, nil) {
                // The context takes ownership of chain certificates it accepts.
                if SSL_CTX_ctrl(context, SSL_CTRL_EXTRA_CHAIN_CERT, 0, UnsafeMutableRawPointer(extra)) != 1 {
                    X509_free(extra)
                }
            }
            ERR_clear_error()
        }
        try Self.withBIO(identity.privateKeyPEM) { bio in
            guard let key = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else {
                throw MockError.tls("private key PEM unreadable")
            }
            defer { EVP_PKEY_free(key) }
            guard SSL_CTX_use_PrivateKey(context, key) == 1, SSL_CTX_check_private_key(context) == 1 else {
                throw MockError.tls("private key does not match the certificate")
            }
        }
        SSL_CTX_set_alpn_select_cb(context, selectH2, nil)
        if let clientCAPEM { try requestClientCertificates(verifiedBy: clientCAPEM) }
    }

    private func requestClientCertificates(verifiedBy pem: String) throws {
        guard let store = SSL_CTX_get_cert_store(context) else { throw MockError.tls("no certificate store") }
        var count = 0
        try Self.withBIO(pem) { bio in
            while let ca = PEM_read_bio_X509(bio, nil, nil, nil) {
                defer { X509_free(ca) }
                guard X509_STORE_add_cert(store, ca) == 1, SSL_CTX_add_client_CA(context, ca) == 1 else {
                    throw MockError.tls("client CA certificate rejected")
                }
                count += 1
            }
            ERR_clear_error()
        }
        guard count > 0 else { throw MockError.tls("the client CA file holds no PEM certificate") }
        // Request, do not require; and accept whatever comes, so that a bad certificate is answered per request
        // (403 BadCertificate) as APNs does, instead of failing the handshake. The verdict stays readable with
        // SSL_get_verify_result.
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, { _, _ in 1 })
        // Session resumption with client certificates needs a context id (else OpenSSL refuses resumed sessions).
        let id = Array("apns-mock".utf8)
        _ = SSL_CTX_set_session_id_context(context, id, UInt32(id.count))
    }

    deinit { SSL_CTX_free(context) }

    private static func withBIO(_ pem: String, _ body: (OpaquePointer) throws -> Void) throws {
        var bytes = Array(pem.utf8)
        try bytes.withUnsafeMutableBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else {
                throw MockError.tls("BIO_new_mem_buf failed")
            }
            defer { BIO_free(bio) }
            try body(bio)
        }
    }
}

/// Picks "h2" from the client's ALPN list; without it the handshake fails, as with APNs.
private func selectH2(
    _ ssl: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
    _ outLength: UnsafeMutablePointer<UInt8>?,
    _ input: UnsafePointer<UInt8>?, _ inputLength: UInt32, _ arg: UnsafeMutableRawPointer?
) -> Int32 {
    guard let input else { return SSL_TLSEXT_ERR_ALERT_FATAL }
    var i = 0
    let total = Int(inputLength)
    while i < total {
        let length = Int(input[i])
        if length == 2, i + 2 < total, input[i + 1] == UInt8(ascii: "h"), input[i + 2] == UInt8(ascii: "2") {
            out?.pointee = input + i + 1
            outLength?.pointee = 2
            return SSL_TLSEXT_ERR_OK
        }
        i += 1 + length
    }
    return SSL_TLSEXT_ERR_ALERT_FATAL
}
