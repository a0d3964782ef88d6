/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The poll backend, for kernels with neither pidfds nor pollable /proc
 * directories. The handle is the process's /proc/<pid>/stat file, opened at
 * watch time: it pins the process, as reading it fails with ESRCH once the
 * process is reaped, even after the pid has been reused. (A pid and its
 * start time do not: a reused pid often gets the same start time.) Keeping
 * the file open, rather than the directory, lets a probe work without a
 * spare fd, also when the fd table is full.
 *
 * A probe is one pread() of that file. Most short-lived processes die
 * young, so a process is probed every 2 ms for the first second after it
 * was watched or changed state (fewer times when many are young at once:
 * they share a budget), then less and less often, doubling up to once a
 * second for a long-lived one; probes due about the same time share a
 * wake-up (procwatch-probe-scheduler.c).
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <gio/gio.h>

#include "procwatch-backend-private.h"
#include "procwatch-i18n-private.h"
#include "procwatch-proc-files-private.h"
#include "procwatch-proc-entry-private.h"

static gboolean
poll_is_supported (GError **error)
{
  int fd = open ("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  int state = fd >= 0 ? procwatch_proc_read_task_state (fd) : -1;

  if (fd >= 0)
    close (fd);

  if (state != PROCWATCH_PROCESS_STATE_RUNNING)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("/proc/self/stat cannot be read: is /proc mounted?"));
      return FALSE;
    }

  return TRUE;
}

/* Swaps the directory fd of @handle for its stat file. */
static gboolean
open_stat_file (ProcwatchHandle  *handle,
                GError          **error)
{
  int stat_fd;

  if (handle->fd < 0)
    return TRUE;

  stat_fd = openat (handle->fd, "stat", O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (stat_fd < 0)
    {
      int saved_errno = errno;

      if (saved_errno == ESRCH || saved_errno == ENOENT)
        {
          /* Reaped meanwhile: it reads as reaped. */
          close (handle->fd);
          handle->fd = -1;
          return TRUE;
        }

      procwatch_handle_close (handle);
      procwatch_set_error_from_errno (error, saved_errno, handle->pid, "cannot open its stat file");
      return FALSE;
    }

  close (handle->fd);
  handle->fd = stat_fd;
  return TRUE;
}

static gboolean
poll_open_pid (const ProcwatchBackend  *backend,
               GPid                     pid,
               ProcwatchHandle         *handle,
               GError                 **error)
{
  return procwatch_proc_entry_open_pid (backend, pid, handle, error) &&
         open_stat_file (handle, error);
}

static gboolean
poll_open_pidfd (const ProcwatchBackend  *backend,
                 int                      pidfd,
                 ProcwatchHandle         *handle,
                 GError                 **error)
{
  return procwatch_proc_entry_open_pidfd (backend, pidfd, handle, error) &&
         open_stat_file (handle, error);
}

static guint32
poll_events_for (const ProcwatchBackend *backend,
                 ProcwatchProcessState   state)
{
  return 0;
}

static gboolean
poll_needs_probe (const ProcwatchBackend *backend,
                  ProcwatchProcessState   state)
{
  return TRUE;
}

static ProcwatchProcessState
poll_read_state (const ProcwatchBackend *backend,
                 const ProcwatchHandle  *handle,
                 guint32                 revents)
{
  int state;

  if (handle->fd < 0)
    return PROCWATCH_PROCESS_STATE_REAPED;

  state = procwatch_proc_read_task_state (handle->fd);

  /* Unreadable for another reason: nothing is known, nothing changes. */
  return state < 0 ? PROCWATCH_PROCESS_STATE_RUNNING : state;
}

/* A thread has a /proc directory of its own to hold; everything is probed
 * on a timer, and pidfds are held only for processes watched through one. */
static ProcwatchFeatures
poll_probe_features (const ProcwatchBackend *backend)
{
  return PROCWATCH_FEATURES_THREADS;
}

const ProcwatchBackend procwatch_backend_poll = {
  .name = "poll",
  .is_supported = poll_is_supported,
  .handles_pollable = FALSE,
  .probe_min_interval = 10 * G_TIME_SPAN_MILLISECOND,
  .probe_max_interval = 1000 * G_TIME_SPAN_MILLISECOND,
  .probe_young_interval = 2 * G_TIME_SPAN_MILLISECOND,
  .probe_young_period = 1000 * G_TIME_SPAN_MILLISECOND,
  .open_pid = poll_open_pid,
  .open_pidfd = poll_open_pidfd,
  .events_for = poll_events_for,
  .needs_probe = poll_needs_probe,
  .read_state = poll_read_state,
  .read_status = procwatch_proc_entry_read_status,
  .probe_features = poll_probe_features,
};
