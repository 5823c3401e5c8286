#ifndef APNSD_CCURL_SHIM_H
#define APNSD_CCURL_SHIM_H
#include <curl/curl.h>
#ifdef __linux__
// timerfd: the HTTP2Transport event loop passes one to curl_multi_poll as an extra fd, to wake for the
// throttle's next token with sub-millisecond precision (curl_multi_poll's own timeout is whole ms).
#include <sys/timerfd.h>
#endif

// curl_easy_setopt / curl_multi_setopt / curl_easy_getinfo are variadic: Swift cannot call them.
// One typed wrapper per argument kind, returning libcurl's result code.
static inline CURLcode apnsd_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode apnsd_easy_setopt_ptr(CURL *h, CURLoption o, const void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode apnsd_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode apnsd_easy_setopt_write_cb(CURL *h, CURLoption o, size_t (*cb)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, o, cb); }
static inline CURLcode apnsd_easy_setopt_prereq_cb(CURL *h, CURLoption o, int (*cb)(void *, char *, char *, int, int)) { return curl_easy_setopt(h, o, cb); }
static inline CURLcode apnsd_easy_setopt_sockopt_cb(CURL *h, CURLoption o, int (*cb)(void *, curl_socket_t, curlsocktype)) { return curl_easy_setopt(h, o, cb); }
static inline CURLcode apnsd_easy_setopt_closesocket_cb(CURL *h, CURLoption o, int (*cb)(void *, curl_socket_t)) { return curl_easy_setopt(h, o, cb); }
static inline CURLMcode apnsd_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline CURLcode apnsd_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode apnsd_easy_getinfo_ptr(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
#endif
