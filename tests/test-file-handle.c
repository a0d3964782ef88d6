/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Process tokens: Process.dup_file_handle () and
 * ProcessMonitor.watch_file_handle () on real processes: passed between
 * processes over a pipe, across pid namespaces both ways, as root and as
 * uid 65534, for a zombie and after the reap, after the pid was reused, from
 * another boot, and bytes that are no token. Runs in every backend variant.
 *
 * The program doubles as the other process of those tests:
 *   test-file-handle --print-own-token   prints a token of itself (base64)
 *                                        and its pidfs inode, then waits
 *                                        for its stdin to end;
 *   test-file-handle --open-token B64    watches the process the token
 *                                        names and prints "pid INODE", or
 *                                        "error CODE" (a GIOErrorEnum).
 */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procwatch-linux-private.h"
#include "procwatch-test-util.h"

static gboolean
skip_without_file_handles (void)
{
  if (test_kernel_has_file_handles ())
    return FALSE;

  g_test_skip ("no pidfs file handles here (Linux 6.14+, with pidfd_open ())");
  return TRUE;
}

/* A token of @pid, watched by @monitor through a pidfd: every backend then
 * holds one. */
static GBytes *
token_of (ProcwatchProcessMonitor  *monitor,
          GPid                      pid,
          ProcwatchProcess        **process)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ProcwatchProcess) watched = test_watch_by_pidfd (monitor, pid);
  GBytes *token = procwatch_process_dup_file_handle (watched, &error);

  g_assert_no_error (error);
  g_assert_nonnull (token);
  if (process != NULL)
    *process = g_steal_pointer (&watched);

  return token;
}

static guint64
inode_of (GPid pid)
{
  struct stat st;
  int pidfd = procwatch_pidfd_open (pid, 0);

  g_assert_no_errno (pidfd);
  g_assert_no_errno (fstat (pidfd, &st));
  close (pidfd);

  return st.st_ino;
}

static void
assert_not_found (ProcwatchProcessMonitor *monitor,
                  GBytes                  *token)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ProcwatchProcess) process = NULL;

  process = procwatch_process_monitor_watch_file_handle (monitor, token, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_null (process);
}

static void
wait_for_state (ProcwatchProcess      *process,
                ProcwatchProcessState  state)
{
  while (procwatch_process_get_state (process) < state)
    g_main_context_iteration (NULL, TRUE);
}

static void
test_round_trip (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchProcessMonitor) other = procwatch_process_monitor_new ();
  g_autoptr(TestProcess) target = NULL;
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(ProcwatchProcess) again = NULL;
  g_autoptr(ProcwatchProcess) elsewhere = NULL;
  g_autoptr(GBytes) token = NULL;
  g_autoptr(GBytes) zombie_token = NULL;
  g_autoptr(GError) error = NULL;
  guint fds_before = test_count_open_fds ();
  GPid pid;

  if (skip_without_file_handles ())
    return;

  target = test_process_spawn (TEST_PROCESS_CHILD);
  pid = test_process_get_pid (target);
  token = token_of (monitor, pid, &process);
  /* Format, handle type, boot id, length, and pidfs's 8 bytes. */
  g_assert_cmpuint (g_bytes_get_size (token), ==, 40);

  /* The same object where it is watched already; the same process
   * elsewhere. */
  again = procwatch_process_monitor_watch_file_handle (monitor, token, &error);
  g_assert_no_error (error);
  g_assert_true (again == process);
  elsewhere = procwatch_process_monitor_watch_file_handle (other, token, &error);
  g_assert_no_error (error);
  g_assert_true (elsewhere != process);
  g_assert_cmpint (procwatch_process_get_pid (elsewhere), ==, pid);
  g_assert_cmpuint (procwatch_process_get_inode (process), ==, inode_of (pid));
  g_clear_object (&elsewhere);
  procwatch_process_monitor_close (other);
  g_clear_object (&other);

  /* A zombie: still named, still opened; the same token as before. */
  test_process_exit (target, 3);
  test_process_await_exit (target);
  zombie_token = procwatch_process_dup_file_handle (process, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (zombie_token, token));
  other = procwatch_process_monitor_new ();
  elsewhere = procwatch_process_monitor_watch_file_handle (other, token, &error);
  g_assert_no_error (error);
  wait_for_state (elsewhere, PROCWATCH_PROCESS_STATE_EXITED);
  g_clear_object (&elsewhere);
  g_clear_object (&other);

  /* Reaped: named no more, and no longer watched to make one. */
  test_process_reap (target);
  wait_for_state (process, PROCWATCH_PROCESS_STATE_REAPED);
  assert_not_found (monitor, token);
  g_assert_null (procwatch_process_dup_file_handle (process, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED);

  g_clear_object (&process);
  g_clear_object (&again);
  g_clear_object (&monitor);
  g_clear_pointer (&target, test_process_free);
  g_assert_cmpuint (test_count_open_fds (), ==, fds_before);
}

