/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The pidfd backend (Linux 5.3+). A pidfd pins its process: it never refers
 * to a later process that reuses the pid. It polls readable once the process
 * has exited and, from Linux 6.9 on, also hangs up once it has been reaped.
 * Before 6.9 a reap raises no event, so it is probed for: signal 0 sent
 * through the pidfd fails with ESRCH once the process is gone.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gio.h>

#include "procwatch-backend-private.h"
#include "procwatch-linux-private.h"
#include "procwatch-proc-files-private.h"

static gboolean reap_raises_hup;
static gboolean pidfs_present;

static const GDebugKey debug_keys[] = {
  { "no-pollhup", 1 },
};

static gboolean
fd_is_on_pidfs (int fd)
{
  struct statfs fs;

  return fstatfs (fd, &fs) == 0 && fs.f_type == PIDFS_MAGIC;
}

/* Starts a child that exits at once, reaps it and looks at what its pidfd
 * then polls. The child has no exit signal, so neither SIGCHLD handlers nor
 * waitpid (-1, ...) in the application can notice it. */
static gboolean
probe_reap_raises_hup (gboolean *answered)
{
  struct procwatch_clone_args args;
  struct pollfd pfd;
  int pidfd = -1;
  pid_t child;
  int ret;

  memset (&args, 0, sizeof args);
  args.flags = CLONE_PIDFD | CLONE_VFORK;
  args.pidfd = (guint64) (guintptr) &pidfd;
  args.exit_signal = 0;

  child = (pid_t) syscall (SYS_clone3, &args, sizeof args);
  if (child == 0)
    _exit (0);

  *answered = child > 0;
  if (child < 0)
    return FALSE;

  do
    ret = waitpid (child, NULL, __WALL);
  while (ret < 0 && errno == EINTR);

  pfd.fd = pidfd;
  pfd.events = POLLIN;
  pfd.revents = 0;
  ret = poll (&pfd, 1, 0);
  close (pidfd);

  return ret == 1 && (pfd.revents & POLLHUP) != 0;
}

static gboolean
pidfd_probe (GError **error)
{
  const char *debug = g_getenv ("PROCWATCH_DEBUG");
  gboolean answered = FALSE;
  int fd;

  fd = procwatch_pidfd_open (getpid (), 0);
  if (fd < 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "pidfd_open() fails: %s", g_strerror (saved_errno));
      return FALSE;
    }

  pidfs_present = fd_is_on_pidfs (fd);
  close (fd);

  reap_raises_hup = probe_reap_raises_hup (&answered);

  /* Where clone3 is filtered out (some container profiles), pidfs, which came
   * with the same kernel release as the hang-up, stands in for the answer. */
  if (!answered)
    reap_raises_hup = pidfs_present;

  if (debug != NULL && g_parse_debug_string (debug, debug_keys, G_N_ELEMENTS (debug_keys)) & 1)
    reap_raises_hup = FALSE;

  g_debug ("pidfd backend: pidfs %s, reaping %s",
           pidfs_present ? "present" : "absent",
           reap_raises_hup ? "raises POLLHUP" : "is probed for");

  return TRUE;
}

static gboolean
fill_handle (int              fd,
             GPid             pid,
             ProcwatchHandle *handle)
{
  struct stat st;

  handle->fd = fd;
  handle->pid = pid;
  handle->inode = 0;

  if (pidfs_present && sizeof st.st_ino >= sizeof (guint64) && fstat (fd, &st) == 0)
    handle->inode = st.st_ino;

  return TRUE;
}

static gboolean
pidfd_open_pid (const ProcwatchBackend  *backend,
                GPid                     pid,
                ProcwatchHandle         *handle,
                GError                 **error)
{
  int saved_errno;
  GPid tgid = 0;
  int fd;

  fd = procwatch_pidfd_open (pid, 0);
  if (fd >= 0)
    return fill_handle (fd, pid, handle);

  saved_errno = errno;

  /* A thread that does not lead its thread group: ENOENT since Linux 6.9,
   * EINVAL before. It is watched through a thread pidfd (Linux 6.9+). */
  if (saved_errno == ENOENT || saved_errno == EINVAL)
    {
      fd = procwatch_pidfd_open (pid, PIDFD_THREAD);
      if (fd >= 0)
        return fill_handle (fd, pid, handle);

      if (errno == EINVAL && procwatch_proc_read_tgid (pid, &tgid) && tgid != pid)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                       "Cannot watch thread %d of process %d: watching a thread "
                       "needs Linux 6.9 (PIDFD_THREAD)", (int) pid, (int) tgid);
          return FALSE;
        }

      if (saved_errno == ENOENT)
        saved_errno = ESRCH;
    }

  if (saved_errno == ESRCH)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "Cannot watch process %d: no such process", (int) pid);
      return FALSE;
    }

  procwatch_set_error_from_errno (error, saved_errno, pid, "pidfd_open");
  return FALSE;
}

