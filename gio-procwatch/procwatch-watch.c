/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <signal.h>
#include <unistd.h>

#include "procwatch-i18n-private.h"
#include "procwatch-watch-private.h"
#include "procwatch-linux-private.h"
#include "procwatch-self-private.h"

gboolean
procwatch_watch_owner_is_forked_copy (const ProcwatchWatchOwner *owner)
{
  return procwatch_self_pid () != owner->creator_pid;
}

gboolean
procwatch_watch_owner_check (const ProcwatchWatchOwner  *owner,
                             GError                    **error)
{
  if (!procwatch_watch_owner_is_forked_copy (owner))
    return TRUE;

  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CLOSED,
                       _("The process monitor belongs to the parent of this forked process"));
  return FALSE;
}

/* Takes @handle and @process, the object handed out for it. */
ProcwatchWatch *
procwatch_watch_new (const ProcwatchBackend *backend,
                     ProcwatchWatchOwner    *owner,
                     ProcwatchHandle        *handle,
                     ProcwatchProcess       *process)
{
  ProcwatchWatch *watch = g_new0 (ProcwatchWatch, 1);

  g_ref_count_init (&watch->ref_count);
  watch->entry.kind = PROCWATCH_SOURCE_ENTRY_PROCESS;
  watch->handle = *handle;
  watch->backend = backend;
  watch->owner = owner;
  watch->process = process;
  watch->watched = TRUE;
  watch->probe.data = watch;

  return watch;
}

ProcwatchWatch *
procwatch_watch_ref (ProcwatchWatch *watch)
{
  g_ref_count_inc (&watch->ref_count);
  return watch;
}

void
procwatch_watch_unref (ProcwatchWatch *watch)
{
  if (g_ref_count_dec (&watch->ref_count))
    {
      procwatch_handle_close (&watch->handle);
      g_clear_object (&watch->process);
      g_free (watch);
    }
}

/* Queues @task until the process exits; it returns the process object. */
void
procwatch_watch_add_wait (ProcwatchWatch *watch,
                          GTask          *task)
{
  procwatch_waits_add (&watch->waits, task, procwatch_watch_ref (watch),
                       (GDestroyNotify) procwatch_watch_unref);
}

/* The oldest wait, for the dispatch to complete once the exit has been
 * seen; NULL when there is none. */
GTask *
procwatch_watch_pop_wait (ProcwatchWatch *watch)
{
  return procwatch_waits_pop (&watch->waits);
}

/* Whether the process can be acted on through @watch: in a forked copy of
 * the monitor, it cannot (see the monitor's class doc). */
gboolean
procwatch_watch_is_reachable (ProcwatchWatch  *watch,
                              GError         **error)
{
  return procwatch_watch_owner_check (watch->owner, error);
}

/* From inside a call of the application: see procwatch_waits_settle_later().
 * A process whose exit was seen has exited, whoever stopped watching it
 * since. */
void
procwatch_watch_settle_waits_later (ProcwatchWatch *watch,
                                    const char     *reason,
                                    gboolean        exited)
{
  g_autofree char *message = NULL;

  /* Usually none: this runs at every reap. */
  if (watch->waits.tasks == NULL)
    return;

  if (!exited)
    message = g_strdup_printf (/* Translators: %s says why, such as "the monitor was closed". */
                               _("Stopped waiting for process %d: %s"),
                               (int) watch->handle.pid, _(reason));
  procwatch_waits_settle_later (&watch->waits, exited ? G_OBJECT (watch->process) : NULL, message);
}

int
procwatch_watch_dup_pidfd (ProcwatchWatch  *watch,
                           GError         **error)
{
  int pidfd = procwatch_handle_get_pidfd (watch->backend, &watch->handle);
  int saved_errno;
  int fd;

  if (pidfd < 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   /* Translators: %s is the name of a backend: procfs or poll. */
                   _("Process %d has no pidfd: the %s backend watches it through /proc"),
                   (int) watch->handle.pid, watch->backend->name);
      return -1;
    }

  fd = fcntl (pidfd, F_DUPFD_CLOEXEC, 3);
  if (fd >= 0)
    return fd;

  saved_errno = errno;
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
               _("Cannot duplicate the pidfd of process %d: %s"),
               (int) watch->handle.pid, g_strerror (saved_errno));
  return -1;
}

static gboolean
set_exited_error (ProcwatchWatch  *watch,
                  GError         **error)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
               _("Cannot signal process %d: it has exited"), (int) watch->handle.pid);
  return FALSE;
}

/* A pidfd names one process for its whole life, so the signal cannot reach
 * a process that reused the pid. Without one, the pid is checked to still
 * be the watched process's just before kill(): the process could still be
 * reaped, and its pid reused, in between (documented). */
gboolean
procwatch_watch_send_signal (ProcwatchWatch  *watch,
                             int              signum,
                             GError         **error)
{
  const ProcwatchBackend *backend = watch->backend;
  int pidfd = procwatch_handle_get_pidfd (backend, &watch->handle);
  int saved_errno;
  int result;

  if (pidfd >= 0)
    {
      /* The kernel accepts signals for zombies: an exit we have not
       * handled yet is still an exit. */
      if (procwatch_fd_poll (pidfd) & (EPOLLIN | EPOLLHUP))
        return set_exited_error (watch, error);

      result = procwatch_pidfd_send_signal (pidfd, signum, NULL, 0);
    }
  else
    {
      if (backend->read_state (backend, &watch->handle, 0) != PROCWATCH_PROCESS_STATE_RUNNING)
        return set_exited_error (watch, error);

      result = kill (watch->handle.pid, signum);
    }

  if (result == 0)
    return TRUE;

  saved_errno = errno;
  if (saved_errno == ESRCH)
    return set_exited_error (watch, error);

  /* pidfd_send_signal() also says EINVAL for a valid signal when the
   * process lives outside the caller's pid namespace (in an ancestor's):
   * the caller may not signal it, which is not a bad argument. */
  if (saved_errno == EINVAL && signum >= 0 && signum < NSIG)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   "Cannot send signal %d to process %d: it is outside this pid namespace",
                   signum, (int) watch->handle.pid);
      return FALSE;
    }

  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
               _("Cannot send signal %d to process %d: %s"),
               signum, (int) watch->handle.pid, g_strerror (saved_errno));
  return FALSE;
}