/* Where the backend holds no pidfd for a process watched by pid, there is
 * no handle to give; otherwise FILE_HANDLES says whether there is. */
static void
test_by_pid_on_this_backend (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestProcess) target = test_process_spawn (TEST_PROCESS_CHILD);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GBytes) token = NULL;
  g_autoptr(GError) error = NULL;

  process = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (target), &error);
  g_assert_no_error (error);
  token = procwatch_process_dup_file_handle (process, &error);

  if (procwatch_process_monitor_get_features (monitor) & PROCWATCH_FEATURES_FILE_HANDLES)
    {
      g_assert_no_error (error);
      g_assert_nonnull (token);
    }
  else
    {
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
      g_assert_null (token);
    }
}

/* A token as the format says (tests/test-file-handle.c's reader must not
 * need a kernel with file handles, so that valgrind, where pidfd_open ()
 * fails, runs the parser too): of the pidfs inode @inode, this boot's. */
static GBytes *
token_by_hand (guint64 inode)
{
  g_autofree char *boot_id = NULL;
  guint8 token[40] = { 'P', 'W', 'F', 'H', 1, 0, 0, 0, 254, 0, 0, 0 };
  const char *p;
  guint n = 0;

  g_assert_true (g_file_get_contents ("/proc/sys/kernel/random/boot_id", &boot_id, NULL, NULL));
  for (p = boot_id; *p != '\0' && n < 32; p++)
    {
      if (!g_ascii_isxdigit (*p))
        continue;
      token[12 + n / 2] |= g_ascii_xdigit_value (*p) << (n % 2 == 0 ? 4 : 0);
      n++;
    }
  g_assert_cmpuint (n, ==, 32);
  token[28] = 8;
  inode = GUINT64_TO_LE (inode);
  memcpy (token + 32, &inode, sizeof inode);

  return g_bytes_new (token, sizeof token);
}

static void
test_other_boot (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(GBytes) token = NULL;
  g_autoptr(GBytes) forged = NULL;
  guint8 *bytes;
  gsize size;

  /* The test process itself, alive throughout, where the kernel names it;
   * else a token as the format says. */
  if (test_kernel_has_file_handles ())
    {
      g_autoptr(GBytes) expected = token_by_hand (inode_of (getpid ()));

      token = token_of (monitor, getpid (), NULL);
      g_assert_true (g_bytes_equal (token, expected));
    }
  else
    {
      token = token_by_hand (1);
    }
  bytes = g_memdup2 (g_bytes_get_data (token, &size), g_bytes_get_size (token));
  bytes[12] ^= 0x01;   /* the first byte of the boot id */
  forged = g_bytes_new_take (bytes, size);

  assert_not_found (monitor, forged);
}

