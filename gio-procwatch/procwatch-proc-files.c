/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Reading /proc files: whole files read at once, fields found by name,
 * numbers parsed whole, nothing assumed about what a process may put in its
 * name.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <glib.h>

#include "procwatch-proc-files-private.h"
#include "procwatch-self-private.h"
#include "procwatch-test-seam-private.h"

#ifdef PROCWATCH_TEST_SEAM
guint procwatch_test_seam_parent_reads;
#endif

/* Reads up to @size - 1 bytes of @path (relative to @dirfd, or
 * AT_FDCWD) and terminates them with a NUL. /proc files are generated on
 * read, so one read() of a large enough buffer sees one consistent
 * snapshot. Returns the length, or -1 with errno set. */
gssize
procwatch_proc_read_file_at (int         dirfd,
                             const char *path,
                             char       *buffer,
                             gsize       size)
{
  gssize length;
  int saved_errno;
  int fd;

  g_return_val_if_fail (size > 0, -1);

  fd = openat (dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return -1;

  do
    length = read (fd, buffer, size - 1);
  while (length < 0 && errno == EINTR);

  saved_errno = errno;
  close (fd);
  errno = saved_errno;

  if (length < 0)
    return -1;

  buffer[length] = '\0';
  return length;
}

gssize
procwatch_proc_read_file (const char *path,
                          char       *buffer,
                          gsize       size)
{
  return procwatch_proc_read_file_at (AT_FDCWD, path, buffer, size);
}

/* The decimal number that is the whole of @text[0..@length), if it lies
 * between @min and @max. */
static gboolean
parse_number (const char *text,
              gsize       length,
              gint64      min,
              gint64      max,
              gint64     *value)
{
  char digits[24];

  if (length == 0 || length >= sizeof digits)
    return FALSE;

  memcpy (digits, text, length);
  digits[length] = '\0';

  return g_ascii_string_to_signed (digits, 10, min, max, value, NULL);
}

/* Finds a "Name:\tvalue" line, as in /proc/<pid>/status and fdinfo. */
gboolean
procwatch_proc_find_int_field (const char *text,
                               gsize       length,
                               const char *name,
                               gint64     *value)
{
  g_autofree char *prefix = g_strconcat (name, ":", NULL);
  const char *p;
  const char *eol;
  const char *token;
  gsize rest_length;

  if (!procwatch_proc_find_line (text, length, prefix, &p, &rest_length))
    return FALSE;

  eol = p + rest_length;
  while (p < eol && (*p == ' ' || *p == '\t'))
    p++;

  token = p;
  while (p < eol && *p != ' ' && *p != '\t')
    p++;

  return parse_number (token, p - token, G_MININT64, G_MAXINT64, value);
}

/* Whether @proc_fd (AT_FDCWD: /proc) is a /proc of our own pid
 * namespace, so that the pids it shows are ours. A process in a new pid
 * namespace may still have its parent's /proc mounted: that one shows the
 * outer pids, and /proc/self there names us by our outer pid (or by
 * nothing, in the /proc of a namespace that cannot see us). One readlink,
 * no fd. Returns false with errno set if /proc cannot be asked (ENOENT:
 * no proc file system is mounted there); *@own tells. */
static gboolean
is_own_pid_ns_at (int       proc_fd,
                  gboolean *own)
{
  char target[32];
  gssize length;
  gint64 value;

  length = readlinkat (proc_fd, proc_fd == AT_FDCWD ? "/proc/self" : "self",
                       target, sizeof target - 1);
  if (length < 0)
    {
      struct statfs fs;

      if (errno != ENOENT)
        return FALSE;

      /* No proc file system there at all (a chroot without /proc, /proc
       * unmounted): nothing to tell yet, and it may be mounted later. */
      if ((proc_fd == AT_FDCWD ? statfs ("/proc", &fs) : fstatfs (proc_fd, &fs)) != 0 ||
          fs.f_type != PROC_SUPER_MAGIC)
        {
          errno = ENOENT;
          return FALSE;
        }

      *own = FALSE;
      return TRUE;
    }

  target[length] = '\0';
  *own = g_ascii_string_to_signed (target, 10, 1, G_MAXINT, &value, NULL) &&
         value == procwatch_self_pid ();
  return TRUE;
}

/* The same of /proc, as mounted now: asked at every use by the /proc
 * backends, as a mount over /proc may change the answer. */
gboolean
procwatch_proc_is_own_pid_ns (gboolean *own)
{
  return is_own_pid_ns_at (AT_FDCWD, own);
}

/* Opens /proc as a directory fd, kept in *@fd if it is a /proc of our own
 * pid namespace (else *@fd is -1). Its answer holds for as long as the fd
 * is open: a proc file system shows the pid namespace it was mounted for,
 * for good, and our pid in it changes only in the child of a fork (where a
 * monitor refuses new watches: see procwatch_watch_owner_check ()). A /proc
 * mounted over /proc later does not change what the fd shows. Returns
 * false with errno set if /proc cannot be asked now (ENOENT: none is
 * mounted yet), for the caller to try again later. */
gboolean
procwatch_proc_open_own (int *fd)
{
  gboolean own = FALSE;
  int saved_errno;

  *fd = open ("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (*fd < 0)
    return FALSE;

  if (!is_own_pid_ns_at (*fd, &own))
    {
      saved_errno = errno;
      close (*fd);
      *fd = -1;
      errno = saved_errno;
      return FALSE;
    }

  if (!own)
    {
      close (*fd);
      *fd = -1;
    }

  return TRUE;
}

static gboolean
proc_is_known_own (void)
{
  gboolean own = FALSE;

  return procwatch_proc_is_own_pid_ns (&own) && own;
}

/* "<@pid>/<@file>" below @proc_fd, or "/proc/<@pid>/<@file>" for
 * AT_FDCWD, into @path (at least 64 bytes): written by hand, as
 * g_snprintf () would cost a watch as many instructions as the rest of
 * reading the name. */
static void
format_pid_path (char       *path,
                 int         proc_fd,
                 GPid        pid,
                 const char *file)
{
  char digits[16];
  gsize n = 0;
  guint value = (guint) pid;
  char *p = path;

  if (proc_fd == AT_FDCWD)
    {
      memcpy (p, "/proc/", 6);
      p += 6;
    }

  do
    {
      digits[n++] = '0' + value % 10;
      value /= 10;
    }
  while (value != 0 && n < sizeof digits);

  while (n > 0)
    *p++ = digits[--n];
  *p++ = '/';
  strcpy (p, file);
}

/* The name of task @pid (its comm, at most 15 bytes, as the kernel has
 * it: not checked to be UTF-8) into @buffer, read through @proc_fd, a
 * /proc of our own pid namespace (procwatch_proc_open_own ()): one openat,
 * one read, one close. Returns its length, or -1. The caller checks that
 * the pid was still the one it meant after the read. */
gssize
procwatch_proc_read_comm_at (int    proc_fd,
                             GPid   pid,
                             char  *buffer,
                             gsize  size)
{
  char path[64];
  gssize length;

  g_return_val_if_fail (pid > 0, -1);

  format_pid_path (path, proc_fd, pid, "comm");
  length = procwatch_proc_read_file_at (proc_fd, path, buffer, size);
  if (length <= 0)
    return -1;

  if (buffer[length - 1] == '\n')
    buffer[--length] = '\0';

  return length;
}

/* The name of task @pid, valid UTF-8, or NULL. Only from a /proc of our
 * own pid namespace: another shows other processes under our pids. The
 * caller checks that the pid was still the one it meant after the read. */
char *
procwatch_proc_read_comm (GPid pid)
{
  char text[64];
  gssize length;

  if (!proc_is_known_own ())
    return NULL;

  length = procwatch_proc_read_comm_at (AT_FDCWD, pid, text, sizeof text);
  if (length < 0)
    return NULL;

  return g_utf8_make_valid (text, length);
}

/* The rest of the first line of @text[0..@length) that starts with
 * @prefix, as @rest and its length (without the newline). */
gboolean
procwatch_proc_find_line (const char  *text,
                          gsize        length,
                          const char  *prefix,
                          const char **rest,
                          gsize       *rest_length)
{
  gsize prefix_length = strlen (prefix);
  const char *end = text + length;
  const char *line = text;

  while (line < end)
    {
      const char *eol = memchr (line, '\n', end - line);

      if (eol == NULL)
        eol = end;

      if ((gsize) (eol - line) >= prefix_length && memcmp (line, prefix, prefix_length) == 0)
        {
          *rest = line + prefix_length;
          *rest_length = eol - *rest;
          return TRUE;
        }

      line = eol + 1;
    }

  return FALSE;
}

/* The path of the "0::" line of a /proc/<pid>/cgroup text (cgroup v2),
 * or NULL if there is none. */
char *
procwatch_proc_find_cgroup_v2 (const char *text,
                               gsize       length)
{
  const char *path;
  gsize path_length;

  if (!procwatch_proc_find_line (text, length, "0::", &path, &path_length) || path_length == 0)
    return NULL;

  return g_strndup (path, path_length);
}

/* The cgroup v2 path of process @pid, relative to the root of our cgroup
 * namespace, or NULL, read through @proc_fd as procwatch_proc_read_comm_at ()
 * reads the name; the caller checks the pid after the read. */
char *
procwatch_proc_read_cgroup_at (int  proc_fd,
                               GPid pid)
{
  char path[64];
  char text[4096 + 256];
  gssize length;

  g_return_val_if_fail (pid > 0, NULL);

  format_pid_path (path, proc_fd, pid, "cgroup");
  length = procwatch_proc_read_file_at (proc_fd, path, text, sizeof text);
  if (length <= 0)
    return NULL;

  return procwatch_proc_find_cgroup_v2 (text, length);
}

/* The same through /proc, if it is one of our own pid namespace. */
char *
procwatch_proc_read_cgroup (GPid pid)
{
  if (!proc_is_known_own ())
    return NULL;

  return procwatch_proc_read_cgroup_at (AT_FDCWD, pid);
}

/* The "Pid:" of a pidfd: -1 once the process has been reaped (Linux 5.10+),
 * 0 when it is not visible from our pid namespace. fdinfo gives the pid in
 * the namespace of the /proc it is read from: where that is not ours, a
 * live process reads as 0, never as a pid of another namespace. */
gboolean
procwatch_proc_read_fdinfo_pid (int   fd,
                                GPid *pid)
{
  char path[64];
  char text[1024];
  gssize length;
  gint64 value;

  g_snprintf (path, sizeof path, "/proc/self/fdinfo/%d", fd);

  length = procwatch_proc_read_file (path, text, sizeof text);
  if (length < 0)
    return FALSE;

  if (!procwatch_proc_find_int_field (text, length, "Pid", &value) ||
      value < -1 || value > G_MAXINT)
    return FALSE;

  if (value > 0 && !proc_is_known_own ())
    value = 0;

  *pid = (GPid) value;
  return TRUE;
}

/* A positive pid-valued field of /proc/<pid>/status. */
static gboolean
read_status_pid_field (GPid        pid,
                       const char *name,
                       GPid       *value)
{
  char path[64];
  char text[4096];
  gssize length;
  gint64 number;

  g_snprintf (path, sizeof path, "/proc/%d/status", (int) pid);

  length = procwatch_proc_read_file (path, text, sizeof text);
  if (length < 0)
    return FALSE;

  if (!procwatch_proc_find_int_field (text, length, name, &number) ||
      number <= 0 || number > G_MAXINT)
    return FALSE;

  *value = (GPid) number;
  return TRUE;
}

gboolean
procwatch_proc_read_tgid (GPid  pid,
                          GPid *tgid)
{
  return read_status_pid_field (pid, "Tgid", tgid);
}

/* The parent of @pid, as far as /proc of our own pid namespace says: the
 * caller must make sure that @pid still is the process it means. */
gboolean
procwatch_proc_read_ppid (GPid  pid,
                          GPid *ppid)
{
  PROCWATCH_TEST_SEAM_COUNT (parent_reads);
  return proc_is_known_own () &&
         read_status_pid_field (pid, "PPid", ppid);
}

/* The state letter and thread count of /proc/<pid>/stat. The name in
 * parentheses may hold anything, ')' and newlines included, so the fields are
 * found after the last ')' of the whole file, never by scanning forward. */
gboolean
procwatch_proc_parse_stat (const char *text,
                           gsize       length,
                           char       *state,
                           gint64     *num_threads)
{
  const char *end = text + length;
  const char *close;
  const char *p;
  const char *space;
  guint field;

  close = memrchr (text, ')', length);
  if (close == NULL || end - close < 3 || close[1] != ' ' || !g_ascii_isalpha (close[2]))
    return FALSE;

  *state = close[2];

  /* num_threads is field 20; the state is field 3. */
  p = close + 2;
  for (field = 3; field < 20; field++)
    {
      p = memchr (p, ' ', end - p);
      if (p == NULL)
        return FALSE;
      p++;
    }

  /* More fields follow: the number ends at a space. */
  space = memchr (p, ' ', end - p);

  return space != NULL && parse_number (p, space - p, 1, G_MAXINT, num_threads);
}

/* A ProcwatchProcessState from the text of a stat file, or -1. */
int
procwatch_proc_task_state_from_stat (const char *text,
                                     gsize       length)
{
  gint64 num_threads;
  char state;

  if (!procwatch_proc_parse_stat (text, length, &state, &num_threads))
    return -1;

  if (state != 'Z' && state != 'X')
    return PROCWATCH_PROCESS_STATE_RUNNING;

  /* A leader that exited before its threads shows Z while the process lives
   * on: the process has exited only once it is the last one counted. */
  if (num_threads > 1)
    return PROCWATCH_PROCESS_STATE_RUNNING;

  return PROCWATCH_PROCESS_STATE_EXITED;
}

/* The state of the task whose stat file is open as @stat_fd, or -1 if it
 * cannot be told. The open file pins the task: once the task is reaped,
 * reading fails with ESRCH, even if the pid has been reused. */
int
procwatch_proc_read_task_state (int stat_fd)
{
  char text[1024];
  gssize length;

  do
    length = pread (stat_fd, text, sizeof text - 1, 0);
  while (length < 0 && errno == EINTR);

  if (length < 0)
    return (errno == ESRCH || errno == ENOENT) ? PROCWATCH_PROCESS_STATE_REAPED : -1;

  return procwatch_proc_task_state_from_stat (text, length);
}

/* The same through the task's /proc directory fd. */
int
procwatch_proc_read_task_state_at (int dirfd)
{
  int stat_fd;
  int state;

  stat_fd = openat (dirfd, "stat", O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (stat_fd < 0)
    return (errno == ESRCH || errno == ENOENT) ? PROCWATCH_PROCESS_STATE_REAPED : -1;

  state = procwatch_proc_read_task_state (stat_fd);
  close (stat_fd);
  return state;
}
