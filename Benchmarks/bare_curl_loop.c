/*
 * bare_curl_loop — the baseline apnsd's transport is measured against.
 *
 * A bare C loop over libcurl's multi interface: ONE multiplexed HTTP/2 connection over TLS
 * (CURLMOPT_PIPELINING = CURLPIPE_MULTIPLEX, CURLMOPT_MAX_HOST_CONNECTIONS = 1, CURLOPT_PIPEWAIT),
 * `total` APNs-style requests, `inflight` streams kept in flight, TLS verification on.
 *
 *   POST /3/device/<64 hex>   authorization: bearer <token>, apns-topic, apns-push-type: alert,
 *                             apns-priority: 10, body {"aps":{"alert":"bench"}}
 *
 * Usage: bare_curl_loop <base-url> <ca-file> <total> <inflight> <bearer-token-file> [device-hex] [topic]
 *   base-url   e.g. https://127.0.0.1:2197 (a URL that already contains "/3/device/" is used as is)
 *   ca-file    PEM CA bundle for the server's certificate ("-" = the system store)
 * Prints one line per status, then requests/s; exit 0 when every request got an HTTP status.
 *
 * Build: cc -O2 -o bare_curl_loop Benchmarks/bare_curl_loop.c -lcurl
 */
#include <curl/curl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static size_t discard_body(char *ptr, size_t size, size_t nmemb, void *userdata) {
    (void)ptr; (void)userdata;
    return size * nmemb;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *read_token(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); return NULL; }
    char *buf = calloc(1, 8192);
    size_t n = fread(buf, 1, 8191, f);
    fclose(f);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ' || buf[n - 1] == '\t')) buf[--n] = 0;
    return buf;
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: %s <base-url> <ca-file> <total> <inflight> <bearer-token-file> [device-hex] [topic]\n", argv[0]);
        return 64;
    }
    const char *base = argv[1];
    const char *cafile = argv[2];
    long total = atol(argv[3]);
    long inflight = atol(argv[4]);
    const char *device = argc > 6 ? argv[6] : "abababababababababababababababababababababababababababababababab";
    const char *topic = argc > 7 ? argv[7] : "com.example.app";
    if (total <= 0 || inflight <= 0) { fprintf(stderr, "total and inflight must be positive\n"); return 64; }
    if (inflight > total) inflight = total;
    char *token = read_token(argv[5]);
    if (!token) return 1;

    signal(SIGPIPE, SIG_IGN);
    curl_global_init(CURL_GLOBAL_DEFAULT);

    char url[2048];
    if (strstr(base, "/3/device/")) snprintf(url, sizeof url, "%s", base);
    else snprintf(url, sizeof url, "%s/3/device/%s", base, device);

    char auth[8300], topic_header[512];
    snprintf(auth, sizeof auth, "authorization: bearer %s", token);
    snprintf(topic_header, sizeof topic_header, "apns-topic: %s", topic);
    struct curl_slist *headers = NULL;
    headers = curl_slist_append(headers, auth);
    headers = curl_slist_append(headers, topic_header);
    headers = curl_slist_append(headers, "apns-push-type: alert");
    headers = curl_slist_append(headers, "apns-priority: 10");
    headers = curl_slist_append(headers, "content-type: application/json");
    headers = curl_slist_append(headers, "expect:");
    static const char body[] = "{\"aps\":{\"alert\":\"bench\"}}";

    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 1L);
    curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, 1L);
    curl_multi_setopt(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, 1000L);

    CURL **handles = calloc((size_t)inflight, sizeof(CURL *));
    for (long i = 0; i < inflight; i++) {
        CURL *e = curl_easy_init();
        curl_easy_setopt(e, CURLOPT_URL, url);
        curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
        curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
        curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
        if (strcmp(cafile, "-") != 0) curl_easy_setopt(e, CURLOPT_CAINFO, cafile);
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(e, CURLOPT_POST, 1L);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)(sizeof body - 1));
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard_body);
        curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 30000L);
        handles[i] = e;
    }

    long started = 0, done = 0, errors = 0;
    long status_count[600] = {0};
    long curl_errors[128] = {0};
    double t0 = now_seconds();
    for (long i = 0; i < inflight; i++) { curl_multi_add_handle(multi, handles[i]); started++; }

    int running = 1;
    while (done < total) {
        CURLMcode mc = curl_multi_perform(multi, &running);
        if (mc != CURLM_OK) { fprintf(stderr, "curl_multi_perform: %s\n", curl_multi_strerror(mc)); break; }
        CURLMsg *msg;
        int left;
        while ((msg = curl_multi_info_read(multi, &left))) {
            if (msg->msg != CURLMSG_DONE) continue;
            CURL *e = msg->easy_handle;
            CURLcode rc = msg->data.result;
            curl_multi_remove_handle(multi, e);
            done++;
            if (rc == CURLE_OK) {
                long status = 0;
                curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
                if (status >= 0 && status < 600) status_count[status]++;
            } else {
                errors++;
                curl_errors[rc < 128 ? rc : 127]++;
            }
            if (started < total) { curl_multi_add_handle(multi, e); started++; }
        }
        if (done >= total) break;
        mc = curl_multi_poll(multi, NULL, 0, 1000, NULL);
        if (mc != CURLM_OK) { fprintf(stderr, "curl_multi_poll: %s\n", curl_multi_strerror(mc)); break; }
    }
    double elapsed = now_seconds() - t0;

    for (int s = 0; s < 600; s++)
        if (status_count[s]) printf("status %d: %ld\n", s, status_count[s]);
    for (int c = 0; c < 128; c++)
        if (curl_errors[c]) printf("curl error %d (%s): %ld\n", c, curl_easy_strerror((CURLcode)c), curl_errors[c]);
    printf("requests: %ld in %.3f s, inflight %ld: %.0f requests/s\n", done, elapsed, inflight, (double)done / elapsed);

    for (long i = 0; i < inflight; i++) { curl_multi_remove_handle(multi, handles[i]); curl_easy_cleanup(handles[i]); }
    free(handles);
    curl_multi_cleanup(multi);
    curl_slist_free_all(headers);
    free(token);
    curl_global_cleanup();
    return (errors == 0 && done == total) ? 0 : 1;
}
