/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include "procwatch-i18n-private.h"
#include "procwatch-process-private.h"
#include "procwatch-watch-private.h"
#include "procwatch-linux-private.h"

typedef struct
{
  ProcwatchWatch *watch;
  GSource *cancelled_source;

  /* Why watching stopped before the exit was seen, for a wait that is
   * settled later; NULL if the exit was seen. */
  const char *stopped_reason;
} WaitData;

static void
watch_clear (ProcwatchWatch *watch)
{
  procwatch_handle_close (&watch->handle);
  g_clear_object (&watch->process);
}

/* Takes @handle. */
ProcwatchWatch *
procwatch_watch_new (const ProcwatchBackend *backend,
                     gpointer                owner,
                     ProcwatchHandle        *handle)
{
  ProcwatchWatch *watch = g_rc_box_new0 (ProcwatchWatch);
  g_autofree char *name = procwatch_handle_read_name (backend, handle);

  watch->handle = *handle;
  watch->backend = backend;
  watch->owner = owner;
  watch->process = procwatch_process_new (handle->pid, handle->inode, name);
  watch->watched = TRUE;
  watch->probe.data = watch;
  g_queue_init (&watch->waits);
  procwatch_process_set_watch (watch->process, watch);

  return watch;
}

ProcwatchWatch *
procwatch_watch_ref (ProcwatchWatch *watch)
{
  return g_rc_box_acquire (watch);
}

void
procwatch_watch_unref (ProcwatchWatch *watch)
{
  g_rc_box_release_full (watch, (GDestroyNotify) watch_clear);
}

/* The process object stops being a way to reach the watch. */
void
procwatch_watch_stopped (ProcwatchWatch *watch)
{
  watch->watched = FALSE;
  procwatch_process_set_watch (watch->process, NULL);
}

static void
wait_data_free (WaitData *data)
{
  g_clear_pointer (&data->cancelled_source, g_source_unref);
  procwatch_watch_unref (data->watch);
  g_free (data);
}

/* Takes the wait out of the cancellable's reach: its source holds the task. */
static GTask *
pop_wait (ProcwatchWatch *watch)
{
  GTask *task = g_queue_pop_head (&watch->waits);
  WaitData *data;

  if (task == NULL)
    return NULL;

  data = g_task_get_task_data (task);
  if (data->cancelled_source != NULL)
    g_source_destroy (data->cancelled_source);

  return task;
}

static gboolean
on_wait_cancelled (GCancellable *cancellable,
                   gpointer      user_data)
{
  GTask *task = user_data;
  WaitData *data = g_task_get_task_data (task);

  if (g_queue_remove (&data->watch->waits, task))
    {
      g_task_return_error_if_cancelled (task);
      g_object_unref (task);
    }

  return G_SOURCE_REMOVE;
}

/* Queues @task until the process exits; it returns the process object. */
void
procwatch_watch_add_wait (ProcwatchWatch *watch,
                          GTask          *task)
{
  GCancellable *cancellable = g_task_get_cancellable (task);
  WaitData *data = g_new0 (WaitData, 1);

  data->watch = procwatch_watch_ref (watch);
  g_task_set_task_data (task, data, (GDestroyNotify) wait_data_free);

  if (cancellable != NULL)
    {
      data->cancelled_source = g_cancellable_source_new (cancellable);
      g_task_attach_source (task, data->cancelled_source, G_SOURCE_FUNC (on_wait_cancelled));
    }

  g_queue_push_tail (&watch->waits, g_object_ref (task));
}

/* From a dispatch, once the exit has been seen. Returns false, leaving the
 * rest, if a callback disposed the monitor (*@alive false). */
gboolean
procwatch_watch_complete_waits (ProcwatchWatch *watch,
                                gboolean       *alive)
{
  GTask *task;

  while (*alive && (task = pop_wait (watch)) != NULL)
    {
      g_task_return_pointer (task, g_object_ref (watch->process), g_object_unref);
      g_object_unref (task);
    }

  return *alive;
}

static gboolean
settle_wait (gpointer user_data)
{
  GTask *task = user_data;
  WaitData *data = g_task_get_task_data (task);

  if (data->stopped_reason == NULL)
    g_task_return_pointer (task, g_object_ref (data->watch->process), g_object_unref);
  else
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                             /* Translators: %s says why, such as "the monitor was closed". */
                             _("Stopped waiting for process %d: %s"),
                             (int) data->watch->handle.pid, _(data->stopped_reason));

  return G_SOURCE_REMOVE;
}

/* Watching stops inside a call the application made (unwatch, close,
 * dispose), possibly from a dispatch in the waits' context, where
 * g_task_return_*() would run their callbacks at once: they are settled
 * from an idle instead, once that call has returned. A process whose exit
 * was seen has exited, whoever stopped watching it since. */
void
procwatch_watch_settle_waits_later (ProcwatchWatch *watch,
                                    const char     *reason)
{
  gboolean exited = procwatch_process_get_state (watch->process) != PROCWATCH_PROCESS_STATE_RUNNING;
  GTask *task;

  while ((task = pop_wait (watch)) != NULL)
    {
      WaitData *data = g_task_get_task_data (task);
      g_autoptr(GSource) idle = g_idle_source_new ();

      data->stopped_reason = exited ? NULL : reason;
      g_source_set_static_name (idle, "[gio-procwatch] settle wait");
      g_task_attach_source (task, idle, settle_wait);
      g_object_unref (task);
    }
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
pidfd_is_readable (int pidfd)
{
  struct pollfd pfd = { pidfd, POLLIN, 0 };

  return poll (&pfd, 1, 0) == 1 && (pfd.revents & (POLLIN | POLLHUP)) != 0;
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
      if (pidfd_is_readable (pidfd))
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