static void
assert_invalid (ProcwatchProcessMonitor *monitor,
                const guint8            *bytes,
                gsize                    size)
{
  g_autoptr(GBytes) token = g_bytes_new (bytes, size);
  g_autoptr(GError) error = NULL;
  g_autoptr(ProcwatchProcess) process = NULL;

  process = procwatch_process_monitor_watch_file_handle (monitor, token, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_null (process);
}

static void
test_invalid_bytes (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestProcess) target = test_process_spawn (TEST_PROCESS_CHILD);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GBytes) token = NULL;
  g_autoptr(GError) error = NULL;
  guint8 bytes[64];
  gsize size;
  gsize i;

  token = token_by_hand (1);
  size = g_bytes_get_size (token);
  g_assert_cmpuint (size, <=, sizeof bytes);

  /* Every truncation, and one byte too many. */
  for (i = 0; i < size; i++)
    assert_invalid (monitor, g_bytes_get_data (token, NULL), i);
  memcpy (bytes, g_bytes_get_data (token, NULL), size);
  bytes[size] = 0;
  assert_invalid (monitor, bytes, size + 1);

  /* Another magic, another format version, a length of 0 or past
   * MAX_HANDLE_SZ. */
  memcpy (bytes, g_bytes_get_data (token, NULL), size);
  bytes[0] = 'X';
  assert_invalid (monitor, bytes, size);
  memcpy (bytes, g_bytes_get_data (token, NULL), size);
  bytes[4] = 2;
  assert_invalid (monitor, bytes, size);
  memcpy (bytes, g_bytes_get_data (token, NULL), size);
  bytes[28] = 0;
  assert_invalid (monitor, bytes, size);
  bytes[28] = 0;
  bytes[29] = 1;   /* 256 */
  assert_invalid (monitor, bytes, size);

  /* Foreign bytes of the right length. */
  for (i = 0; i < size; i++)
    bytes[i] = g_test_rand_int_range (0, 256);
  assert_invalid (monitor, bytes, size);

  /* The monitor works on. */
  process = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (target), &error);
  g_assert_no_error (error);
  test_process_exit (target, 0);
  wait_for_state (process, PROCWATCH_PROCESS_STATE_EXITED);
}

/* Runs this program as @prefix... --open-token TOKEN; returns what it
 * printed. */
static char *
open_token_elsewhere (const char * const *prefix,
                      const char         *program,
                      GBytes             *token)
{
  g_autofree char *encoded = g_base64_encode (g_bytes_get_data (token, NULL),
                                              g_bytes_get_size (token));
  g_autofree char *self = program ? g_strdup (program) : g_file_read_link ("/proc/self/exe", NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  char *out = NULL;
  int status;

  for (; *prefix != NULL; prefix++)
    g_ptr_array_add (argv, (char *) *prefix);
  g_ptr_array_add (argv, self);
  g_ptr_array_add (argv, (char *) "--open-token");
  g_ptr_array_add (argv, encoded);
  g_ptr_array_add (argv, NULL);

  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                &out, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("%s failed: %s", (char *) argv->pdata[0], err);

  return g_strchomp (out);
}

/* The other process of a pipe: a token of itself, over its stdout. */
typedef struct
{
  GPid pid;
  int stdin_fd;
  GBytes *token;
  guint64 inode;
} TokenPrinter;

static void
token_printer_start (TokenPrinter       *printer,
                     const char * const *prefix,
                     const char         *program)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) words = NULL;
  char line[256] = { 0 };
  gsize length = 0;
  guchar *decoded;
  gsize size;
  int stdout_fd;

  for (; *prefix != NULL; prefix++)
    g_ptr_array_add (argv, g_strdup (*prefix));
  g_ptr_array_add (argv, program ? g_strdup (program) : g_file_read_link ("/proc/self/exe", NULL));
  g_ptr_array_add (argv, g_strdup ("--print-own-token"));
  g_ptr_array_add (argv, NULL);

  g_spawn_async_with_pipes (NULL, (char **) argv->pdata, NULL,
                            G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH, NULL, NULL,
                            &printer->pid, &printer->stdin_fd, &stdout_fd, NULL, &error);
  g_assert_no_error (error);

  while (length < sizeof line - 1 && strchr (line, '\n') == NULL)
    {
      gssize n = read (stdout_fd, line + length, sizeof line - 1 - length);

      if (n < 0 && errno == EINTR)
        continue;
      g_assert_cmpint (n, >, 0);
      length += n;
    }
  close (stdout_fd);

  words = g_strsplit (g_strchomp (line), " ", 2);
  g_assert_cmpuint (g_strv_length (words), ==, 2);
  decoded = g_base64_decode (words[0], &size);
  printer->token = g_bytes_new_take (decoded, size);
  printer->inode = g_ascii_strtoull (words[1], NULL, 10);
}

