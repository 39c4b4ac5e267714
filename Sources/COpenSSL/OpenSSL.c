// Loads the system's libssl.so.3 on first use and forwards each nexus_ function to it
// (see COpenSSL.h for why). Each pointer takes the type of OpenSSL's own prototype, so a
// wrong signature here is a compile error, not a crash.
#define _GNU_SOURCE // RTLD_DEEPBIND
#include "COpenSSL.h"
#include "Worker.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEXUS_OPENSSL_FUNCTIONS(F) \
    F(TLS_client_method) F(SSL_CTX_new) F(SSL_CTX_free) F(SSL_CTX_set_verify) \
    F(SSL_CTX_ctrl) F(SSL_ctrl) \
    F(SSL_new) F(SSL_free) F(SSL_set_fd) F(SSL_get0_param) F(SSL_set_session) F(SSL_connect) \
    F(SSL_get_version) F(SSL_session_reused) F(SSL_pending) F(SSL_write) F(SSL_read) F(SSL_shutdown) \
    F(SSL_get_error) F(SSL_get_verify_result) F(SSL_get1_session) F(SSL_SESSION_free) \
    F(SSL_SESSION_is_resumable) F(i2d_SSL_SESSION) F(d2i_SSL_SESSION) \
    F(X509_VERIFY_PARAM_set1_host) F(X509_VERIFY_PARAM_set1_ip_asc) F(X509_verify_cert_error_string) \
    F(ERR_clear_error) F(ERR_get_error) F(ERR_peek_error) F(ERR_reason_error_string) \
    F(EVP_MD_CTX_new) F(EVP_MD_CTX_free) F(EVP_sha256) F(EVP_DigestInit_ex) F(EVP_DigestUpdate) \
    F(EVP_DigestFinal_ex) F(SSL_CTX_set_cert_verify_callback) F(SSL_CTX_set_ex_data) F(SSL_CTX_get_ex_data) \
    F(X509_STORE_CTX_get0_store) F(X509_STORE_CTX_set_error) F(X509_STORE_load_file) \
    F(X509_STORE_set_default_paths) F(X509_verify_cert) F(OPENSSL_init_ssl)

