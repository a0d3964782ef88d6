/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procwatch-test-cgroup.h"
#include "procwatch-test-util.h"

/* How the tests and their subprocesses find the run's root. */
#define ROOT_ENV "PROCWATCH_TEST_CGROUP_ROOT"
#define ROOT_RELATIVE_ENV "PROCWATCH_TEST_CGROUP_ROOT_RELATIVE"
#define MOUNT_POINT_ENV "PROCWATCH_TEST_CGROUP_MOUNT_POINT"

static char *mount_point;
static char *test_root;          /* absolute */
static char *test_root_relative; /* as /proc/<pid>/cgroup writes it */
static char *skip_reason;
static GPid tests_pid;

/* The first cgroup2 mount: its mount point and the cgroup at its root. */
static gboolean
find_cgroup2 (char **mount_point,
              char **root)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  guint i;

  if (!g_file_get_contents ("/proc/self/mountinfo", &text, NULL, NULL))
    return FALSE;

  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i] != NULL; i++)
    {
      const char *separator = strstr (lines[i], " - ");
      g_auto(GStrv) fields = NULL;

      if (separator == NULL || !g_str_has_prefix (separator + 3, "cgroup2 "))
        continue;

      fields = g_strsplit (lines[i], " ", 6);
      if (g_strv_length (fields) < 6)
        continue;

      /* Spaces and the like are written as octal escapes. */
      *root = g_strcompress (fields[3]);
      *mount_point = g_strcompress (fields[4]);
      return TRUE;
    }

  return FALSE;
}

static int
remove_entry (const char        *path,
              const struct stat *st,
              int                flag,
              struct FTW        *ftw)
{
  if (flag == FTW_DP)
    rmdir (path);
  return 0;
}

/* A tree a test froze is thawed first: whatever else the clean-up does,
 * nothing is left frozen. */
static int
thaw_entry (const char        *path,
            const struct stat *st,
            int                flag,
            struct FTW        *ftw)
{
  g_autofree char *freeze = g_build_filename (path, "cgroup.freeze", NULL);

  if (flag == FTW_D)
    g_file_set_contents_full (freeze, "0", -1, G_FILE_SET_CONTENTS_NONE, 0644, NULL);
  return 0;
}

static gboolean
is_populated (int events_fd)
{
  char buffer[256];
  gssize length = pread (events_fd, buffer, sizeof buffer - 1, 0);

  if (length <= 0)
    return FALSE;
  buffer[length] = '\0';
  return strstr (buffer, "populated 1") != NULL;
}

