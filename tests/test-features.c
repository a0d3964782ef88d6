/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * ProcessMonitor:features: what this kernel can tell, on every backend
 * variant (tests/meson.build runs this program once per variant, naming in
 * PROCWATCH_TEST_EXPECT_FEATURES the flags that variant must show on a
 * kernel that has them all, and .ci/kernel-lane naming in
 * PROCWATCH_TEST_KERNEL_FEATURES what the pidfds of the kernel it boots
 * give), each flag checked against what the monitor and the kernel then
 * really do, and the decisions no seccomp filter can reach (a kernel that
 * lists its supported bits, one that does not echo PIDFD_INFO_COREDUMP,
 * other releases) through the library's test seam.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procwatch-linux-private.h"
#include "procwatch-test-seam-private.h"
#include "procwatch-test-util.h"

static ProcwatchFeatures
parse_features (const char *text)
{
  g_autoptr(GFlagsClass) flags_class = g_type_class_ref (PROCWATCH_TYPE_FEATURES);
  g_auto(GStrv) nicks = g_strsplit (text, ",", -1);
  ProcwatchFeatures features = PROCWATCH_FEATURES_NONE;
  gsize i;

  for (i = 0; nicks[i] != NULL; i++)
    {
      GFlagsValue *value;

      if (nicks[i][0] == '\0')
        continue;
      value = g_flags_get_value_by_nick (flags_class, nicks[i]);
      g_assert_nonnull (value);
      features |= value->value;
    }

  return features;
}

static char *
features_to_string (ProcwatchFeatures features)
{
  return g_flags_to_string (PROCWATCH_TYPE_FEATURES, features);
}

/* The expectations in tests/meson.build are this machine's kernel's. */
static gboolean
kernel_is_at_least_6_17 (void)
{
  struct utsname name;
  guint64 major, minor;
  char *end;

  g_assert_no_errno (uname (&name));
  major = g_ascii_strtoull (name.release, &end, 10);
  minor = *end == '.' ? g_ascii_strtoull (end + 1, NULL, 10) : 0;

  return major > 6 || (major == 6 && minor >= 17);
}

static void
on_notify (GObject    *object,
           GParamSpec *pspec,
           guint      *count)
{
  (*count)++;
}

static void
test_this_kernel (void)
{
  const char *expected_text = g_getenv ("PROCWATCH_TEST_EXPECT_FEATURES");
  const char *kernel_text = g_getenv ("PROCWATCH_TEST_KERNEL_FEATURES");
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(TestProcess) target = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected_string = NULL;
  g_autofree char *found_string = NULL;
  ProcwatchFeatures features, property, expected;
  guint notifies = 0;

  features = procwatch_process_monitor_get_features (monitor);
  g_object_get (monitor, "features", &property, NULL);
  g_assert_cmpuint (property, ==, features);

  /* It never changes, and is never notified, also across an exit. */
  g_signal_connect (monitor, "notify::features", G_CALLBACK (on_notify), &notifies);
  target = test_process_spawn (TEST_PROCESS_CHILD);
  process = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (target), &error);
  g_assert_no_error (error);
  test_process_exit (target, 0);
  test_process_reap (target);
  while (procwatch_process_get_state (process) != PROCWATCH_PROCESS_STATE_REAPED)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (procwatch_process_monitor_get_features (monitor), ==, features);
  g_assert_cmpuint (notifies, ==, 0);

  if (expected_text == NULL)
    {
      g_test_skip ("PROCWATCH_TEST_EXPECT_FEATURES is not set");
      return;
    }
  expected = parse_features (expected_text);
  /* Where the /proc fallback is procfs (a kernel with pollable /proc
   * directories), the reap is an event too. */
  if (g_strcmp0 (g_getenv ("PROCWATCH_TEST_EXPECT_BACKEND"), "poll") == 0 &&
      g_strcmp0 (test_expected_backend (), "procfs") == 0)
    expected |= PROCWATCH_FEATURES_REAP_EVENT;
  if (kernel_text != NULL)
    {
      /* The /proc backends' THREADS is theirs, not the kernel's pidfds'. */
      if (g_str_equal (procwatch_process_monitor_get_backend (monitor), "pidfd"))
        expected &= parse_features (kernel_text);
    }
  else if (!kernel_is_at_least_6_17 ())
    {
      g_test_skip ("PROCWATCH_TEST_KERNEL_FEATURES is not set: the expected features "
                   "are those of Linux 6.17 and newer (.ci/kernel-lane sets it for older ones)");
      return;
    }

  expected_string = features_to_string (expected);
  found_string = features_to_string (features);
  g_assert_cmpstr (found_string, ==, expected_string);
}