#define NEXUS_POINTER(name) static __typeof__(&name) p_##name;
NEXUS_OPENSSL_FUNCTIONS(NEXUS_POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char loadError[256];

static void load(void) {
    // Debian links libcrypto with BIND_NOW: its ~4,200 symbols are bound at load. Looked up
    // in the libraries themselves first (DEEPBIND) rather than through the Swift runtime's
    // sixteen libraries ahead of them, that costs 3.3 M fewer instructions a command.
    void *ssl = dlopen("libssl.so.3", RTLD_LAZY | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!ssl) {
        snprintf(loadError, sizeof loadError, "%s", dlerror());
        return;
    }
#define NEXUS_LOOKUP(name) \
    if (!(p_##name = (__typeof__(&name))dlsym(ssl, #name))) { \
        snprintf(loadError, sizeof loadError, "libssl.so.3 has no %s", #name); \
        return; \
    }
    NEXUS_OPENSSL_FUNCTIONS(NEXUS_LOOKUP)
    // No cleanup at exit: OpenSSL's atexit handler tears down every provider and method
    // store it built (1.4 M instructions a command) for memory the kernel frees anyway.
    // Error strings are loaded when an error is told (nexus_ERR_reason_error_string), not
    // here: their tables cost every command over https:// about 0.18 ms.
    // It must be the first initialisation; the config file is still read, as by default.
    if (!p_OPENSSL_init_ssl(OPENSSL_INIT_NO_ATEXIT | OPENSSL_INIT_LOAD_CONFIG | OPENSSL_INIT_NO_LOAD_SSL_STRINGS
                                | OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS, NULL)) {
        snprintf(loadError, sizeof loadError, "OpenSSL did not initialise");
    }
}

int nexus_openssl_load(char *error, size_t errorSize) {
    pthread_once(&once, load);
    if (loadError[0] == 0) return 0;
    snprintf(error, errorSize, "%s", loadError);
    return -1;
}

// A command over https:// makes its TLS context on a second thread while it does its own
// work before connecting (the outbox append and its fsync, for a send): loading OpenSSL
// and SSL_CTX_new (method construction: 8 M instructions) cost ~2 ms in series. The
// thread only builds; every setting (TLS 1.2 minimum, verification, trust, host name) is
// applied by the connecting thread to what it takes, as to a context made in place.
static nexus_worker prep = NEXUS_WORKER_INITIALIZER;
static int prepStarted;
static SSL_CTX *prepContext;

static void *nexus_prepare(void *unused) {
    (void)unused;
    pthread_once(&once, load);
    if (loadError[0]) return NULL;
    prepContext = p_SSL_CTX_new(p_TLS_client_method());
    p_ERR_clear_error(); // this thread's queue: a failure is met again, and reported, in place
    return NULL;
}

void nexus_openssl_prepare(void) {
    pthread_mutex_lock(&prep.lock);
    if (!prepStarted) {
        prepStarted = 1;
        nexus_worker_start(&prep, nexus_prepare, NULL);
    }
    pthread_mutex_unlock(&prep.lock);
}

SSL_CTX *nexus_openssl_take_context(void) {
    pthread_mutex_lock(&prep.lock);
    nexus_worker_join(&prep);
    SSL_CTX *ctx = prepContext;
    prepContext = NULL;
    pthread_mutex_unlock(&prep.lock);
    return ctx;
}

// OpenSSL's control macros expand to SSL_CTX_ctrl and SSL_ctrl: route those to the loaded ones.
#define SSL_CTX_ctrl p_SSL_CTX_ctrl
#define SSL_ctrl p_SSL_ctrl

long nexus_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) { return SSL_CTX_set_min_proto_version(ctx, version); }
long nexus_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_session_cache_mode(ctx, mode); }
long nexus_SSL_CTX_set_partial_writes(SSL_CTX *ctx) {
    return SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}
long nexus_SSL_set_tlsext_host_name(SSL *ssl, const char *name) { return SSL_set_tlsext_host_name(ssl, name); }

const SSL_METHOD *nexus_TLS_client_method(void) { return p_TLS_client_method(); }
SSL_CTX *nexus_SSL_CTX_new(const SSL_METHOD *method) { return p_SSL_CTX_new(method); }
void nexus_SSL_CTX_free(SSL_CTX *ctx) {
    free(p_SSL_CTX_get_ex_data(ctx, 0));
    p_SSL_CTX_free(ctx);
}
void nexus_SSL_CTX_set_verify(SSL_CTX *ctx, int mode, SSL_verify_cb callback) { p_SSL_CTX_set_verify(ctx, mode, callback); }
// The trust anchors are read when a certificate chain is to be verified, not before: a
// resumed session (every command after the first) presents none, and reading them cost a
// command 2.5 M instructions for a one-certificate --cacert (the system bundle, far more).
typedef struct {
    int loaded, failed;
    char file[]; // empty: the system's trust store
} nexus_trust;

static int nexus_verify_with_trust(X509_STORE_CTX *store_ctx, void *arg) {
    nexus_trust *trust = arg;
    if (!trust->loaded) {
        X509_STORE *store = p_X509_STORE_CTX_get0_store(store_ctx);
        int ok = trust->file[0] ? p_X509_STORE_load_file(store, trust->file) : p_X509_STORE_set_default_paths(store);
        if (ok != 1) {
            trust->failed = 1;
            p_X509_STORE_CTX_set_error(store_ctx, X509_V_ERR_UNSPECIFIED);
            return 0;
        }
        trust->loaded = 1;
    }
    return p_X509_verify_cert(store_ctx);
}

int nexus_SSL_CTX_defer_trust(SSL_CTX *ctx, const char *file) {
    size_t length = file ? strlen(file) : 0;
    nexus_trust *trust = calloc(1, sizeof(nexus_trust) + length + 1);
    if (!trust) return 0;
    if (file) memcpy(trust->file, file, length);
    if (p_SSL_CTX_set_ex_data(ctx, 0, trust) != 1) {
        free(trust);
        return 0;
    }
    p_SSL_CTX_set_cert_verify_callback(ctx, nexus_verify_with_trust, trust);
    return 1;
}

int nexus_SSL_CTX_trust_failed(SSL_CTX *ctx) {
    nexus_trust *trust = p_SSL_CTX_get_ex_data(ctx, 0);
    return trust && trust->failed;
}

SSL *nexus_SSL_new(SSL_CTX *ctx) { return p_SSL_new(ctx); }
void nexus_SSL_free(SSL *ssl) { p_SSL_free(ssl); }
int nexus_SSL_set_fd(SSL *ssl, int fd) { return p_SSL_set_fd(ssl, fd); }
X509_VERIFY_PARAM *nexus_SSL_get0_param(SSL *ssl) { return p_SSL_get0_param(ssl); }
int nexus_SSL_set_session(SSL *ssl, SSL_SESSION *session) { return p_SSL_set_session(ssl, session); }
// OpenSSL writes to the socket with write(), which raises SIGPIPE once the server has
// closed the connection: that would kill nexusctl (exit by signal, nothing said) where a
// plain-HTTP send (MSG_NOSIGNAL) queues and exits 75. So, as libpq does, SIGPIPE is held
// off on this thread for each call that may write, and one it raised is taken back.
typedef struct { sigset_t old; int wasPending; } nexus_sigpipe;

static nexus_sigpipe nexus_hold_sigpipe(void) {
    nexus_sigpipe held;
    sigset_t pipe, pending;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, &held.old);
    sigpending(&pending);
    held.wasPending = sigismember(&pending, SIGPIPE);
    return held;
}

static void nexus_release_sigpipe(nexus_sigpipe held) {
    int error = errno; // the caller reads the call's errno after this
    sigset_t pipe, pending;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    sigpending(&pending);
    if (!held.wasPending && sigismember(&pending, SIGPIPE)) {
        struct timespec now = {0, 0};
        sigtimedwait(&pipe, NULL, &now);
    }
    pthread_sigmask(SIG_SETMASK, &held.old, NULL);
    errno = error;
}