static void
clean_up (void)
{
  g_autofree char *kill_path = g_build_filename (test_root, "cgroup.kill", NULL);
  g_autofree char *events_path = g_build_filename (test_root, "cgroup.events", NULL);
  int fd = open (events_path, O_RDONLY | O_CLOEXEC);

  nftw (test_root, thaw_entry, 16, FTW_PHYS);
  /* In place: g_file_set_contents() would make a temporary file. */
  g_file_set_contents_full (kill_path, "1", -1, G_FILE_SET_CONTENTS_NONE, 0644, NULL);

  /* The kernel empties the cgroups asynchronously: wait for it (bounded). */
  while (fd >= 0 && is_populated (fd))
    {
      struct pollfd pfd = { fd, POLLPRI, 0 };

      if (poll (&pfd, 1, 10000) <= 0)
        break;
    }
  if (fd >= 0)
    close (fd);

  nftw (test_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  if (access (test_root, F_OK) == 0)
    g_printerr ("# could not remove %s\n", test_root);
}

/* meson's timeout and ^C end the tests, not the clean-up. */
static void
on_supervisor_signal (int signum)
{
  kill (tests_pid, SIGKILL);
}

G_GNUC_NORETURN static void
supervise (void)
{
  struct sigaction action = { .sa_handler = on_supervisor_signal };
  int status;

  sigemptyset (&action.sa_mask);
  sigaction (SIGTERM, &action, NULL);
  sigaction (SIGINT, &action, NULL);
  sigaction (SIGHUP, &action, NULL);

  while (waitpid (tests_pid, &status, 0) < 0)
    g_assert_cmpint (errno, ==, EINTR);
  clean_up ();

  exit (WIFSIGNALED (status) ? 128 + WTERMSIG (status) : WEXITSTATUS (status));
}

void
test_cgroups_set_up (void)
{
  g_autofree char *root = NULL;

  if (g_getenv (ROOT_ENV) != NULL)
    {
      mount_point = g_strdup (g_getenv (MOUNT_POINT_ENV));
      test_root = g_strdup (g_getenv (ROOT_ENV));
      test_root_relative = g_strdup (g_getenv (ROOT_RELATIVE_ENV));
      return;
    }

  if (!find_cgroup2 (&mount_point, &root))
    {
      skip_reason = g_strdup ("cgroup v2 is not mounted here");
      return;
    }

  test_root = g_strdup_printf ("%s/gio-procwatch-test-%d", mount_point, (int) getpid ());
  test_root_relative = g_strdup_printf ("%s%sgio-procwatch-test-%d", root,
                                        g_str_has_suffix (root, "/") ? "" : "/",
                                        (int) getpid ());
  if (mkdir (test_root, 0755) != 0)
    {
      skip_reason = g_strdup_printf ("cannot make a cgroup under %s: %s",
                                     mount_point, g_strerror (errno));
      g_clear_pointer (&test_root, g_free);
      return;
    }

  g_setenv (MOUNT_POINT_ENV, mount_point, TRUE);
  g_setenv (ROOT_ENV, test_root, TRUE);
  g_setenv (ROOT_RELATIVE_ENV, test_root_relative, TRUE);

  /* The supervisor ends the process without returning here. */
  g_clear_pointer (&root, g_free);

  tests_pid = fork ();
  g_assert_cmpint (tests_pid, >=, 0);
  if (tests_pid > 0)
    supervise ();
}

gboolean
test_cgroups_skip (void)
{
  if (skip_reason == NULL)
    return FALSE;

  if (g_strcmp0 (g_getenv ("PROCWATCH_TEST_REQUIRE_CGROUP"), "1") == 0)
    {
      /* Each test that needs them fails, rather than the first ending the run. */
      g_test_set_nonfatal_assertions ();
      g_test_message ("PROCWATCH_TEST_REQUIRE_CGROUP=1, but %s", skip_reason);
      g_test_fail ();
    }
  else
    test_skip_for_system ("%s", skip_reason);

  return TRUE;
}

const char *
test_cgroups_get_mount_point (void)
{
  return mount_point;
}

const char *
test_cgroups_get_root (void)
{
  return test_root_relative;
}

const char *
test_cgroups_get_directory (void)
{
  return test_root;
}

TestCgroup *
test_cgroup_new (const char *name)
{
  TestCgroup *cgroup = g_new0 (TestCgroup, 1);

  g_assert_nonnull (test_root);
  cgroup->absolute = g_build_filename (test_root, name, NULL);
  cgroup->relative = g_strconcat (test_root_relative, "/", name, NULL);
  g_assert_no_errno (mkdir (cgroup->absolute, 0755));

  return cgroup;
}

void
test_cgroup_free (TestCgroup *cgroup)
{
  rmdir (cgroup->absolute);
  g_free (cgroup->absolute);
  g_free (cgroup->relative);
  g_free (cgroup);
}

void
test_cgroup_move (TestCgroup *cgroup,
                  GPid        pid)
{
  g_autofree char *procs = g_build_filename (cgroup->absolute, "cgroup.procs", NULL);
  g_autofree char *text = g_strdup_printf ("%d", (int) pid);
  g_autoptr(GError) error = NULL;

  g_file_set_contents_full (procs, text, -1, G_FILE_SET_CONTENTS_NONE, 0644, &error);
  g_assert_no_error (error);
}
