// The system's OpenSSL (Debian: libssl3, headers from libssl-dev), for nexusctl's HTTPS.
// Swift cannot call OpenSSL's function-like macros, so the few nexusctl needs are
// wrapped here as inline functions; everything else is OpenSSL's own API.
#ifndef NEXUS_COPENSSL_SHIM_H
#define NEXUS_COPENSSL_SHIM_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/evp.h>

static inline long nexus_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}

static inline long nexus_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

static inline long nexus_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}

// Writes may finish in parts, from a buffer that moves between retries (Swift arrays).
static inline long nexus_SSL_CTX_set_partial_writes(SSL_CTX *ctx) {
    return SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

static inline int nexus_TLS1_2_VERSION(void) { return TLS1_2_VERSION; }
static inline long nexus_SSL_SESS_CACHE_CLIENT(void) { return SSL_SESS_CACHE_CLIENT; }
static inline long nexus_SSL_SESS_CACHE_NO_INTERNAL_STORE(void) { return SSL_SESS_CACHE_NO_INTERNAL_STORE; }

#endif
