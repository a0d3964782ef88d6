/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gio.h>

#include "procwatch-backend-private.h"
#include "procwatch-linux-private.h"
#include "procwatch-proc-files-private.h"

/* In the order they are tried: the first that works on this kernel wins. */
static const ProcwatchBackend *const backends[] = {
  &procwatch_backend_pidfd,
  &procwatch_backend_procfs,
  &procwatch_backend_poll,
};

static const ProcwatchBackend *
find_backend (const char *name)
{
  gsize i;

  for (i = 0; i < G_N_ELEMENTS (backends); i++)
    if (g_strcmp0 (backends[i]->name, name) == 0)
      return backends[i];

  return NULL;
}

/* The backend named @forced if it works here, else the first that does;
 * NULL if none does. A @forced name that cannot be honoured is warned about:
 * it is a setting somebody made on purpose. */
const ProcwatchBackend *
procwatch_backend_choose (const char *forced)
{
  gsize i;

  if (forced != NULL && *forced != '\0')
    {
      const ProcwatchBackend *backend = find_backend (forced);
      g_autoptr(GError) error = NULL;

      if (backend == NULL)
        g_warning ("PROCWATCH_BACKEND=%s names no backend (known: pidfd, procfs, poll); "
                   "choosing one automatically", forced);
      else if (!backend->probe (&error))
        g_warning ("PROCWATCH_BACKEND=%s is not available: %s; choosing one automatically",
                   forced, error->message);
      else
        return backend;
    }

  for (i = 0; i < G_N_ELEMENTS (backends); i++)
    {
      g_autoptr(GError) error = NULL;

      if (backends[i]->probe (&error))
        return backends[i];

      g_debug ("Backend %s is not available: %s", backends[i]->name, error->message);
    }

  return NULL;
}

/* The backend for this process, chosen once, at first use. */
const ProcwatchBackend *
procwatch_backend_get_default (void)
{
  static const ProcwatchBackend *backend;
  static gsize initialized;

  if (g_once_init_enter (&initialized))
    {
      backend = procwatch_backend_choose (g_getenv ("PROCWATCH_BACKEND"));
      g_once_init_leave (&initialized, 1);
    }

  return backend;
}

/* Whether @newer, opened after @older, refers to the same process. A pid
 * cannot be reused before its process is reaped, so without pidfs inodes it
 * is enough that @older still is not reaped now that @newer is open. */
gboolean
procwatch_backend_same_process (const ProcwatchBackend *backend,
                                const ProcwatchHandle  *older,
                                const ProcwatchHandle  *newer)
{
  if (older->inode != 0 && newer->inode != 0)
    return older->inode == newer->inode;

  return older->pid == newer->pid &&
         older->pid > 0 &&
         backend->read_state (backend, older, 0) != PROCWATCH_PROCESS_STATE_REAPED;
}

void
procwatch_handle_close (ProcwatchHandle *handle)
{
  if (handle->fd >= 0)
    close (handle->fd);

  handle->fd = -1;
}

void
procwatch_set_error_from_errno (GError     **error,
                                int          saved_errno,
                                GPid         pid,
                                const char  *what)
{
  GIOErrorEnum code;

  switch (saved_errno)
    {
    case ESRCH:
    case ENOENT:
      code = G_IO_ERROR_NOT_FOUND;
      break;

    case EMFILE:
    case ENFILE:
      code = G_IO_ERROR_TOO_MANY_OPEN_FILES;
      break;

    case ENOSYS:
      code = G_IO_ERROR_NOT_SUPPORTED;
      break;

    default:
      code = g_io_error_from_errno (saved_errno);
      break;
    }

  g_set_error (error, G_IO_ERROR, code,
               "Cannot watch process %d: %s: %s",
               (int) pid, what, g_strerror (saved_errno));
}

/* The waitpid()-style status of what waitid() reported, or -1 if the
 * report is not of a terminated process. */
int
procwatch_wait_status_from_siginfo (const siginfo_t *info)
{
  switch (info->si_code)
    {
    case CLD_EXITED:
      return (info->si_status & 0xff) << 8;

    case CLD_KILLED:
      return info->si_status & 0x7f;

    case CLD_DUMPED:
      return (info->si_status & 0x7f) | WCOREFLAG;

    default:
      return -1;
    }
}

/* The status of a zombie child, peeked at by pid number. That is safe only
 * while our handle shows the process unreaped: until then the pid is its. */
gboolean
procwatch_read_child_status (const ProcwatchBackend *backend,
                             const ProcwatchHandle  *handle,
                             int                    *wait_status)
{
  siginfo_t info;

  if (handle->pid <= 0)
    return FALSE;

  /* WNOWAIT: the process stays a zombie for whoever reaps it (GSubprocess,
   * g_child_watch_add or the application itself). */
  memset (&info, 0, sizeof info);
  if (waitid (P_PID, handle->pid, &info, WEXITED | WNOWAIT | WNOHANG | __WALL) < 0 ||
      info.si_pid == 0)
    return FALSE;

  if (backend->read_state (backend, handle, 0) == PROCWATCH_PROCESS_STATE_REAPED)
    return FALSE;

  *wait_status = procwatch_wait_status_from_siginfo (&info);
  return *wait_status != -1;
}

