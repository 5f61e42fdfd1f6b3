// Slow and idle connections: the list of a daemon's open connections with how long each has
// waited for a request's head, and the sweep that closes those past the deadline or sheds the
// longest-waiting near the connection limit (declared in include/CMicroHTTPD.h and internal.h;
// driven by ConnectionGuard.swift).
#if defined(__linux__)

#include "CMicroHTTPD.h"
#include "internal.h"

// linux/tcp.h, not netinet/tcp.h: glibc's `struct tcp_info` stops before `tcpi_bytes_received`.
#include <linux/tcp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

/// One open connection. `waitingSince` and `answered` are written by the connection's MHD thread
/// (a request's head arrived: 0; its answer is done: now, and answered) and read by the sweeping
/// thread, hence atomic; the list links, `fd` and the sweep's own fields are only touched under
/// the guard's mutex.
struct GuardedConnection {
    struct GuardedConnection *previous;
    struct GuardedConnection *next;
    int fd;
    /// CLOCK_MONOTONIC nanoseconds since which the connection waits for a request's head; 0 while
    /// a request is being handled; -1 once the guard has closed it.
    _Atomic int64_t waitingSince;
    /// At least one request was answered: a wait is then a keep-alive connection's, idle until a
    /// byte of the next request arrives. The first wait is always a request arriving.
    _Atomic bool answered;
    /// The sweep's view of the current wait: the `waitingSince` it belongs to, the bytes the
    /// kernel had received when the sweep first saw it, and since when a request is arriving on
    /// it (0 while it is idle).
    int64_t sweptSince;
    uint64_t bytesAtWait;
    int64_t arrivingSince;
};

int64_t CMicroHTTPD_monotonicNanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
}

struct CMicroHTTPD_Guard *CMicroHTTPD_guardCreate(unsigned int maxArguments, size_t memoryLimit) {
    struct CMicroHTTPD_Guard *guard = calloc(1, sizeof *guard);
    if (guard == NULL) {
        return NULL;
    }
    guard->maxArguments = maxArguments;
    guard->memoryLimit = memoryLimit;
    pthread_mutex_init(&guard->mutex, NULL);
    return guard;
}

void CMicroHTTPD_guardDestroy(struct CMicroHTTPD_Guard *guard) {
    if (guard == NULL) {
        return;
    }
    // Records still listed (none once MHD stopped cleanly) are freed with the guard.
    struct GuardedConnection *record = guard->head;
    while (record != NULL) {
        struct GuardedConnection *next = record->next;
        free(record);
        record = next;
    }
    pthread_mutex_destroy(&guard->mutex);
    free(guard);
}
void CMicroHTTPD_notifyConnection(
    void *cls, struct MHD_Connection *connection, void **socketContext, enum MHD_ConnectionNotificationCode code
) {
    struct CMicroHTTPD_Guard *guard = (struct CMicroHTTPD_Guard *)cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct GuardedConnection *record = calloc(1, sizeof *record);
        if (record == NULL || info == NULL) {
            // Unwatched: the connection still has MHD's idle timeout.
            free(record);
            *socketContext = NULL;
            return;
        }
        record->fd = info->connect_fd;
        atomic_store_explicit(&record->waitingSince, CMicroHTTPD_monotonicNanoseconds(), memory_order_relaxed);
        pthread_mutex_lock(&guard->mutex);
        record->next = guard->head;
        if (guard->head != NULL) {
            guard->head->previous = record;
        }
        guard->head = record;
        guard->count++;
        pthread_mutex_unlock(&guard->mutex);
        *socketContext = record;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        struct GuardedConnection *record = (struct GuardedConnection *)*socketContext;
        if (record == NULL) {
            return;
        }
        pthread_mutex_lock(&guard->mutex);
        if (record->previous != NULL) {
            record->previous->next = record->next;
        } else {
            guard->head = record->next;
        }
        if (record->next != NULL) {
            record->next->previous = record->previous;
        }
        guard->count--;
        pthread_mutex_unlock(&guard->mutex);
        *socketContext = NULL;
        free(record);
    }
}

static struct GuardedConnection *guardedConnection(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : (struct GuardedConnection *)info->socket_context;
}

void CMicroHTTPD_guardHeadReceived(struct MHD_Connection *connection) {
    struct GuardedConnection *record = guardedConnection(connection);
    if (record != NULL) {
        atomic_store_explicit(&record->waitingSince, 0, memory_order_relaxed);
    }
}

void CMicroHTTPD_guardRequestDone(struct MHD_Connection *connection) {
    struct GuardedConnection *record = guardedConnection(connection);
    if (record != NULL) {
        atomic_store_explicit(&record->answered, true, memory_order_relaxed);
        atomic_store_explicit(&record->waitingSince, CMicroHTTPD_monotonicNanoseconds(), memory_order_relaxed);
    }
}

/// The payload bytes the kernel has received on `fd` (TCP_INFO, Linux 4.1+); 0 when unknown.
static int bytesReceived(int fd, uint64_t *bytes) {
    struct tcp_info info;
    socklen_t length = sizeof info;
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0
        || length < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof info.tcpi_bytes_received) {
        return 0;
    }
    *bytes = info.tcpi_bytes_received;
    return 1;
}