static void
token_printer_end (TokenPrinter *printer)
{
  int status;

  close (printer->stdin_fd);
  g_assert_cmpint (waitpid (printer->pid, &status, 0), ==, printer->pid);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  g_bytes_unref (printer->token);
}

static void
test_pipe_between_processes (void)
{
  static const char * const none[] = { NULL };
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(TestProcess) target = NULL;
  g_autoptr(GBytes) token = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *opened = NULL;
  TokenPrinter printer;

  if (skip_without_file_handles ())
    return;

  /* Made there, opened here. */
  token_printer_start (&printer, none, NULL);
  process = procwatch_process_monitor_watch_file_handle (monitor, printer.token, &error);
  g_assert_no_error (error);
  g_assert_cmpint (procwatch_process_get_pid (process), ==, printer.pid);
  g_assert_cmpuint (inode_of (printer.pid), ==, printer.inode);
  token = g_bytes_ref (printer.token);
  token_printer_end (&printer);
  wait_for_state (process, PROCWATCH_PROCESS_STATE_REAPED);
  assert_not_found (monitor, token);
  g_clear_object (&process);
  g_clear_pointer (&token, g_bytes_unref);

  /* Made here, opened there. */
  target = test_process_spawn (TEST_PROCESS_CHILD);
  token = token_of (monitor, test_process_get_pid (target), NULL);
  opened = open_token_elsewhere (none, NULL, token);
  expected = g_strdup_printf ("%d %" G_GUINT64_FORMAT, (int) test_process_get_pid (target),
                              inode_of (test_process_get_pid (target)));
  g_assert_cmpstr (opened, ==, expected);
}

/* From a child pid namespace, a process of ours is not visible; ours sees
 * every process of the child namespace. */
static void
test_pid_namespaces (void)
{
  static const char * const unshare_root[] = { "unshare", "--pid", "--fork", "--mount-proc", NULL };
  static const char * const unshare_user[] = { "unshare", "--user", "--map-root-user", "--pid",
                                               "--fork", "--mount-proc", NULL };
  const char * const *unshare = geteuid () == 0 ? unshare_root : unshare_user;
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GBytes) token = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *opened = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *why = NULL;
  g_autofree char *program = g_find_program_in_path ("unshare");
  TokenPrinter printer;

  if (skip_without_file_handles ())
    return;
  if (program == NULL || !test_can_pid_namespace (&why))
    {
      g_test_skip_printf ("cannot create a pid namespace here: %s", why ? why : "no unshare");
      return;
    }

  /* Ours, from inside a child namespace: gone, as far as it can tell. */
  token = token_of (monitor, getpid (), NULL);
  opened = open_token_elsewhere (unshare, NULL, token);
  expected = g_strdup_printf ("error %d", G_IO_ERROR_NOT_FOUND);
  g_assert_cmpstr (opened, ==, expected);

  /* Theirs, from here: the process, with its pid in our namespace. */
  token_printer_start (&printer, unshare, NULL);
  process = procwatch_process_monitor_watch_file_handle (monitor, printer.token, &error);
  g_assert_no_error (error);
  g_assert_cmpint (procwatch_process_get_pid (process), >, 1);
  g_assert_cmpuint (procwatch_process_get_inode (process), ==, printer.inode);
  token_printer_end (&printer);
}

