/*
 * The host-list parser gp-run and gp-check share (cmd/common/host_list.h):
 * which source wins, what a file and GASNET_SSH_SERVERS may hold, and that
 * every error names the source and the entry that is wrong.
 */
#include "common/host_list.h"

#include <stdlib.h>
#include <unistd.h>

#include "../harness/test.h"

static char file_path[64];

/* A file holding text (the test removes it when it passes). */
static const char *write_file(const char *text)
{
    snprintf(file_path, sizeof file_path, "/tmp/gp-test-hosts.%ld", (long)getpid());
    FILE *file = fopen(file_path, "w");
    CHECK(file != NULL);
    CHECK(fputs(text, file) >= 0);
    CHECK(fclose(file) == 0);
    return file_path;
}

static void remove_file(void)
{
    if (file_path[0] != '\0')
        unlink(file_path);
}

static void no_variables(void)
{
    unsetenv("GASNET_SSH_NODEFILE");
    unsetenv("GASNET_SSH_SERVERS");
}

static void test_servers_commas_and_spaces(void)
{
    no_variables();
    setenv("GASNET_SSH_SERVERS", " alpha,beta  user@gamma.example.org,\t[fe80::1%eth0] ", 1);
    struct host_list list;
    char why[600] = "";
    CHECK_EQ(host_list_load(&list, NULL, why, sizeof why), 0);
    CHECK_STR_EQ(list.origin, "GASNET_SSH_SERVERS");
    CHECK_EQ(list.count, 4);
    CHECK_STR_EQ(list.names[0], "alpha");
    CHECK_STR_EQ(list.names[1], "beta");
    CHECK_STR_EQ(list.names[2], "user@gamma.example.org");
    CHECK_STR_EQ(list.names[3], "[fe80::1%eth0]");
    host_list_free(&list);
    CHECK_EQ(list.count, 0);
}

static void test_file_comments_blank_lines_and_repeats(void)
{
    no_variables();
    const char *path = write_file("# the job's hosts\n\n  node1  \nnode2 # spare\r\nnode1\n\t\n");
    struct host_list list;
    char why[600] = "";
    CHECK_EQ(host_list_load(&list, path, why, sizeof why), 0);
    CHECK_STR_EQ(list.origin, "--hostfile");
    CHECK_STR_CONTAINS(list.source, path);
    CHECK_EQ(list.count, 3);          /* gp-run keeps a repeat: the host gets two blocks */
    CHECK_STR_EQ(list.names[0], "node1");
    CHECK_STR_EQ(list.names[1], "node2");
    CHECK_STR_EQ(list.names[2], "node1");
    host_list_drop_repeats(&list);    /* gp-check checks each host once */
    CHECK_EQ(list.count, 2);
    CHECK_STR_EQ(list.names[0], "node1");
    CHECK_STR_EQ(list.names[1], "node2");
    host_list_free(&list);
    remove_file();
}

/* --hostfile beats GASNET_SSH_NODEFILE, which beats GASNET_SSH_SERVERS; empty is unset. */
static void test_which_source_wins(void)
{
    no_variables();
    struct host_list list;
    char why[600] = "";
    CHECK_EQ(host_list_load(&list, NULL, why, sizeof why), 0);
    CHECK(list.origin == NULL);
    CHECK_EQ(list.count, 0);

    setenv("GASNET_SSH_SERVERS", "fromservers", 1);
    setenv("GASNET_SSH_NODEFILE", "", 1);
    CHECK_EQ(host_list_load(&list, NULL, why, sizeof why), 0);
    CHECK_STR_EQ(list.names[0], "fromservers");
    host_list_free(&list);

    setenv("GASNET_SSH_NODEFILE", write_file("fromnodefile\n"), 1);
    CHECK_EQ(host_list_load(&list, NULL, why, sizeof why), 0);
    CHECK_STR_EQ(list.origin, "GASNET_SSH_NODEFILE");
    CHECK_EQ(list.count, 1);
    CHECK_STR_EQ(list.names[0], "fromnodefile");
    host_list_free(&list);

    setenv("GASNET_SSH_NODEFILE", "/nonexistent/nodefile", 1);
    CHECK_EQ(host_list_load(&list, write_file("fromhostfile\n"), why, sizeof why), 0);
    CHECK_STR_EQ(list.origin, "--hostfile");
    CHECK_STR_EQ(list.names[0], "fromhostfile");
    host_list_free(&list);
    remove_file();
}

