/*
 * baseline: the fastest answer libmicrohttpd can give, measured beside the service.
 *
 * Usage: baseline <port> <status> <body-file> [content-type] ["Name: value"...]
 *
 * Every request, whatever its method or path, gets one shared response built once at start:
 * the given status, the bytes of <body-file> (which may be empty, e.g. for a 304), the given
 * Content-Type (left out when empty) and the given extra header lines, so the header block has
 * the same shape as the service's. The daemon is configured like the service (epoll internal
 * thread pool sized to the cores it may run on, connection timeout 15 s) and answers on the second
 * access-handler call: answering on the first makes MHD close the connection (no keep-alive).
 *
 * With BASELINE_PER_REQUEST=1 in the environment it instead builds a fresh response for every
 * request with the same body and headers plus a generated X-Request-ID: what a naive MHD server
 * pays when every answer must carry a per-request header (the service reuses response objects
 * instead and swaps that one header).
 *
 * Binds 127.0.0.1 only. Port 0 picks a free port. Once listening it prints one line
 * "baseline listening port=<N>" on stdout. SIGINT or SIGTERM stops it cleanly (exit 0).
 *
 * Build: cc -O2 -Wall -Wextra -o baseline baseline.c $(pkg-config --cflags --libs libmicrohttpd)
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <sched.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <microhttpd.h>

/* What every request gets. MHD passes one cls pointer to the handler, so status and response
 * travel together. The response is shared: MHD reference-counts it across connections. */
struct shared_answer {
    unsigned int status;
    struct MHD_Response *response;
    /* Per-request mode: what each fresh response is built from. */
    int per_request;
    const char *body;
    size_t body_len;
    const char *content_type;
    char **header_lines;
    int header_count;
};

static unsigned long request_counter;

/* *con_cls points here once a request's headers have been seen. */
static int request_started;

/* Reads the whole file into a malloc'd buffer (never NULL on success, even when empty). */
static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "baseline: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    int failed = (buf == NULL);
    while (!failed) {
        if (len == cap) {
            char *bigger = realloc(buf, cap * 2);
            if (bigger == NULL) {
                failed = 1;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) {
            failed = ferror(f) != 0;
            break;
        }
    }
    fclose(f);
    if (failed) {
        fprintf(stderr, "baseline: cannot read %s\n", path);
        free(buf);
        return NULL;
    }
    *size = len;
    return buf;
}

/* Parses a decimal integer in [min, max]. Returns 0 on success. */
static int parse_long(const char *s, long min, long max, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min || v > max) {
        return -1;
    }
    *out = v;
    return 0;
}