/* The file of the gio-procwatch library this program runs with. */
static char *
library_file (void)
{
  Dl_info info;

  g_assert_true (dladdr ((void *) procwatch_process_monitor_new, &info) != 0);
  g_assert_nonnull (info.dli_fname);

  return g_strdup (info.dli_fname);
}

/* A copy of this program and of the library it runs with, in a new folder
 * every user may read, for uid 65534: a build tree under /root (0700, where
 * root clones) is not theirs to read. Returns the folder. */
static char *
make_readable_copy (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *self = g_file_read_link ("/proc/self/exe", &error);
  g_autofree char *dir = g_dir_make_tmp ("procwatch-uid-65534-XXXXXX", &error);
  g_autofree char *library = library_file ();
  const char *files[] = { self, library };

  g_assert_no_error (error);
  g_assert_no_errno (chmod (dir, 0755));
  for (gsize i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *base = g_path_get_basename (files[i]);
      g_autofree char *copy = g_build_filename (dir, base, NULL);
      g_autofree char *contents = NULL;
      gsize size;

      g_file_get_contents (files[i], &contents, &size, &error);
      g_assert_no_error (error);
      g_file_set_contents_full (copy, contents, size, G_FILE_SET_CONTENTS_NONE, 0755, &error);
      g_assert_no_error (error);
    }

  return g_steal_pointer (&dir);
}

static void
remove_readable_copy (char *dir)
{
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_assert_no_errno (unlink (path));
    }
  g_assert_no_errno (rmdir (dir));
  g_free (dir);
}

/* uid 65534 opens a token of root's process and makes one of its own. */
static void
test_unprivileged (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(TestProcess) target = NULL;
  g_autoptr(GBytes) token = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *opened = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *setpriv_path = g_find_program_in_path ("setpriv");
  g_autofree char *copy = NULL;
  g_autofree char *library_path = NULL;
  g_autofree char *program = NULL;
  g_autofree char *self = NULL;
  g_autofree char *self_name = NULL;
  TokenPrinter printer;

  if (skip_without_file_handles ())
    return;
  if (geteuid () != 0 || setpriv_path == NULL)
    {
      test_skip_for_system ("needs root and setpriv to run a process as uid 65534");
      return;
    }

  copy = make_readable_copy ();
  self = g_file_read_link ("/proc/self/exe", NULL);
  self_name = g_path_get_basename (self);
  program = g_build_filename (copy, self_name, NULL);
  library_path = g_strdup_printf ("LD_LIBRARY_PATH=%s", copy);
  {
    const char * const setpriv[] = { "setpriv", "--reuid=65534", "--regid=65534",
                                     "--clear-groups", "env", library_path, NULL };

    target = test_process_spawn (TEST_PROCESS_CHILD);
    token = token_of (monitor, test_process_get_pid (target), NULL);
    opened = open_token_elsewhere (setpriv, program, token);
    expected = g_strdup_printf ("%d %" G_GUINT64_FORMAT, (int) test_process_get_pid (target),
                                inode_of (test_process_get_pid (target)));
    g_assert_cmpstr (opened, ==, expected);

    token_printer_start (&printer, setpriv, program);
    process = procwatch_process_monitor_watch_file_handle (monitor, printer.token, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (procwatch_process_get_inode (process), ==, printer.inode);
    token_printer_end (&printer);
  }
  remove_readable_copy (g_steal_pointer (&copy));
}

/* In a pid namespace of its own, the pid of a reaped process is given to a
 * new one: the token never names the new owner. */
static void
pid_reuse_scenario (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchProcess) reused = NULL;
  g_autoptr(GBytes) token = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(TestProcess) target = test_process_spawn (TEST_PROCESS_CHILD);
  GPid pid = test_process_get_pid (target);
  GPid new_pid;

  token = token_of (monitor, pid, NULL);
  test_process_exit (target, 0);
  test_process_reap (target);

  test_set_next_pid (pid);
  new_pid = fork ();
  g_assert_cmpint (new_pid, >=, 0);
  if (new_pid == 0)
    {
      pause ();
      _exit (0);
    }
  g_assert_cmpint (new_pid, ==, pid);

  assert_not_found (monitor, token);
  reused = procwatch_process_monitor_watch_pid (monitor, new_pid, &error);
  g_assert_no_error (error);

  kill (new_pid, SIGKILL);
  waitpid (new_pid, NULL, 0);
}