static gboolean
pidfd_open_pidfd (const ProcwatchBackend  *backend,
                  int                      pidfd,
                  ProcwatchHandle         *handle,
                  GError                 **error)
{
  GPid pid = 0;
  int fd;

  fd = procwatch_pidfd_dup (pidfd, &pid, error);
  if (fd < 0)
    return FALSE;

  return fill_handle (fd, pid, handle);
}

static guint32
pidfd_events_for (const ProcwatchBackend *backend,
                  ProcwatchProcessState   state)
{
  /* Once exited, the pidfd stays readable: only the hang-up is news. */
  return state == PROCWATCH_PROCESS_STATE_RUNNING ? EPOLLIN : 0;
}

static gboolean
pidfd_needs_probe (const ProcwatchBackend *backend,
                   ProcwatchProcessState   state)
{
  return state == PROCWATCH_PROCESS_STATE_EXITED && !reap_raises_hup;
}

static guint32
poll_now (int fd)
{
  struct pollfd pfd = { fd, POLLIN, 0 };

  if (poll (&pfd, 1, 0) != 1)
    return 0;

  return (pfd.revents & POLLIN ? EPOLLIN : 0) | (pfd.revents & POLLHUP ? EPOLLHUP : 0);
}

static ProcwatchProcessState
pidfd_read_state (const ProcwatchBackend *backend,
                  const ProcwatchHandle  *handle,
                  guint32                 revents)
{
  if (!reap_raises_hup)
    {
      /* Events are hints only: a hang-up, if the kernel sends one anyway,
       * comes without EPOLLIN once exited. Ask the kernel. */
      if (procwatch_pidfd_is_reaped (handle->fd))
        return PROCWATCH_PROCESS_STATE_REAPED;

      revents = poll_now (handle->fd);
    }
  else if (revents == 0)
    {
      revents = poll_now (handle->fd);
    }

  if (revents & EPOLLHUP)
    return PROCWATCH_PROCESS_STATE_REAPED;

  if (revents & EPOLLIN)
    return PROCWATCH_PROCESS_STATE_EXITED;

  return PROCWATCH_PROCESS_STATE_RUNNING;
}

static gboolean
read_child_status (const ProcwatchBackend *backend,
                   const ProcwatchHandle  *handle,
                   int                    *wait_status)
{
  siginfo_t info;

  /* WNOWAIT: the process stays a zombie for whoever reaps it. */
  memset (&info, 0, sizeof info);
  if (waitid (P_PIDFD, handle->fd, &info, WEXITED | WNOWAIT | WNOHANG | __WALL) < 0)
    {
      /* Linux 5.3 has pidfds but no P_PIDFD. */
      return errno == EINVAL && procwatch_read_child_status (backend, handle, wait_status);
    }

  if (info.si_pid == 0)
    return FALSE;

  *wait_status = procwatch_wait_status_from_siginfo (&info);
  return *wait_status != -1;
}

static gboolean
read_exit_info (const ProcwatchHandle *handle,
                int                   *wait_status)
{
  struct procwatch_pidfd_info info;

  /* Zeroed in full: the kernel reads the mask and checks the rest. */
  memset (&info, 0, sizeof info);
  info.mask = PIDFD_INFO_EXIT;

  if (ioctl (handle->fd, PROCWATCH_PIDFD_GET_INFO, &info) < 0 ||
      (info.mask & PIDFD_INFO_EXIT) == 0)
    return FALSE;

  *wait_status = info.exit_code;
  return TRUE;
}

static gboolean
pidfd_read_status (const ProcwatchBackend *backend,
                   const ProcwatchHandle  *handle,
                   ProcwatchProcessState   state,
                   int                    *wait_status)
{
  switch (state)
    {
    case PROCWATCH_PROCESS_STATE_EXITED:
      return read_child_status (backend, handle, wait_status);

    case PROCWATCH_PROCESS_STATE_REAPED:
      return read_exit_info (handle, wait_status);

    case PROCWATCH_PROCESS_STATE_RUNNING:
    default:
      return FALSE;
    }
}

const ProcwatchBackend procwatch_backend_pidfd = {
  .name = "pidfd",
  .probe = pidfd_probe,
  .handles_pollable = TRUE,
  .probe_min_interval = 1 * G_TIME_SPAN_MILLISECOND,
  .probe_max_interval = 500 * G_TIME_SPAN_MILLISECOND,
  .open_pid = pidfd_open_pid,
  .open_pidfd = pidfd_open_pidfd,
  .events_for = pidfd_events_for,
  .needs_probe = pidfd_needs_probe,
  .read_state = pidfd_read_state,
  .read_status = pidfd_read_status,
};