static void test_bad_server_names_the_entry(void)
{
    no_variables();
    setenv("GASNET_SSH_SERVERS", "good1, bad;rm good2", 1);
    struct host_list list;
    char why[600] = "";
    CHECK_EQ(host_list_load(&list, NULL, why, sizeof why), -1);
    CHECK_STR_EQ(why, "GASNET_SSH_SERVERS='good1, bad;rm good2': 'bad;rm' is not a host name "
                 "(names separated by commas or spaces)");
    CHECK_EQ(list.count, 0);          /* nothing half-read is left */
    CHECK(list.names == NULL);
}

static void test_bad_line_names_file_line_and_entry(void)
{
    no_variables();
    const char *path = write_file("node1\nnode2 node3\nnode4\n");
    setenv("GASNET_SSH_NODEFILE", path, 1);
    struct host_list list;
    char why[600] = "", expected[700];
    CHECK_EQ(host_list_load(&list, NULL, why, sizeof why), -1);
    snprintf(expected, sizeof expected, "GASNET_SSH_NODEFILE=%s, line 2: 'node2 node3' is not a "
             "host name (one host name per line; '#' starts a comment)", path);
    CHECK_STR_EQ(why, expected);

    write_file("node1\n$(reboot)\n");
    CHECK_EQ(host_list_load(&list, NULL, why, sizeof why), -1);
    CHECK_STR_CONTAINS(why, ", line 2: '$(reboot)' is not a host name");
    remove_file();
}

static void test_unreadable_and_empty_sources(void)
{
    no_variables();
    struct host_list list;
    char why[600] = "";
    CHECK_EQ(host_list_load(&list, "/nonexistent/hosts", why, sizeof why), -1);
    CHECK_STR_EQ(why, "--hostfile /nonexistent/hosts: No such file or directory");

    const char *path = write_file("# nobody\n\n");
    CHECK_EQ(host_list_load(&list, path, why, sizeof why), -1);
    CHECK_STR_CONTAINS(why, path);
    CHECK_STR_CONTAINS(why, " names no host");

    setenv("GASNET_SSH_SERVERS", " , ,", 1);
    CHECK_EQ(host_list_load(&list, NULL, why, sizeof why), -1);
    CHECK_STR_EQ(why, "GASNET_SSH_SERVERS names no host");
    remove_file();
}

/* A line longer than any fixed buffer is one entry, judged whole. */
static void test_long_line_is_one_entry(void)
{
    no_variables();
    size_t len = 5000;
    char *text = malloc(len + 2);
    CHECK(text != NULL);
    memset(text, 'h', len);
    text[len] = '\n';
    text[len + 1] = '\0';
    struct host_list list;
    char why[600] = "";
    CHECK_EQ(host_list_load(&list, write_file(text), why, sizeof why), 0);
    CHECK_EQ(list.count, 1);
    CHECK_EQ(strlen(list.names[0]), len);
    host_list_free(&list);
    free(text);
    remove_file();
}

static const struct gp_test tests[] = {
    { "servers_commas_and_spaces", test_servers_commas_and_spaces, 0 },
    { "file_comments_blank_lines_and_repeats", test_file_comments_blank_lines_and_repeats, 0 },
    { "which_source_wins", test_which_source_wins, 0 },
    { "bad_server_names_the_entry", test_bad_server_names_the_entry, 0 },
    { "bad_line_names_file_line_and_entry", test_bad_line_names_file_line_and_entry, 0 },
    { "unreadable_and_empty_sources", test_unreadable_and_empty_sources, 0 },
    { "long_line_is_one_entry", test_long_line_is_one_entry, 0 },
    GP_TEST_END
};

int main(int argc, char **argv)
{
    return gp_test_main(argc, argv, "host_list", tests);
}
