// Threads and CPUs: the request being handled on this thread, a thread's name and nice value,
// and how many CPUs the process may run on (declared in include/CMicroHTTPD.h). Linux only, like
// the service: it uses sched_getaffinity, gettid and setpriority's per-thread meaning on Linux.
#if defined(__linux__)

#define _GNU_SOURCE
#include "CMicroHTTPD.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

// MARK: - The request being handled on this thread

static _Thread_local struct MHD_Connection *currentConnection;

void CMicroHTTPD_setCurrentConnection(struct MHD_Connection *connection) {
    currentConnection = connection;
}

struct MHD_Connection *CMicroHTTPD_currentConnection(void) {
    return currentConnection;
}

static _Thread_local struct CMicroHTTPD_ThreadSlot threadSlot;

struct CMicroHTTPD_ThreadSlot *CMicroHTTPD_threadSlot(void) {
    return &threadSlot;
}

// MARK: - Names, priorities and CPUs

void CMicroHTTPD_nameThread(const char *name) {
    pthread_setname_np(pthread_self(), name);
}

int CMicroHTTPD_usableCores(void) {
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (sched_getaffinity(0, sizeof mask, &mask) == 0) {
        int count = CPU_COUNT(&mask);
        if (count > 0) {
            return count;
        }
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}

int CMicroHTTPD_lowerThreadPriority(int niceness) {
    // On Linux PRIO_PROCESS with a thread id sets that thread's nice value alone (setpriority(2),
    // NOTES); POSIX would apply it to the whole process.
    return setpriority(PRIO_PROCESS, (id_t)gettid(), niceness);
}

#endif  // __linux__
