import Foundation

extension ProviderToken {
    /// Signs a new ES256 provider token: header {"alg":"ES256","kid":…}, claims {"iss":…,"iat":…}.
    public static func mint(key: SigningKey, credential: ProviderCredential, issuedAt: Date) throws(ProviderAuthError)
        -> ProviderToken
    {
        let iat = Int(issuedAt.timeIntervalSince1970.rounded(.down))
        // Written by hand: fixed key order and no escaping surprises; the ids are validated alphanumerics.
        let header = #"{"alg":"ES256","kid":"\#(credential.keyId)"}"#
        let claims = #"{"iss":"\#(credential.teamId)","iat":\#(iat)}"#
        let signingInput = Base64URL.encode(header.utf8) + "." + Base64URL.encode(claims.utf8)
        let signature = try key.signES256(Array(signingInput.utf8))
        return ProviderToken(
            value: signingInput + "." + Base64URL.encode(signature),
            keyId: credential.keyId,
            issuedAt: Date(timeIntervalSince1970: TimeInterval(iat))
        )
    }
}
