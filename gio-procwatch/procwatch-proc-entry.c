/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <gio/gio.h>

#include "procwatch-i18n-private.h"
#include "procwatch-proc-files-private.h"
#include "procwatch-proc-entry-private.h"

static gboolean
process_exists (GPid pid)
{
  return kill (pid, 0) == 0 || errno == EPERM;
}

/* Opens the /proc directory that pins the task @pid: /proc/<pid> for a
 * process, /proc/<tgid>/task/<pid> for a thread. */
static int
open_task_dir (GPid     pid,
               GError **error)
{
  g_autofree char *what = NULL;
  char path[64];
  gboolean own_proc = FALSE;
  int saved_errno;
  GPid tgid = pid;
  int fd;

  if (!procwatch_proc_is_own_pid_ns (&own_proc))
    {
      /* A chroot without /proc, or /proc unmounted since the backend was
       * chosen: watches work again once it is back. */
      if (errno == ENOENT)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                     _("Cannot watch process %d: /proc is not mounted"), (int) pid);
      else
        procwatch_set_error_from_errno (error, errno, pid, _("cannot read /proc/self/status"));
      return -1;
    }

  /* A /proc of another pid namespace (a process that made a new one and
   * kept its parent's /proc) shows another process under our pid number. */
  if (!own_proc)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("Cannot watch process %d: /proc belongs to another pid namespace"),
                   (int) pid);
      return -1;
    }

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
                   /* Translators: hidepid is the option of the proc file
                    * system that hides other users' processes. */
                   _("Cannot watch process %d: /proc hides it from this user (hidepid)"),
                   (int) pid);
      return -1;
    }

  if (saved_errno == ENOENT || saved_errno == ESRCH)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("Cannot watch process %d: no such process"), (int) pid);
      return -1;
    }

  /* Translators: %s is a path in /proc, such as /proc/42. */
  what = g_strdup_printf (_("cannot open %s"), path);
  procwatch_set_error_from_errno (error, saved_errno, pid, what);
  return -1;
}

gboolean
procwatch_proc_entry_open_pid (const ProcwatchBackend  *backend,
                                GPid                     pid,
                                ProcwatchHandle         *handle,
                                GError                 **error)
{
  int fd = open_task_dir (pid, error);
  guint64 inode;

  if (fd < 0)
    return FALSE;

  /* The pidfd is opened after the directory: it names the same process if
   * that process was still there after it, since a pid is reused only
   * once its process is reaped. */
  inode = procwatch_pidfd_inode_of_pid (pid);
  if (inode != 0 && procwatch_proc_read_task_state_at (fd) == PROCWATCH_PROCESS_STATE_REAPED)
    inode = 0;

  procwatch_handle_set (handle, fd, pid, inode);
  handle->inode_identity_only = TRUE;
  return TRUE;
}

/* The /proc directory of the process a pidfd refers to. The directory is
 * opened by pid number, then the pidfd is asked whether its process is still
 * unreaped: if so, the pid was still its, and the directory is. A process
 * reaped already gets no directory (fd -1): it reads as reaped. The pidfd is
 * kept too: it names the process (its pidfs inode), also once reaped, and
 * holds the status the kernel keeps after the reap. */
gboolean
procwatch_proc_entry_open_pidfd (const ProcwatchBackend  *backend,
                                  int                      pidfd,
                                  ProcwatchHandle         *handle,
                                  GError                 **error)
{
  g_autoptr(GError) local_error = NULL;
  guint64 inode = 0;
  GPid pid = 0;
  int dup_fd;
  int fd = -1;

  dup_fd = procwatch_pidfd_dup (pidfd, &pid, &inode, error);
  if (dup_fd < 0)
    return FALSE;

  if (pid > 0)
    fd = open_task_dir (pid, &local_error);

  if (procwatch_pidfd_is_reaped (dup_fd))
    {
      if (fd >= 0)
        close (fd);
      fd = -1;
    }
  else if (fd < 0)
    {
      close (dup_fd);
      if (local_error != NULL)
        g_propagate_error (error, g_steal_pointer (&local_error));
      else
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                     /* Translators: %d is a file descriptor number. */
                     _("Cannot watch pidfd %d: its process is not visible in /proc here"),
                     pidfd);
      return FALSE;
    }

  procwatch_handle_set (handle, fd, pid, inode);
  handle->pidfd = dup_fd;
  return TRUE;
}

gboolean
procwatch_proc_entry_read_status (const ProcwatchBackend *backend,
                                   const ProcwatchHandle  *handle,
                                   ProcwatchProcessState   state,
                                   int                    *wait_status)
{
  /* Without a pidfd the kernel tells the status only to the parent, and
   * only until the reap. */
  if (state == PROCWATCH_PROCESS_STATE_EXITED &&
      handle->fd >= 0 &&
      procwatch_read_child_status (backend, handle, P_PID, wait_status))
    return TRUE;

  return handle->pidfd >= 0 && procwatch_pidfd_read_exit_status (handle->pidfd, wait_status);
}