#define NEXUS_WITHOUT_SIGPIPE(call) \
    nexus_sigpipe held = nexus_hold_sigpipe(); \
    int result = call; \
    nexus_release_sigpipe(held); \
    return result;

int nexus_SSL_connect(SSL *ssl) { NEXUS_WITHOUT_SIGPIPE(p_SSL_connect(ssl)) }
const char *nexus_SSL_get_version(const SSL *ssl) { return p_SSL_get_version(ssl); }
int nexus_SSL_session_reused(const SSL *ssl) { return p_SSL_session_reused(ssl); }
int nexus_SSL_pending(const SSL *ssl) { return p_SSL_pending(ssl); }
int nexus_SSL_write(SSL *ssl, const void *buffer, int count) { NEXUS_WITHOUT_SIGPIPE(p_SSL_write(ssl, buffer, count)) }
int nexus_SSL_read(SSL *ssl, void *buffer, int count) { NEXUS_WITHOUT_SIGPIPE(p_SSL_read(ssl, buffer, count)) }
int nexus_SSL_shutdown(SSL *ssl) { NEXUS_WITHOUT_SIGPIPE(p_SSL_shutdown(ssl)) }
int nexus_SSL_get_error(const SSL *ssl, int result) { return p_SSL_get_error(ssl, result); }
long nexus_SSL_get_verify_result(const SSL *ssl) { return p_SSL_get_verify_result(ssl); }
SSL_SESSION *nexus_SSL_get1_session(SSL *ssl) { return p_SSL_get1_session(ssl); }
void nexus_SSL_SESSION_free(SSL_SESSION *session) { p_SSL_SESSION_free(session); }
int nexus_SSL_SESSION_is_resumable(const SSL_SESSION *session) { return p_SSL_SESSION_is_resumable(session); }
int nexus_i2d_SSL_SESSION(const SSL_SESSION *session, unsigned char **out) { return p_i2d_SSL_SESSION(session, out); }
SSL_SESSION *nexus_d2i_SSL_SESSION(SSL_SESSION **session, const unsigned char **in, long length) {
    return p_d2i_SSL_SESSION(session, in, length);
}

int nexus_X509_VERIFY_PARAM_set1_host(X509_VERIFY_PARAM *param, const char *name, size_t length) {
    return p_X509_VERIFY_PARAM_set1_host(param, name, length);
}
int nexus_X509_VERIFY_PARAM_set1_ip_asc(X509_VERIFY_PARAM *param, const char *address) {
    return p_X509_VERIFY_PARAM_set1_ip_asc(param, address);
}
const char *nexus_X509_verify_cert_error_string(long code) { return p_X509_verify_cert_error_string(code); }
void nexus_ERR_clear_error(void) { p_ERR_clear_error(); }
unsigned long nexus_ERR_get_error(void) { return p_ERR_get_error(); }
unsigned long nexus_ERR_peek_error(void) { return p_ERR_peek_error(); }
// The strings of the libraries a TLS client's errors come from. The init flags above
// mark OpenSSL's own string loading as done, so these loaders are called by name.
static pthread_once_t stringsOnce = PTHREAD_ONCE_INIT;

static void nexus_load_error_strings(void) {
    static const char *const loaders[] = {
        "ERR_load_SSL_strings", "ERR_load_X509_strings", "ERR_load_X509V3_strings", "ERR_load_PEM_strings",
        "ERR_load_ASN1_strings", "ERR_load_EVP_strings", "ERR_load_RSA_strings", "ERR_load_EC_strings",
        "ERR_load_BIO_strings", "ERR_load_CRYPTO_strings", "ERR_load_ERR_strings",
    };
    void *ssl = dlopen("libssl.so.3", RTLD_LAZY | RTLD_LOCAL | RTLD_DEEPBIND | RTLD_NOLOAD);
    if (!ssl) return;
    for (size_t i = 0; i < sizeof loaders / sizeof loaders[0]; i++) {
        int (*loader)(void) = (int (*)(void))dlsym(ssl, loaders[i]);
        if (loader) loader();
    }
    dlclose(ssl);
}

const char *nexus_ERR_reason_error_string(unsigned long code) {
    pthread_once(&stringsOnce, nexus_load_error_strings);
    return p_ERR_reason_error_string(code);
}

EVP_MD_CTX *nexus_EVP_MD_CTX_new(void) { return p_EVP_MD_CTX_new(); }
void nexus_EVP_MD_CTX_free(EVP_MD_CTX *ctx) { p_EVP_MD_CTX_free(ctx); }
const EVP_MD *nexus_EVP_sha256(void) { return p_EVP_sha256(); }
int nexus_EVP_DigestInit_ex(EVP_MD_CTX *ctx, const EVP_MD *type, ENGINE *engine) { return p_EVP_DigestInit_ex(ctx, type, engine); }
int nexus_EVP_DigestUpdate(EVP_MD_CTX *ctx, const void *data, size_t count) { return p_EVP_DigestUpdate(ctx, data, count); }
int nexus_EVP_DigestFinal_ex(EVP_MD_CTX *ctx, unsigned char *digest, unsigned int *count) {
    return p_EVP_DigestFinal_ex(ctx, digest, count);
}
