/* See include/crypto_mb_shim.h. */
#define _GNU_SOURCE
#include "crypto_mb_shim.h"
#include "rsa_lanes.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The prototypes used, as crypto_mb declares them (int8u = unsigned char, int32u = unsigned int,
 * int64u = unsigned long long; BIGNUM is OpenSSL's, passed through as an opaque pointer). */
typedef uint32_t mbx_status;
typedef jwtv_mb_rsa_public_fn mbx_rsa_public_ssl_mb8_fn;
typedef mbx_status (*mbx_nistp256_ecpublic_key_mb8_fn)(uint64_t *pa_pubx[8], uint64_t *pa_puby[8], uint64_t *pa_pubz[8],
                                                      const uint64_t *const pa_skey[8], unsigned char *buffer);
typedef int (*mbx_is_crypto_mb_applicable_fn)(unsigned long long cpu_features);
typedef struct {
    int major, minor, patch;
    char target_cpu[4];
    const char *name;
    const char *build_date;
    const char *text;
} mbx_version;
typedef const mbx_version *(*mbx_getversion_fn)(void);

#define MBX_STATUS_OK 0
#define MBX_GET_STS(status, lane) (((status) >> ((lane) * 4)) & 0xF)
#define RSA_MAX_OCTETS 512 /* 4096 bits */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *load_setting;
static const char *load_default;
/* Set once, with release order, after everything below it is: a thread that reads 1 with acquire
 * order (is_loaded) sees the function pointers and texts, whichever thread did the loading. */
static atomic_int loaded;
static int is_loaded(void) { return atomic_load_explicit(&loaded, memory_order_acquire); }
static char load_message[JWTV_MB_MESSAGE_MAX];
static char version_text[64];
static mbx_rsa_public_ssl_mb8_fn rsa_public;
static mbx_nistp256_ecpublic_key_mb8_fn p256_base_mul; /* optional: RSA works without it */

static const char *const runtime_libraries[] = {"libintlc.so.5", "libirng.so", "libimf.so", "libsvml.so"};
static const char *const library_name = "libcrypto_mb.so.13";

static int is_folder(const char *path) {
    struct stat info;
    return stat(path, &info) == 0 && S_ISDIR(info.st_mode);
}

/* RTLD_DEEPBIND for the runtime libraries, or 0 under a sanitizer's runtime (which refuses the
 * flag and ends the process). The libraries bind every symbol at load (BIND_NOW), libsvml alone
 * 38,415 relocations by name, all but one to its own symbols; looked up through the global scope
 * first, each passes every library the process already holds (about 50 for this CLI): 13-15 ms
 * per process, against under 4 ms when a library's own scope comes first. */
static int own_scope_first(void) {
    return dlsym(RTLD_DEFAULT, "__sanitizer_print_stack_trace") != NULL ? 0 : RTLD_DEEPBIND;
}

