#!/usr/bin/env bash
# The floor under a host call (issue 25): what the process boundary and the
# two appended rows cost on this machine with no JSON, no Scheme and no
# checks. Two processes ping-pong a 200-byte call and a 900-byte reply over a
# Unix stream socket pair, both spinning (MSG_DONTWAIT) as tusk's two sides
# do. With rows, the answering side first appends a 400-byte trajectory row
# under flock (with the fstat tusk's trajectory writer makes) and a
# 1,200-byte effect row, the system calls tusk's host makes per call.
#
#   bench/floor.sh [ROUND_TRIPS]     (default 100000; needs a C compiler, cc)
#
# Prints round trips per second without and with the rows: no host call can
# be faster than the second figure, whatever tusk's own code costs.
set -euo pipefail

N=${1:-100000}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cat > "$WORK/floor.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Reads exactly n bytes, spinning. */
static void take(int fd, char *buf, int n) {
    int got = 0;
    while (got < n) {
        int r = recv(fd, buf + got, n - got, MSG_DONTWAIT);
        if (r > 0) got += r;
        else if (r == 0) exit(0);
    }
}

int main(int argc, char **argv) {
    int n = atoi(argv[1]), rows = atoi(argv[2]);
    const char *dir = argv[3];
    char call[200], reply[900], buf[4096], step[400], effect[1200], path[4096];
    memset(call, 'c', sizeof call);
    memset(reply, 'r', sizeof reply);
    memset(step, 's', sizeof step);
    step[sizeof step - 1] = '\n';
    memset(effect, 'e', sizeof effect);
    effect[sizeof effect - 1] = '\n';
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 1;
    if (fork() == 0) {
        close(sv[0]);
        for (int i = 0; i < n; i++) {
            send(sv[1], call, sizeof call, 0);
            take(sv[1], buf, sizeof reply);
        }
        exit(0);
    }
    close(sv[1]);
    snprintf(path, sizeof path, "%s/trajectory.jsonl", dir);
    int traj = open(path, O_WRONLY | O_CREAT | O_APPEND | O_TRUNC, 0644);
    snprintf(path, sizeof path, "%s/effects.jsonl", dir);
    int eff = open(path, O_WRONLY | O_CREAT | O_APPEND | O_TRUNC, 0644);
    if (traj < 0 || eff < 0) return 1;
    double t = now();
    for (int i = 0; i < n; i++) {
        take(sv[0], buf, sizeof call);
        if (rows) {
            struct stat st;
            if (flock(traj, LOCK_EX) || fstat(traj, &st)
                || write(traj, step, sizeof step) != sizeof step
                || flock(traj, LOCK_UN)
                || write(eff, effect, sizeof effect) != sizeof effect)
                return 1;
        }
        send(sv[0], reply, sizeof reply, 0);
    }
    double dt = now() - t;
    printf("%-38s %d round trips in %.3f s = %.0f/s (%.2f us each)\n",
           rows ? "with the two rows appended:" : "the process boundary alone:",
           n, dt, n / dt, dt * 1e6 / n);
    return 0;
}
C
cc -O2 -o "$WORK/floor" "$WORK/floor.c"
echo "uptime: $(uptime)"
"$WORK/floor" "$N" 0 "$WORK"
"$WORK/floor" "$N" 1 "$WORK"
