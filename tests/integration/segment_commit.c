/*
 * Segments as the host sees them (tests/integration/sizing.sh and
 * segment_commit.sh, tests/scale/01-sizing.sh and 05-commit.sh).
 *
 *   segment_commit sizing          each node prints its host and
 *                                  gasnet_getMaxLocalSegmentSize()
 *   segment_commit hold DIR MIB    attach the largest segment; node 0 writes
 *                                  DIR/attached, every node waits for DIR/go1,
 *                                  writes MIB MiB of its own segment (checked),
 *                                  node 0 writes DIR/touched, all wait for
 *                                  DIR/go2 -- the script measures meanwhile
 *   segment_commit bus self|peer   attach the largest segment, node 0 fills
 *                                  /dev/shm (only a small private one: this is
 *                                  run in a mount namespace), then node 1
 *                                  writes its whole segment (self) or node 0
 *                                  puts into node 1's (peer): SIGBUS
 */
#include <errno.h>
#include <fcntl.h>
#include <gasnet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#define CHECK(cond, ...)                                                               \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "segment_commit node %u: check failed: %s: ", gasnet_mynode(), \
                    #cond);                                                            \
            fprintf(stderr, __VA_ARGS__);                                              \
            fprintf(stderr, "\n");                                                     \
            gasnet_exit(3);                                                            \
        }                                                                              \
    } while (0)

static void barrier(void)
{
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK, "barrier");
}

static void write_flag(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    fclose(f);
}

/* Polls until DIR/NAME exists; 60 s at most. */
static void wait_flag(const char *dir, const char *name)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    for (int tries = 0; stat(path, &st) != 0; tries++) {
        CHECK(tries < 60000, "%s did not appear within 60 s", path);
        gasnet_AMPoll();
        usleep(1000);
    }
}

static void attach_largest(void)
{
    uintptr_t size = gasnet_getMaxLocalSegmentSize();
    CHECK(gasnet_attach(NULL, 0, size, 0) == GASNET_OK, "attach of %lu bytes", (unsigned long)size);
}

static int hold(const char *dir, long mib)
{
    gasnet_node_t me = gasnet_mynode();
    attach_largest();
    gasnet_seginfo_t *seg = calloc(gasnet_nodes(), sizeof *seg);
    CHECK(seg != NULL && gasnet_getSegmentInfo(seg, (int)gasnet_nodes()) == GASNET_OK, "seginfo");
    size_t bytes = (size_t)mib << 20;
    CHECK(bytes <= seg[me].size, "%ld MiB do not fit a %lu-byte segment", mib,
          (unsigned long)seg[me].size);
    barrier();
    if (me == 0)
        write_flag(dir, "attached");
    wait_flag(dir, "go1");
    unsigned char *mine = seg[me].addr;
    for (size_t i = 0; i < bytes; i++)
        mine[i] = (unsigned char)(i * 7 + me);
    for (size_t i = 0; i < bytes; i++)
        CHECK(mine[i] == (unsigned char)(i * 7 + me), "byte %zu reads %u", i, mine[i]);
    barrier();
    if (me == 0)
        write_flag(dir, "touched");
    wait_flag(dir, "go2");
    printf("segment_commit: node %u: segment %lu bytes, %ld MiB written and read back\n", me,
           (unsigned long)seg[me].size, mib);
    fflush(stdout);
    free(seg);
    barrier();
    gasnet_exit(0);
    return 0;
}

/* Writes a file into /dev/shm until it is full; refuses a /dev/shm that is
 * not a small private one. */
static void fill_dev_shm(void)
{
    struct statfs fs;
    CHECK(statfs("/dev/shm", &fs) == 0, "statfs /dev/shm");
    unsigned long long total = (unsigned long long)fs.f_blocks * (unsigned long long)fs.f_bsize;
    CHECK(total <= 256ull << 20, "/dev/shm holds %llu bytes: fill only a private one of at most "
          "256 MiB (run under unshare -m with a small tmpfs)", total);
    char path[128];
    snprintf(path, sizeof path, "/dev/shm/segment_commit-fill-%ld", (long)getpid());
    int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
    CHECK(fd >= 0, "cannot create %s: %s", path, strerror(errno));
    static char block[4096];
    memset(block, 0x5a, sizeof block);
    while (write(fd, block, sizeof block) == (ssize_t)sizeof block)
        ;
    CHECK(errno == ENOSPC, "filling %s: %s", path, strerror(errno));
    /* Leave a little for the barriers' pages not yet touched; the segment needs more. */
    struct stat st;
    CHECK(fstat(fd, &st) == 0 && st.st_size > (512 << 10), "fill file too small");
    CHECK(ftruncate(fd, st.st_size - (512 << 10)) == 0, "ftruncate %s", path);
    close(fd);
}

static int bus(const char *how)
{
    gasnet_node_t me = gasnet_mynode();
    CHECK(gasnet_nodes() >= 2, "bus needs 2 nodes");
    attach_largest();
    gasnet_seginfo_t *seg = calloc(gasnet_nodes(), sizeof *seg);
    CHECK(seg != NULL && gasnet_getSegmentInfo(seg, (int)gasnet_nodes()) == GASNET_OK, "seginfo");
    if (me == 0) {
        fill_dev_shm();
        printf("segment_commit: /dev/shm filled; node 1's segment is %lu bytes\n",
               (unsigned long)seg[1].size);
        fflush(stdout);
    }
    barrier();
    if (strcmp(how, "self") == 0 && me == 1) {
        memset(seg[1].addr, 1, seg[1].size);
    } else if (strcmp(how, "peer") == 0 && me == 0) {
        char *src = malloc(seg[1].size);
        CHECK(src != NULL, "malloc");
        memset(src, 2, seg[1].size);
        gasnet_put(1, seg[1].addr, src, seg[1].size);
    }
    /* Not reached by the toucher; the others wait for the launcher to end the job. */
    barrier();
    printf("segment_commit: node %u: no SIGBUS\n", me);
    gasnet_exit(0);
    return 0;
}

int main(int argc, char **argv)
{
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK, "init");
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "sizing") == 0) {
        gasnet_nodeinfo_t *info = calloc(gasnet_nodes(), sizeof *info);
        CHECK(info != NULL && gasnet_getNodeInfo(info, (int)gasnet_nodes()) == GASNET_OK,
              "nodeinfo");
        printf("segment_commit: node %u host %u: max local segment %lu bytes\n", gasnet_mynode(),
               info[gasnet_mynode()].host, (unsigned long)gasnet_getMaxLocalSegmentSize());
        fflush(stdout);
        free(info);
        CHECK(gasnet_attach(NULL, 0, GASNET_PAGESIZE, 0) == GASNET_OK, "attach");
        barrier();
        gasnet_exit(0);
    }
    if (strcmp(mode, "hold") == 0 && argc == 4)
        return hold(argv[2], atol(argv[3]));
    if (strcmp(mode, "bus") == 0 && argc == 3)
        return bus(argv[2]);
    CHECK(0, "usage: segment_commit sizing | hold DIR MIB | bus self|peer");
    return 2;
}