/* NON_CHILD_STATUS: a non-child's status is known after its reap, or not
 * at all. */
static void
check_non_child_status (ProcwatchProcessMonitor *monitor,
                        gboolean                 promised)
{
  g_autoptr(TestProcess) target = test_process_spawn (TEST_PROCESS_GRANDCHILD);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;

  process = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (target), &error);
  g_assert_no_error (error);
  test_process_exit (target, 7);
  test_process_reap (target);
  while (procwatch_process_get_state (process) != PROCWATCH_PROCESS_STATE_REAPED)
    g_main_context_iteration (NULL, TRUE);

  g_assert_cmpint (procwatch_process_has_status (process), ==, promised);
  if (promised)
    g_assert_cmpint (procwatch_process_get_exit_status (process), ==, 7);
}

/* INODE: a process watched by pid has its pidfs inode, that of a pidfd
 * the test opens. */
static void
check_inode (ProcwatchProcessMonitor *monitor,
             gboolean                 promised)
{
  g_autoptr(TestProcess) target = test_process_spawn (TEST_PROCESS_CHILD);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  struct stat st;
  int pidfd;

  process = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (target), &error);
  g_assert_no_error (error);

  if (!promised)
    {
      g_assert_cmpuint (procwatch_process_get_inode (process), ==, 0);
      return;
    }

  pidfd = procwatch_pidfd_open (test_process_get_pid (target), 0);
  g_assert_no_errno (pidfd);
  g_assert_no_errno (fstat (pidfd, &st));
  close (pidfd);
  g_assert_cmpuint (procwatch_process_get_inode (process), ==, st.st_ino);
}

/* THREADS: the id of a thread of ours that does not lead watches. */
static void
check_threads (ProcwatchProcessMonitor *monitor,
               gboolean                 promised)
{
  TestParkedThread *thread = test_parked_thread_new ();
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;

  process = procwatch_process_monitor_watch_pid (monitor, test_parked_thread_get_tid (thread), &error);
  if (promised)
    {
      g_assert_no_error (error);
      g_assert_nonnull (process);
      procwatch_process_monitor_unwatch_process (monitor, process);
    }
  else
    {
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
    }

  test_parked_thread_release (thread);
}

static void
test_each_flag_holds (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  ProcwatchFeatures features = procwatch_process_monitor_get_features (monitor);
  const char *backend = procwatch_process_monitor_get_backend (monitor);
  gboolean pidfd_backend = g_str_equal (backend, "pidfd");
  gboolean procfs_backend = g_str_equal (backend, "procfs");

  check_non_child_status (monitor, (features & PROCWATCH_FEATURES_NON_CHILD_STATUS) != 0);
  check_inode (monitor, (features & PROCWATCH_FEATURES_INODE) != 0);
  /* Without pidfds a thread is not watched alone, whatever the kernel. */
  check_threads (monitor, (features & PROCWATCH_FEATURES_THREADS) != 0);
  /* The core flag comes with the status. */
  g_assert_cmpint (!(features & PROCWATCH_FEATURES_CORE_DUMP), ==,
                   !(features & PROCWATCH_FEATURES_NON_CHILD_STATUS));
  /* FILE_HANDLES: as the kernel answers the test. */
  g_assert_cmpint (!(features & PROCWATCH_FEATURES_FILE_HANDLES), ==,
                   !(pidfd_backend && test_kernel_has_file_handles () &&
                     !test_simulating_no_pidfs ()));
  /* The reap raises an event where the kernel hangs pidfds up, and where
   * /proc directories poll POLLERR once reaped (kernel/). */
  g_assert_cmpint (!(features & PROCWATCH_FEATURES_REAP_EVENT), ==,
                   !((pidfd_backend && test_kernel_reports_reap_hangup ()) ||
                     (procfs_backend && test_kernel_has_pollable_proc ())));
}

