/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The procfs backend, for kernels with "Make task directories in /proc
 * pollable" (a 2012 patch, never merged upstream): a /proc/<pid> directory
 * fd polls POLLIN once its task is dead and adds POLLERR once it is reaped.
 * Feature detection is the patch's own: on such a kernel /proc/self, a live
 * task, does not poll readable; elsewhere directories always do.
 *
 * No mainline kernel has the feature, so this backend never runs on one; its
 * decisions are kept in two pure functions that the tests check directly.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <gio/gio.h>

#include "procwatch-backend-private.h"
#include "procwatch-i18n-private.h"
#include "procwatch-proc-files-private.h"
#include "procwatch-proc-entry-private.h"

gboolean
procwatch_procfs_supported_by (short proc_self_revents)
{
  return (proc_self_revents & (POLLIN | POLLRDNORM)) == 0 &&
         (proc_self_revents & (POLLERR | POLLNVAL)) == 0;
}

ProcwatchProcessState
procwatch_procfs_state_from_revents (guint32 revents)
{
  if (revents & EPOLLERR)
    return PROCWATCH_PROCESS_STATE_REAPED;

  if (revents & (EPOLLIN | EPOLLRDNORM))
    return PROCWATCH_PROCESS_STATE_EXITED;

  return PROCWATCH_PROCESS_STATE_RUNNING;
}

static gboolean
procfs_is_supported (GError **error)
{
  struct pollfd pfd;
  int epoll_fd;
  int fd;
  int ret;

  fd = open ("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   /* Translators: %s is the system's error message. */
                   _("cannot open /proc/self: %s"), g_strerror (saved_errno));
      return FALSE;
    }

  pfd.fd = fd;
  pfd.events = POLLIN;
  pfd.revents = 0;
  ret = poll (&pfd, 1, 0);

  if (ret < 0 || !procwatch_procfs_supported_by (ret == 0 ? 0 : pfd.revents))
    {
      close (fd);
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("/proc directories of live processes poll readable: "
                             "this kernel lacks pollable /proc directories"));
      return FALSE;
    }

  /* epoll takes only files that implement poll. */
  epoll_fd = epoll_create1 (EPOLL_CLOEXEC);
  ret = -1;
  if (epoll_fd >= 0)
    {
      struct epoll_event event = { .events = EPOLLIN };

      ret = epoll_ctl (epoll_fd, EPOLL_CTL_ADD, fd, &event);
      close (epoll_fd);
    }
  close (fd);

  if (ret < 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("/proc directories cannot be added to epoll"));
      return FALSE;
    }

  return TRUE;
}

static guint32
procfs_events_for (const ProcwatchBackend *backend,
                   ProcwatchProcessState   state)
{
  /* Once dead, the directory stays readable: only POLLERR, always
   * reported, is news. */
  return state == PROCWATCH_PROCESS_STATE_RUNNING ? EPOLLIN : 0;
}

static gboolean
procfs_needs_probe (const ProcwatchBackend *backend,
                    ProcwatchProcessState   state)
{
  return FALSE;
}

static ProcwatchProcessState
procfs_read_state (const ProcwatchBackend *backend,
                   const ProcwatchHandle  *handle,
                   guint32                 revents)
{
  ProcwatchProcessState state;

  if (handle->fd < 0)
    return PROCWATCH_PROCESS_STATE_REAPED;

  if (revents == 0 || (revents & PROCWATCH_PROBE_EXITED))
    revents = procwatch_handle_poll (handle);

  state = procwatch_procfs_state_from_revents (revents);

  /* The patch reports a dead group leader even while other threads of the
   * process live on; the process has exited only when all have. */
  if (state == PROCWATCH_PROCESS_STATE_EXITED &&
      procwatch_proc_read_task_state_at (handle->fd) == PROCWATCH_PROCESS_STATE_RUNNING)
    return PROCWATCH_PROCESS_STATE_RUNNING;

  return state;
}

/* Exits and reaps are events (POLLIN, POLLERR), and a thread has a /proc
 * directory of its own to hold; the rest needs pidfds, which this backend
 * holds only for processes watched through one. */
static ProcwatchFeatures
procfs_probe_features (const ProcwatchBackend *backend)
{
  return PROCWATCH_FEATURES_REAP_EVENT | PROCWATCH_FEATURES_THREADS;
}

const ProcwatchBackend procwatch_backend_procfs = {
  .name = "procfs",
  .is_supported = procfs_is_supported,
  .handles_pollable = TRUE,
  .probe_min_interval = 10 * G_TIME_SPAN_MILLISECOND,
  .probe_max_interval = 1000 * G_TIME_SPAN_MILLISECOND,
  .open_pid = procwatch_proc_entry_open_pid,
  .open_pidfd = procwatch_proc_entry_open_pidfd,
  .events_for = procfs_events_for,
  .needs_probe = procfs_needs_probe,
  .read_state = procfs_read_state,
  .read_status = procwatch_proc_entry_read_status,
  .probe_features = procfs_probe_features,
};