/* Opens the runtime libraries from `folder` (those present), then the library at `path`. */
static void *open_from(const char *folder, const char *path) {
    char runtime[1024];
    if (folder != NULL) {
        int scope = own_scope_first();
        for (size_t i = 0; i < sizeof runtime_libraries / sizeof *runtime_libraries; i++) {
            snprintf(runtime, sizeof runtime, "%s/%s", folder, runtime_libraries[i]);
            struct stat info;
            if (stat(runtime, &info) == 0) (void)dlopen(runtime, RTLD_NOW | RTLD_LOCAL | scope);
        }
    }
    return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

static void load_once(void) {
    const char *setting = load_setting;
    void *handle = NULL;
    char path[1024];
    if (setting != NULL && strcmp(setting, "off") == 0) {
        snprintf(load_message, sizeof load_message, "off (JWTVERIFY_CRYPTO_MB=off)");
        return;
    }
    if (setting != NULL && setting[0] != '\0') {
        if (is_folder(setting)) {
            snprintf(path, sizeof path, "%s/%s", setting, library_name);
            handle = open_from(setting, path);
        } else {
            char folder[1024];
            snprintf(folder, sizeof folder, "%s", setting);
            char *slash = strrchr(folder, '/');
            if (slash != NULL) *slash = '\0';
            snprintf(path, sizeof path, "%s", setting);
            handle = open_from(slash != NULL ? folder : NULL, path);
        }
        if (handle == NULL) {
            snprintf(load_message, sizeof load_message, "not loaded: JWTVERIFY_CRYPTO_MB=%s: %s", setting, dlerror());
            return;
        }
    } else {
        if (load_default != NULL && is_folder(load_default)) {
            snprintf(path, sizeof path, "%s/%s", load_default, library_name);
            handle = open_from(load_default, path);
        }
        if (handle == NULL) {
            snprintf(path, sizeof path, "%s", library_name);
            handle = open_from(NULL, path);
        }
        if (handle == NULL) {
            snprintf(load_message, sizeof load_message, "not found (%s/%s, nor %s on the library path)",
                     load_default != NULL ? load_default : "-", library_name, library_name);
            return;
        }
    }
    mbx_is_crypto_mb_applicable_fn applicable = (mbx_is_crypto_mb_applicable_fn)dlsym(handle, "mbx_is_crypto_mb_applicable");
    mbx_getversion_fn version = (mbx_getversion_fn)dlsym(handle, "mbx_getversion");
    rsa_public = (mbx_rsa_public_ssl_mb8_fn)dlsym(handle, "mbx_rsa_public_ssl_mb8");
    if (applicable == NULL || rsa_public == NULL) {
        snprintf(load_message, sizeof load_message, "not used: %s lacks mbx_rsa_public_ssl_mb8 or mbx_is_crypto_mb_applicable", path);
        rsa_public = NULL;
        return;
    }
    if (!applicable(0)) {
        snprintf(load_message, sizeof load_message, "not used: this CPU lacks what %s needs (AVX-512 IFMA)", path);
        rsa_public = NULL;
        return;
    }
    p256_base_mul = (mbx_nistp256_ecpublic_key_mb8_fn)dlsym(handle, "mbx_nistp256_ecpublic_key_mb8");
    const mbx_version *v = version != NULL ? version() : NULL;
    if (v != NULL) snprintf(version_text, sizeof version_text, "crypto_mb %d.%d.%d", v->major, v->minor, v->patch);
    else snprintf(version_text, sizeof version_text, "crypto_mb");
    if (v != NULL) jwtv_mb_rsa_lanes_bind(handle, v->major, v->minor, rsa_public);
    snprintf(load_message, sizeof load_message, "%s (%s)%s", version_text, path,
             jwtv_mb_rsa_lanes_bound() ? "; RSA keys' constants kept" : "");
    atomic_store_explicit(&loaded, 1, memory_order_release);
}

int jwtv_mb_load(const char *setting, const char *default_folder, char *message) {
    load_setting = setting;
    load_default = default_folder;
    pthread_once(&once, load_once);
    if (message != NULL) snprintf(message, JWTV_MB_MESSAGE_MAX, "%s", load_message);
    return is_loaded();
}

const char *jwtv_mb_version(void) { return is_loaded() ? version_text : NULL; }

int jwtv_mb_takes_rsa_key(const jwtv_rsa_key *key) { return is_loaded() && jwtv_mb_fits_rsa_key(key); }

int jwtv_mb_fits_rsa_key(const jwtv_rsa_key *key) {
    if (key == NULL || jwtv_rsa_key_public_exponent(key) != 65537) return 0;
    int bits = jwtv_rsa_key_bits(key);
    return bits == 1024 || bits == 2048 || bits == 3072 || bits == 4096;
}

/* The lanes through the keys' kept constants (rsa_lanes.h), unused lanes repeating the first used
 * one into a result nobody reads: 1 when done so, 0 when the public API must do it. */
static int lanes_with_kept_constants(const jwtv_rsa_key *const keys[8], const unsigned char *const from[8],
                                     unsigned char *const to[8], int bits) {
    if (!jwtv_mb_rsa_lanes_bound()) return 0;
    int first = 0;
    while (first < 8 && from[first] == NULL) first++;
    unsigned char unused[RSA_MAX_OCTETS];
    const jwtv_rsa_key *every_key[8];
    const unsigned char *every_from[8];
    unsigned char *every_to[8];
    for (int i = 0; i < 8; i++) {
        int used = from[i] != NULL;
        every_key[i] = keys[used ? i : first];
        every_from[i] = from[used ? i : first];
        every_to[i] = used ? to[i] : unused;
    }
    return jwtv_mb_rsa_lanes_public(every_key, every_from, every_to, bits);
}

void jwtv_mb_rsa_verify8(const jwtv_rsa_key *const keys[8], const void *const signatures[8], const jwtv_rsa_digest kinds[8],
                         const void *const digests[8], const size_t digest_lengths[8], int bits, unsigned char valid[8]) {
    unsigned char results[8][RSA_MAX_OCTETS];
    const unsigned char *from[8] = {0};
    unsigned char *to[8] = {0};
    const void *e[8] = {0};
    const void *n[8] = {0};
    int lanes = 0;
    for (int i = 0; i < 8; i++) {
        valid[i] = 0;
        const jwtv_rsa_key *key = keys[i];
        if (key == NULL || !jwtv_mb_takes_rsa_key(key) || jwtv_rsa_key_bits(key) != bits) continue;
        /* crypto_mb does not check s < n, and s and s + n give the same result: checked here. */
        if (!jwtv_rsa_below_modulus(key, signatures[i], (size_t)bits / 8)) continue;
        from[i] = signatures[i];
        to[i] = results[i];
        e[i] = jwtv_rsa_key_exponent(key);
        n[i] = jwtv_rsa_key_modulus(key);
        lanes++;
    }
    if (lanes == 0 || rsa_public == NULL) return;
    mbx_status status;
    if (lanes_with_kept_constants(keys, from, to, bits)) {
        status = MBX_STATUS_OK;
    } else {
        /* Lanes left NULL report an error of their own; the others run. */
        status = rsa_public(from, to, e, n, bits);
    }
    for (int i = 0; i < 8; i++) {
        if (from[i] == NULL || MBX_GET_STS(status, i) != MBX_STATUS_OK) continue;
        valid[i] = (unsigned char)jwtv_rsa_is_encoding(keys[i], kinds[i], results[i], digests[i], digest_lengths[i]);
    }
}

int jwtv_mb_keeps_rsa_constants(void) { return is_loaded() && jwtv_mb_rsa_lanes_bound(); }

int jwtv_mb_rsa_key_constants(const jwtv_rsa_key *key) { return jwtv_mb_rsa_lanes_state(key); }

int jwtv_mb_refuse_rsa_key_constants(const jwtv_rsa_key *key) { return jwtv_mb_rsa_lanes_refuse(key); }

int jwtv_mb_has_p256_base(void) { return is_loaded() && p256_base_mul != NULL; }

unsigned jwtv_mb_p256_base_mul8(const uint64_t *const scalars[8], uint64_t *const x[8], uint64_t *const y[8],
                                uint64_t *const z[8]) {
    if (!is_loaded() || p256_base_mul == NULL) return 0;
    uint64_t *px[8], *py[8], *pz[8];
    for (int i = 0; i < 8; i++) {
        if (scalars[i] == NULL || x[i] == NULL || y[i] == NULL || z[i] == NULL) return 0;
        px[i] = x[i];
        py[i] = y[i];
        pz[i] = z[i];
    }
    mbx_status status = p256_base_mul(px, py, pz, scalars, NULL);
    unsigned done = 0;
    for (int i = 0; i < 8; i++) {
        if (MBX_GET_STS(status, i) == MBX_STATUS_OK) done |= 1u << i;
    }
    return done;
}