static void
test_pid_reuse (void)
{
  if (!g_test_subprocess () && skip_without_file_handles ())
    return;

  test_in_pid_namespace (pid_reuse_scenario);
}

/* Opens /dev/null into @fillers until the table is full; then closes
 * @n_free of them again. */
static void
fill_fd_table (GArray *fillers,
               guint   n_free)
{
  int fd;

  while ((fd = open ("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
    g_array_append_val (fillers, fd);
  g_assert_cmpint (errno, ==, EMFILE);

  for (; n_free > 0; n_free--)
    {
      close (g_array_index (fillers, int, fillers->len - 1));
      g_array_set_size (fillers, fillers->len - 1);
    }
}

static void
empty_fd_table (GArray *fillers)
{
  guint i;

  for (i = 0; i < fillers->len; i++)
    close (g_array_index (fillers, int, i));
  g_array_set_size (fillers, 0);
}

static void
assert_out_of_fds (GBytes       *token,
                   const GError *error)
{
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES);
  g_assert_null (token);
}

/* Out of file descriptors, both calls say so, as their docs promise,
 * never that the kernel has no file handles (NOT_SUPPORTED): first in a
 * process that has not read the boot id yet, then in one that has, where
 * making a token needs no fd beyond the pidfd it is made of. In a
 * subprocess of its own, so that nothing read the boot id before. */
static void
test_out_of_fds (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(TestProcess) target = NULL;
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(ProcwatchProcess) watched = NULL;
  g_autoptr(GBytes) by_hand = NULL;
  g_autoptr(GBytes) token = NULL;
  g_autoptr(GArray) fillers = NULL;
  g_autoptr(GError) error = NULL;
  struct rlimit saved;
  struct rlimit lowered;
  guint fds_before;

  if (skip_without_file_handles ())
    return;

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
      return;
    }

  monitor = procwatch_process_monitor_new ();
  target = test_process_spawn (TEST_PROCESS_CHILD);
  process = test_watch_by_pidfd (monitor, test_process_get_pid (target));
  by_hand = token_by_hand (inode_of (test_process_get_pid (target)));
  fillers = g_array_new (FALSE, FALSE, sizeof (int));

  fds_before = test_count_open_fds ();
  g_assert_no_errno (getrlimit (RLIMIT_NOFILE, &saved));
  lowered = saved;
  lowered.rlim_cur = fds_before + 16;
  g_assert_no_errno (setrlimit (RLIMIT_NOFILE, &lowered));

  /* The boot id not read yet: no fd to read it with, or none left once
   * the pidfd to make the token of is open. */
  fill_fd_table (fillers, 0);
  watched = procwatch_process_monitor_watch_file_handle (monitor, by_hand, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES);
  g_assert_null (watched);
  g_clear_error (&error);
  empty_fd_table (fillers);

  fill_fd_table (fillers, 1);
  token = procwatch_process_dup_file_handle (process, &error);
  assert_out_of_fds (token, error);
  g_clear_error (&error);
  empty_fd_table (fillers);

  /* Read once, kept: the boot does not change while we run. */
  token = procwatch_process_dup_file_handle (process, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (token, by_hand));
  g_clear_pointer (&token, g_bytes_unref);

  fill_fd_table (fillers, 0);
  watched = procwatch_process_monitor_watch_file_handle (monitor, by_hand, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES);
  g_assert_null (watched);
  g_clear_error (&error);
  token = procwatch_process_dup_file_handle (process, &error);
  assert_out_of_fds (token, error);
  g_clear_error (&error);
  empty_fd_table (fillers);

  fill_fd_table (fillers, 1);
  token = procwatch_process_dup_file_handle (process, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (token, by_hand));
  empty_fd_table (fillers);

  /* Nothing was left open by the failures. */
  g_assert_cmpuint (test_count_open_fds (), ==, fds_before);
  g_assert_no_errno (setrlimit (RLIMIT_NOFILE, &saved));

  /* And the monitor still works. */
  watched = procwatch_process_monitor_watch_file_handle (monitor, by_hand, &error);
  g_assert_no_error (error);
  g_assert_true (watched == process);
  test_process_exit (target, 0);
  wait_for_state (process, PROCWATCH_PROCESS_STATE_EXITED);
}

/* The other process of the tests. */
static int
print_own_token (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GBytes) token = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *encoded = NULL;
  char buffer[16];
  struct stat st;
  int pidfd;

  /* Through a pidfd, which every backend then holds. */
  pidfd = procwatch_pidfd_open (getpid (), 0);
  if (pidfd >= 0 && fstat (pidfd, &st) == 0)
    process = procwatch_process_monitor_watch_pidfd (monitor, pidfd, &error);
  if (process != NULL)
    token = procwatch_process_dup_file_handle (process, &error);
  if (token == NULL)
    {
      g_printerr ("no token: %s\n", error != NULL ? error->message : g_strerror (errno));
      return 1;
    }
  close (pidfd);

  encoded = g_base64_encode (g_bytes_get_data (token, NULL), g_bytes_get_size (token));
  printf ("%s %" G_GUINT64_FORMAT "\n", encoded, (guint64) st.st_ino);
  fflush (stdout);

  while (read (STDIN_FILENO, buffer, sizeof buffer) > 0)
    ;
  return 0;
}