/* Adds one "Name: value" line to the response. Returns 0 on success. */
static int add_header_line(struct MHD_Response *response, const char *line)
{
    const char *colon = strchr(line, ':');
    if (colon == NULL || colon == line) {
        fprintf(stderr, "baseline: header \"%s\" is not \"Name: value\"\n", line);
        return -1;
    }
    size_t name_len = (size_t)(colon - line);
    char *name = strndup(line, name_len);
    if (name == NULL) {
        return -1;
    }
    const char *value = colon + 1;
    while (*value == ' ' || *value == '\t') {
        value++;
    }
    int ok = MHD_add_response_header(response, name, value) == MHD_YES;
    if (!ok) {
        fprintf(stderr, "baseline: MHD refused header \"%s\"\n", line);
    }
    free(name);
    return ok ? 0 : -1;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls)
{
    (void)url;
    (void)method;
    (void)version;
    (void)upload_data;
    const struct shared_answer *shared = cls;

    /* First call: headers only. Queuing now would lose keep-alive, so answer on a later call. */
    if (*con_cls == NULL) {
        *con_cls = &request_started;
        return MHD_YES;
    }
    /* Request body chunks, if any: discard them. */
    if (*upload_data_size != 0) {
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (!shared->per_request) {
        return MHD_queue_response(connection, shared->status, shared->response);
    }
    struct MHD_Response *fresh =
        MHD_create_response_from_buffer(shared->body_len, (void *)shared->body, MHD_RESPMEM_PERSISTENT);
    if (fresh == NULL) {
        return MHD_NO;
    }
    if (shared->content_type != NULL) {
        MHD_add_response_header(fresh, MHD_HTTP_HEADER_CONTENT_TYPE, shared->content_type);
    }
    for (int i = 0; i < shared->header_count; i++) {
        add_header_line(fresh, shared->header_lines[i]);
    }
    char id[17];
    snprintf(id, sizeof id, "%016lx",
             __atomic_add_fetch(&request_counter, 0x9E3779B97F4A7C15UL, __ATOMIC_RELAXED));
    MHD_add_response_header(fresh, "X-Request-ID", id);
    enum MHD_Result queued = MHD_queue_response(connection, shared->status, fresh);
    MHD_destroy_response(fresh);
    return queued;
}

/* Never runs (the signals stay blocked and sigwait takes them); it only replaces SIG_IGN. */
static void ignore_signal(int sig)
{
    (void)sig;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: baseline <port> <status> <body-file> [content-type] [\"Name: value\"...]\n");
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        usage();
        return 2;
    }
    long port, status;
    if (parse_long(argv[1], 0, 65535, &port) != 0) {
        fprintf(stderr, "baseline: bad port \"%s\"\n", argv[1]);
        return 2;
    }
    if (parse_long(argv[2], 100, 599, &status) != 0) {
        fprintf(stderr, "baseline: bad status \"%s\"\n", argv[2]);
        return 2;
    }

    size_t body_len = 0;
    char *body = read_file(argv[3], &body_len);
    if (body == NULL) {
        return 1;
    }
    /* PERSISTENT: MHD neither copies nor frees the bytes; they live until exit. */
    struct MHD_Response *response =
        MHD_create_response_from_buffer(body_len, body, MHD_RESPMEM_PERSISTENT);
    if (response == NULL) {
        fprintf(stderr, "baseline: cannot create response\n");
        free(body);
        return 1;
    }
    /* All headers go on before the response is shared: never add to a response in use. */
    if (argc > 4 && argv[4][0] != '\0' &&
        MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, argv[4]) != MHD_YES) {
        fprintf(stderr, "baseline: MHD refused content type \"%s\"\n", argv[4]);
        return 1;
    }
    for (int i = 5; i < argc; i++) {
        if (add_header_line(response, argv[i]) != 0) {
            return 1;
        }
    }
    const char *per_request = getenv("BASELINE_PER_REQUEST");
    struct shared_answer shared = {
        (unsigned int)status, response, per_request != NULL && strcmp(per_request, "1") == 0, body, body_len,
        (argc > 4 && argv[4][0] != '\0') ? argv[4] : NULL, argv + 5, argc > 5 ? argc - 5 : 0,
    };

    /* Block the stop signals before MHD starts its threads, so they inherit the mask and only
     * sigwait below sees them. A handler is installed too: a shell starts background jobs with
     * SIGINT ignored, and an ignored signal is discarded before sigwait can take it. */
    struct sigaction on_stop;
    memset(&on_stop, 0, sizeof on_stop);
    on_stop.sa_handler = ignore_signal;
    sigemptyset(&on_stop.sa_mask);
    sigaction(SIGINT, &on_stop, NULL);
    sigaction(SIGTERM, &on_stop, NULL);
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    if (pthread_sigmask(SIG_BLOCK, &stop_signals, NULL) != 0) {
        fprintf(stderr, "baseline: cannot block signals\n");
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);

    /* Like the service: one thread per core this process may run on (its affinity mask), so a
     * server pinned with taskset gets as many threads as it has cores. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) > 0) {
        cores = CPU_COUNT(&allowed);
    }
    if (cores < 1) {
        cores = 1;
    }
    /* One thread is MHD's internal thread itself: a pool of 1 only makes MHD log a warning. */
    struct MHD_OptionItem pool[] = {
        {MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)cores, NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    if (cores == 1) {
        pool[0].option = MHD_OPTION_END;
    }
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG, (uint16_t)port, NULL,
        NULL, &answer, &shared,
        MHD_OPTION_ARRAY, pool,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)15,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        MHD_OPTION_END);
    if (daemon == NULL) {
        fprintf(stderr, "baseline: cannot start libmicrohttpd on 127.0.0.1:%ld\n", port);
        return 1;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    unsigned int bound = (info != NULL) ? info->port : (unsigned int)port;
    printf("baseline listening port=%u threads=%ld status=%ld body_bytes=%zu\n", bound, cores,
           status, body_len);
    fflush(stdout);

    int sig = 0;
    while (sigwait(&stop_signals, &sig) != 0) {
    }
    MHD_stop_daemon(daemon);
    MHD_destroy_response(response);
    free(body);
    return 0;
}
