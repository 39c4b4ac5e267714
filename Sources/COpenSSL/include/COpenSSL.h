// The system's OpenSSL (Debian: libssl3; headers from libssl-dev), for nexusctl's HTTPS
// and SHA-256. nexusctl does not link it: OpenSSL.c loads libssl.so.3 the first time a
// command needs it, so a command over plain HTTP (or none at all) doesn't pay ~3 million
// instructions of dynamic linking (~1 ms) at every start. Call OpenSSL through the
// nexus_ functions below; OpenSSL's headers are here for its types and constants.
#ifndef NEXUS_COPENSSL_H
#define NEXUS_COPENSSL_H

#include <stddef.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/// Loads libssl.so.3 (and with it libcrypto) once; 0 when every function below is ready.
/// On failure, `error` holds why (dlerror's text).
int nexus_openssl_load(char *error, size_t errorSize);
/// Starts making a TLS context on a thread of its own, once a process; the take function
/// waits for it and hands over what it made (NULL: make it in place).
void nexus_openssl_prepare(void);
SSL_CTX *nexus_openssl_take_context(void);
/// Replaces the session file at `path` (mode 0600, through a temporary file and a rename)
/// on a thread of its own; the process waits for it at exit. Its folder must exist.
void nexus_save_session_file(const char *path, const unsigned char *bytes, size_t length);

// TLS (libssl).
const SSL_METHOD *nexus_TLS_client_method(void);
SSL_CTX *nexus_SSL_CTX_new(const SSL_METHOD *method);
void nexus_SSL_CTX_free(SSL_CTX *ctx);
void nexus_SSL_CTX_set_verify(SSL_CTX *ctx, int mode, SSL_verify_cb callback);
/// Verifies the server's chain against `file` (NULL: the system's trust store), read only
/// when a chain is verified, so a resumed session never reads it. 1 on success.
int nexus_SSL_CTX_defer_trust(SSL_CTX *ctx, const char *file);
/// 1 when the deferred trust anchors could not be read (not PEM, gone).
int nexus_SSL_CTX_trust_failed(SSL_CTX *ctx);
// OpenSSL's function-like macros, which Swift cannot call.
long nexus_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version);
long nexus_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode);
/// Writes may finish in parts, from a buffer that moves between retries (Swift arrays).
long nexus_SSL_CTX_set_partial_writes(SSL_CTX *ctx);
long nexus_SSL_set_tlsext_host_name(SSL *ssl, const char *name);
SSL *nexus_SSL_new(SSL_CTX *ctx);
void nexus_SSL_free(SSL *ssl);
int nexus_SSL_set_fd(SSL *ssl, int fd);
X509_VERIFY_PARAM *nexus_SSL_get0_param(SSL *ssl);
int nexus_SSL_set_session(SSL *ssl, SSL_SESSION *session);
int nexus_SSL_connect(SSL *ssl);
const char *nexus_SSL_get_version(const SSL *ssl);
int nexus_SSL_session_reused(const SSL *ssl);
int nexus_SSL_pending(const SSL *ssl);
int nexus_SSL_write(SSL *ssl, const void *buffer, int count);
int nexus_SSL_read(SSL *ssl, void *buffer, int count);
int nexus_SSL_shutdown(SSL *ssl);
int nexus_SSL_get_error(const SSL *ssl, int result);
long nexus_SSL_get_verify_result(const SSL *ssl);
SSL_SESSION *nexus_SSL_get1_session(SSL *ssl);
void nexus_SSL_SESSION_free(SSL_SESSION *session);
int nexus_SSL_SESSION_is_resumable(const SSL_SESSION *session);
int nexus_i2d_SSL_SESSION(const SSL_SESSION *session, unsigned char **out);
SSL_SESSION *nexus_d2i_SSL_SESSION(SSL_SESSION **session, const unsigned char **in, long length);

// Certificates and errors (libcrypto).
int nexus_X509_VERIFY_PARAM_set1_host(X509_VERIFY_PARAM *param, const char *name, size_t length);
int nexus_X509_VERIFY_PARAM_set1_ip_asc(X509_VERIFY_PARAM *param, const char *address);
const char *nexus_X509_verify_cert_error_string(long code);
void nexus_ERR_clear_error(void);
unsigned long nexus_ERR_get_error(void);
unsigned long nexus_ERR_peek_error(void);
const char *nexus_ERR_reason_error_string(unsigned long code);

// Digests (libcrypto): SHA-256 for attachments.
EVP_MD_CTX *nexus_EVP_MD_CTX_new(void);
void nexus_EVP_MD_CTX_free(EVP_MD_CTX *ctx);
const EVP_MD *nexus_EVP_sha256(void);
int nexus_EVP_DigestInit_ex(EVP_MD_CTX *ctx, const EVP_MD *type, ENGINE *engine);
int nexus_EVP_DigestUpdate(EVP_MD_CTX *ctx, const void *data, size_t count);
int nexus_EVP_DigestFinal_ex(EVP_MD_CTX *ctx, unsigned char *digest, unsigned int *count);

#endif
