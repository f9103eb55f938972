/*
 * Makes every fsync and fdatasync of the process it is preloaded into take SYNC_DELAY_US microseconds longer
 * (1000 unless set): the cost of a durable write on a disk with a write cache that honours flushes, on a machine
 * whose own disk syncs for nearly nothing. Built by the benchmarks with cc, loaded with LD_PRELOAD.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

static useconds_t delay(void) {
    const char *value = getenv("SYNC_DELAY_US");
    return value ? (useconds_t) atol(value) : 1000;
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int)) dlsym(RTLD_NEXT, "fsync");
    usleep(delay());
    return real(fd);
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int)) dlsym(RTLD_NEXT, "fdatasync");
    usleep(delay());
    return real(fd);
}