/// Updates the sweep's view of `record`'s wait (begun at `since`) and says whether it is past its
/// deadline: `headerTimeout` from when a request started arriving, `idleTimeout` from the
/// previous answer for a keep-alive connection on which nothing has arrived.
///
/// libmicrohttpd reads a request's bytes as they come, so they cannot be seen on the socket; the
/// kernel's count of received bytes can. It is read from the sweeping thread only (the request
/// path pays nothing): a wait's count is taken when a sweep first sees the wait, and the request
/// is arriving from the first sweep that sees the count grow (within `intervalSeconds`). Bytes
/// that came before that first look (a pipelined request, or a head started at once) count as
/// idle, so such a head gets `idleTimeout`, not `headerTimeout`. Where the count cannot be read,
/// the wait is a request arriving: the stricter deadline.
static int pastDeadline(
    struct GuardedConnection *record, int64_t since, int64_t now, int64_t headerTimeout, int64_t idleTimeout
) {
    if (since != record->sweptSince) {
        record->sweptSince = since;
        record->arrivingSince = since;
        if (atomic_load_explicit(&record->answered, memory_order_relaxed) && bytesReceived(record->fd, &record->bytesAtWait)) {
            record->arrivingSince = 0;
        }
    } else if (record->arrivingSince == 0) {
        uint64_t bytes = 0;
        if (!bytesReceived(record->fd, &bytes) || bytes != record->bytesAtWait) {
            record->arrivingSince = now;
        }
    }
    return record->arrivingSince != 0 ? now - record->arrivingSince > headerTimeout : now - since > idleTimeout;
}

unsigned int CMicroHTTPD_guardBusy(struct CMicroHTTPD_Guard *guard) {
    unsigned int busy = 0;
    pthread_mutex_lock(&guard->mutex);
    for (struct GuardedConnection *record = guard->head; record != NULL; record = record->next) {
        busy += atomic_load_explicit(&record->waitingSince, memory_order_relaxed) == 0;
    }
    pthread_mutex_unlock(&guard->mutex);
    return busy;
}

/// Claims `record` for closing (so that a later sweep does not count it again) and closes it,
/// unless its MHD thread has moved it on meanwhile (a head arrived, or an answer was finished).
static int closeWaiting(struct GuardedConnection *record, int64_t since) {
    int64_t expected = since;
    if (!atomic_compare_exchange_strong_explicit(
            &record->waitingSince, &expected, -1, memory_order_relaxed, memory_order_relaxed)) {
        return 0;
    }
    shutdown(record->fd, SHUT_RDWR);
    return 1;
}

struct Candidate {
    struct GuardedConnection *record;
    int64_t since;
};

static int olderFirst(const void *left, const void *right) {
    int64_t a = ((const struct Candidate *)left)->since;
    int64_t b = ((const struct Candidate *)right)->since;
    return (a > b) - (a < b);
}

struct CMicroHTTPD_SweepResult CMicroHTTPD_guardSweep(
    struct CMicroHTTPD_Guard *guard,
    int64_t now,
    int64_t headerTimeoutNanoseconds,
    int64_t idleTimeoutNanoseconds,
    int64_t shedAfterNanoseconds,
    unsigned int shedAbove,
    unsigned int shedTo
) {
    struct CMicroHTTPD_SweepResult result = { 0, 0, 0, 0, 0, 0 };
    result.argumentsOverflow = (unsigned int)atomic_exchange_explicit(&guard->overflowClosed, 0, memory_order_relaxed);
    pthread_mutex_lock(&guard->mutex);
    result.open = guard->count;
    struct Candidate *candidates = NULL;
    size_t candidateCount = 0;
    if (guard->count > shedAbove) {
        candidates = malloc(sizeof *candidates * guard->count);
    }
    unsigned int closing = 0;
    for (struct GuardedConnection *record = guard->head; record != NULL; record = record->next) {
        int64_t since = atomic_load_explicit(&record->waitingSince, memory_order_relaxed);
        if (since < 0) {
            closing++;  // closed by an earlier sweep; MHD has not cleaned it up yet
            continue;
        }
        if (since == 0) {
            continue;
        }
        result.waiting++;
        if (pastDeadline(record, since, now, headerTimeoutNanoseconds, idleTimeoutNanoseconds)) {
            if (closeWaiting(record, since)) {
                if (record->arrivingSince != 0) {
                    result.timedOut++;
                } else {
                    result.idle++;
                }
                closing++;
            }
        } else if (candidates != NULL && now - since >= shedAfterNanoseconds) {
            candidates[candidateCount].record = record;
            candidates[candidateCount].since = since;
            candidateCount++;
        }
    }
    if (candidates != NULL) {
        qsort(candidates, candidateCount, sizeof *candidates, olderFirst);
        unsigned int remaining = guard->count - closing;
        for (size_t i = 0; i < candidateCount && remaining > shedTo; i++) {
            if (closeWaiting(candidates[i].record, candidates[i].since)) {
                result.shed++;
                remaining--;
            }
        }
        free(candidates);
    }
    pthread_mutex_unlock(&guard->mutex);
    return result;
}

#endif  // __linux__