static gboolean
fd_is_pidfd (int fd)
{
  char path[64];
  char target[64];
  struct statfs fs;
  gssize length;

  if (fstatfs (fd, &fs) == 0 && fs.f_type == PIDFS_MAGIC)
    return TRUE;

  g_snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
  length = readlink (path, target, sizeof target - 1);
  if (length < 0)
    return FALSE;

  target[length] = '\0';
  return strcmp (target, "anon_inode:[pidfd]") == 0;
}

/* The pid a pidfd refers to: 0 once reaped, or when the process is in a pid
 * namespace we cannot see. */
static GPid
pid_of_pidfd (int fd)
{
  struct procwatch_pidfd_info info;
  GPid pid;

  memset (&info, 0, sizeof info);
  info.mask = PIDFD_INFO_PID;
  if (ioctl (fd, PROCWATCH_PIDFD_GET_INFO, &info) == 0 && (info.mask & PIDFD_INFO_PID) != 0)
    return (GPid) info.pid;

  if (procwatch_proc_read_fdinfo_pid (fd, &pid) && pid > 0)
    return pid;

  return 0;
}

/* Checks that @pidfd is a pidfd and returns a duplicate of it, or -1. */
int
procwatch_pidfd_dup (int      pidfd,
                     GPid    *pid,
                     GError **error)
{
  int saved_errno;
  int fd;

  if (pidfd < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "Cannot watch pidfd %d: not a file descriptor", pidfd);
      return -1;
    }

  fd = fcntl (pidfd, F_DUPFD_CLOEXEC, 3);
  if (fd < 0)
    {
      saved_errno = errno;
      if (saved_errno == EBADF)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                     "Cannot watch pidfd %d: the file descriptor is not open", pidfd);
      else
        g_set_error (error, G_IO_ERROR,
                     (saved_errno == EMFILE || saved_errno == ENFILE)
                       ? G_IO_ERROR_TOO_MANY_OPEN_FILES : g_io_error_from_errno (saved_errno),
                     "Cannot watch pidfd %d: %s", pidfd, g_strerror (saved_errno));
      return -1;
    }

  if (!fd_is_pidfd (fd))
    {
      close (fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "Cannot watch pidfd %d: the file descriptor is not a pidfd", pidfd);
      return -1;
    }

  *pid = pid_of_pidfd (fd);
  return fd;
}

/* Signal 0 fails with ESRCH once the process is gone, on every kernel with
 * pidfds; EPERM means it exists. */
gboolean
procwatch_pidfd_is_reaped (int pidfd)
{
  GPid pid;

  if (procwatch_pidfd_send_signal (pidfd, 0, NULL, 0) == 0)
    return FALSE;

  if (errno == ESRCH)
    return TRUE;

  if (errno == EPERM)
    return FALSE;

  /* Refused for some other reason (another pid namespace, a filter):
   * fdinfo says -1 once the process is reaped. */
  return procwatch_proc_read_fdinfo_pid (pidfd, &pid) && pid == -1;
}

gboolean
procwatch_procdir_open_pid (const ProcwatchBackend  *backend,
                            GPid                     pid,
                            ProcwatchHandle         *handle,
                            GError                 **error)
{
  int fd = procwatch_proc_open_task_dir (pid, error);

  if (fd < 0)
    return FALSE;

  handle->fd = fd;
  handle->pid = pid;
  handle->inode = 0;
  return TRUE;
}

/* The /proc directory of the process a pidfd refers to. The directory is
 * opened by pid number, then the pidfd is asked whether its process is still
 * unreaped: if so, the pid was still its, and the directory is. A process
 * reaped already gets no directory (fd -1): it reads as reaped. */
gboolean
procwatch_procdir_open_pidfd (const ProcwatchBackend  *backend,
                              int                      pidfd,
                              ProcwatchHandle         *handle,
                              GError                 **error)
{
  g_autoptr(GError) local_error = NULL;
  GPid pid = 0;
  int dup_fd;
  int fd = -1;

  dup_fd = procwatch_pidfd_dup (pidfd, &pid, error);
  if (dup_fd < 0)
    return FALSE;

  if (pid > 0)
    fd = procwatch_proc_open_task_dir (pid, &local_error);

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
                     "Cannot watch pidfd %d: its process is not visible in /proc here", pidfd);
      return FALSE;
    }

  close (dup_fd);

  handle->fd = fd;
  handle->pid = pid;
  handle->inode = 0;
  return TRUE;
}

gboolean
procwatch_procdir_read_status (const ProcwatchBackend *backend,
                               const ProcwatchHandle  *handle,
                               ProcwatchProcessState   state,
                               int                    *wait_status)
{
  /* Without a pidfd the kernel tells the status only to the parent. */
  return state == PROCWATCH_PROCESS_STATE_EXITED &&
         handle->fd >= 0 &&
         procwatch_read_child_status (backend, handle, wait_status);
}
