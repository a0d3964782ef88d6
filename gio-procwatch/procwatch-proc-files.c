/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>

#include "procwatch-proc-files-private.h"

/* Reads up to @size - 1 bytes of @path relative to @dirfd and terminates
 * them with a NUL. /proc files are generated on read, so one read() of a
 * large enough buffer sees one consistent snapshot. Returns the length, or
 * -1 with errno set. */
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

/* Finds a "Name:\tvalue" line, as in /proc/<pid>/status and fdinfo. */
gboolean
procwatch_proc_find_int_field (const char *text,
                               gsize       length,
                               const char *name,
                               gint64     *value)
{
  gsize name_length = strlen (name);
  const char *end = text + length;
  const char *line = text;

  while (line < end)
    {
      const char *eol = memchr (line, '\n', end - line);

      if (eol == NULL)
        eol = end;

      if ((gsize) (eol - line) > name_length &&
          memcmp (line, name, name_length) == 0 &&
          line[name_length] == ':')
        {
          char digits[24];
          const char *p = line + name_length + 1;
          gsize n = 0;
          char *parse_end;
          gint64 parsed;

          while (p < eol && (*p == ' ' || *p == '\t'))
            p++;

          while (p < eol && n < sizeof digits - 1 && (g_ascii_isdigit (*p) || (n == 0 && *p == '-')))
            digits[n++] = *p++;
          digits[n] = '\0';

          if (n == 0 || (n == 1 && digits[0] == '-'))
            return FALSE;

          errno = 0;
          parsed = g_ascii_strtoll (digits, &parse_end, 10);
          if (errno != 0 || *parse_end != '\0')
            return FALSE;

          *value = parsed;
          return TRUE;
        }

      line = eol + 1;
    }

  return FALSE;
}

/* The "Pid:" of a pidfd: -1 once the process has been reaped (Linux 5.10+),
 * 0 when it is not visible from our pid namespace. */
gboolean
procwatch_proc_read_fdinfo_pid (int   fd,
                                GPid *pid)
{
  char path[64];
  char text[1024];
  gssize length;
  gint64 value;

  g_snprintf (path, sizeof path, "/proc/self/fdinfo/%d", fd);

  length = procwatch_proc_read_file_at (AT_FDCWD, path, text, sizeof text);
  if (length < 0)
    return FALSE;

  if (!procwatch_proc_find_int_field (text, length, "Pid", &value) ||
      value < -1 || value > G_MAXINT)
    return FALSE;

  *pid = (GPid) value;
  return TRUE;
}

gboolean
procwatch_proc_read_tgid (GPid  pid,
                          GPid *tgid)
{
  char path[64];
  char text[4096];
  gssize length;
  gint64 value;

  g_snprintf (path, sizeof path, "/proc/%d/status", (int) pid);

  length = procwatch_proc_read_file_at (AT_FDCWD, path, text, sizeof text);
  if (length < 0)
    return FALSE;

  if (!procwatch_proc_find_int_field (text, length, "Tgid", &value) ||
      value <= 0 || value > G_MAXINT)
    return FALSE;

  *tgid = (GPid) value;
  return TRUE;
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
  const char *close = NULL;
  const char *p;
  const char *end = text + length;
  guint field;
  gsize i;

  for (i = length; i > 0; i--)
    {
      if (text[i - 1] == ')')
        {
          close = text + i - 1;
          break;
        }
    }

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

  *num_threads = 0;
  while (p < end && g_ascii_isdigit (*p))
    {
      *num_threads = *num_threads * 10 + (*p - '0');
      if (*num_threads > G_MAXINT)
        return FALSE;
      p++;
    }

  return p < end && *p == ' ' && *num_threads > 0;
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

static gboolean
process_exists (GPid pid)
{
  return kill (pid, 0) == 0 || errno == EPERM;
}

/* Opens the /proc directory that pins the task @pid: /proc/<pid> for a
 * process, /proc/<tgid>/task/<pid> for a thread. */
int
procwatch_proc_open_task_dir (GPid     pid,
                              GError **error)
{
  char path[64];
  int saved_errno;
  GPid tgid = pid;
  int fd;

  if (procwatch_proc_read_tgid (pid, &tgid) && tgid != pid)
    g_snprintf (path, sizeof path, "/proc/%d/task/%d", (int) tgid, (int) pid);
  else
    g_snprintf (path, sizeof path, "/proc/%d", (int) pid);

  fd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0)
    return fd;

  saved_errno = errno;

  if (saved_errno == ENOENT && process_exists (pid))
    {
      /* hidepid: the process is there, /proc will not show it to us. */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   "Cannot watch process %d: /proc hides it from this user (hidepid)",
                   (int) pid);
      return -1;
    }

  if (saved_errno == ENOENT || saved_errno == ESRCH)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "Cannot watch process %d: no such process", (int) pid);
      return -1;
    }

  g_set_error (error, G_IO_ERROR,
               (saved_errno == EMFILE || saved_errno == ENFILE)
                 ? G_IO_ERROR_TOO_MANY_OPEN_FILES : g_io_error_from_errno (saved_errno),
               "Cannot watch process %d: cannot open %s: %s",
               (int) pid, path, g_strerror (saved_errno));
  return -1;
}