/* The seam's rewrites of the kernel's PIDFD_GET_INFO answers. */
static guint64 fake_supported_mask;

static void
answer_without_coredump (struct procwatch_pidfd_info *info)
{
  info->mask &= ~(guint64) PIDFD_INFO_COREDUMP;
  info->coredump_mask = 0;
}

static void
answer_with_supported_mask (struct procwatch_pidfd_info *info)
{
  info->mask |= PIDFD_INFO_SUPPORTED_MASK;
  info->supported_mask = fake_supported_mask;
}

static ProcwatchFeatures
features_with_seam (void (*answer) (struct procwatch_pidfd_info *info),
                    const char *release)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;

  procwatch_test_seam_pidfd_info_answer = answer;
  procwatch_test_seam_kernel_release = release;
  monitor = procwatch_process_monitor_new ();
  procwatch_test_seam_pidfd_info_answer = NULL;
  procwatch_test_seam_kernel_release = NULL;

  return procwatch_process_monitor_get_features (monitor);
}

static gboolean
seam_applies (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();

  if (!g_str_equal (procwatch_process_monitor_get_backend (monitor), "pidfd") ||
      !test_kernel_keeps_exit_status ())
    {
      g_test_skip ("the kernel's PIDFD_INFO_EXIT answers are needed to rewrite them");
      return FALSE;
    }

  return TRUE;
}

#define STATUS_FLAGS (PROCWATCH_FEATURES_NON_CHILD_STATUS | PROCWATCH_FEATURES_CORE_DUMP)

/* Linux 6.13 to 6.15 answer PIDFD_GET_INFO but do not echo COREDUMP: only
 * the release tells 6.15. */
static void
test_release_decides_without_coredump_echo (void)
{
  if (!seam_applies ())
    return;

  g_assert_cmpuint (features_with_seam (answer_without_coredump, "6.15.0") & STATUS_FLAGS, ==,
                    STATUS_FLAGS);
  g_assert_cmpuint (features_with_seam (answer_without_coredump, "6.15.11-arch1-1") & STATUS_FLAGS,
                    ==, STATUS_FLAGS);
  g_assert_cmpuint (features_with_seam (answer_without_coredump, "7.0.0") & STATUS_FLAGS, ==,
                    STATUS_FLAGS);
  g_assert_cmpuint (features_with_seam (answer_without_coredump, "6.14.9") & STATUS_FLAGS, ==, 0);
  g_assert_cmpuint (features_with_seam (answer_without_coredump, "6.13.0") & STATUS_FLAGS, ==, 0);
  /* A release that cannot be read promises nothing. */
  g_assert_cmpuint (features_with_seam (answer_without_coredump, "unknown") & STATUS_FLAGS, ==, 0);
}

/* The COREDUMP echo for a live process means 6.16 or later, whatever the
 * release says. */
static void
test_coredump_echo_decides (void)
{
  if (!seam_applies ())
    return;

  g_assert_cmpuint (features_with_seam (NULL, "6.14.0") & STATUS_FLAGS, ==, STATUS_FLAGS);
}

/* A kernel that lists its supported bits (6.19) is taken at its word. */
static void
test_supported_mask_decides (void)
{
  if (!seam_applies ())
    return;

  fake_supported_mask = PIDFD_INFO_PID | PIDFD_INFO_COREDUMP | PIDFD_INFO_SUPPORTED_MASK;
  g_assert_cmpuint (features_with_seam (answer_with_supported_mask, "7.0.0") & STATUS_FLAGS, ==, 0);

  fake_supported_mask |= PIDFD_INFO_EXIT;
  g_assert_cmpuint (features_with_seam (answer_with_supported_mask, "6.1.0") & STATUS_FLAGS, ==,
                    STATUS_FLAGS);
}

int
main (int    argc,
      char **argv)
{
  test_init (&argc, &argv);

  g_test_add_func ("/features/this-kernel", test_this_kernel);
  g_test_add_func ("/features/each-flag-holds", test_each_flag_holds);
  g_test_add_func ("/features/seam/release-decides-without-coredump-echo",
                   test_release_decides_without_coredump_echo);
  g_test_add_func ("/features/seam/coredump-echo-decides", test_coredump_echo_decides);
  g_test_add_func ("/features/seam/supported-mask-decides", test_supported_mask_decides);

  return g_test_run ();
}