static int
open_token (const char *encoded)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GBytes) token = NULL;
  g_autoptr(GError) error = NULL;
  guchar *decoded;
  gsize size;

  decoded = g_base64_decode (encoded, &size);
  token = g_bytes_new_take (decoded, size);
  process = procwatch_process_monitor_watch_file_handle (monitor, token, &error);
  if (process == NULL)
    printf ("error %d\n", error->code);
  else
    printf ("%d %" G_GUINT64_FORMAT "\n", (int) procwatch_process_get_pid (process),
            procwatch_process_get_inode (process));

  return 0;
}

int
main (int    argc,
      char **argv)
{
  if (argc == 2 && strcmp (argv[1], "--print-own-token") == 0)
    return print_own_token ();
  if (argc == 3 && strcmp (argv[1], "--open-token") == 0)
    return open_token (argv[2]);

  test_init (&argc, &argv);

  g_test_add_func ("/file-handle/round-trip", test_round_trip);
  g_test_add_func ("/file-handle/by-pid-on-this-backend", test_by_pid_on_this_backend);
  g_test_add_func ("/file-handle/other-boot", test_other_boot);
  g_test_add_func ("/file-handle/invalid-bytes", test_invalid_bytes);
  g_test_add_func ("/file-handle/pipe-between-processes", test_pipe_between_processes);
  g_test_add_func ("/file-handle/pid-namespaces", test_pid_namespaces);
  g_test_add_func ("/file-handle/uid-65534", test_unprivileged);
  g_test_add_func ("/file-handle/pid-reuse", test_pid_reuse);
  g_test_add_func ("/file-handle/out-of-fds", test_out_of_fds);

  return g_test_run ();
}
