#ifndef APNSD_COPENSSL_SHIM_H
#define APNSD_COPENSSL_SHIM_H
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/provider.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

// OpenSSL spells these as macros over *_ctrl; Swift cannot import macros with arguments.
static inline long apnsd_SSL_CTX_set_min_proto_version(SSL_CTX *c, int v) { return SSL_CTX_set_min_proto_version(c, v); }
static inline long apnsd_SSL_CTX_set_mode(SSL_CTX *c, long m) { return SSL_CTX_set_mode(c, m); }
static inline long apnsd_SSL_CTX_set_options(SSL_CTX *c, unsigned long o) { return (long)SSL_CTX_set_options(c, o); }
static inline long apnsd_BIO_get_mem_data(BIO *b, char **p) { return BIO_get_mem_data(b, p); }
static inline int apnsd_OPENSSL_free(void *p) { OPENSSL_free(p); return 0; }
static inline int apnsd_EVP_PKEY_CTX_set_ec_paramgen_curve_nid(EVP_PKEY_CTX *c, int nid) { return EVP_PKEY_CTX_set_ec_paramgen_curve_nid(c, nid); }
#endif
