/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <errno.h>
#include <unistd.h>

#include <gio/gio.h>

#include "procwatch-i18n-private.h"
#include "procwatch-self-private.h"
#include "procwatch-source-private.h"

/* Handles taken from the kernel per dispatch; more wait for the next
 * iteration, so one burst cannot starve the rest of the main loop. */
#define READY_BATCH 256

typedef struct
{
  GSource parent;

  int epoll_fd;
  gpointer epoll_tag;

  ProcwatchSourceReadyFunc ready_func;
  ProcwatchSourceTimerFunc timer_func;
  gpointer owner;

  /* Held while the owner is called: the owner's last reference may go in
   * another thread (a binding's garbage collector), whose dispose must wait
   * for a dispatch under way before it can tear the owner down. Recursive:
   * the owner may be disowned from inside its own callbacks. */
  GRecMutex owner_lock;

  /* A child forked without exec shares the epoll instance: its copy of the
   * source must neither take events from it nor call its copy of the owner. */
  pid_t creator_pid;

  /* The source may recurse as far as GLib knows, but never does: a nested
   * iteration of the context that reaches it while it dispatches (a handler
   * running a main loop) finds it hidden from then on, its epoll fd polled
   * for nothing and its timer off, until the dispatch under way returns.
   * That is GLib's blocking of a non-recursive source, paid only when a
   * handler does nest a loop: GLib blocks and unblocks such a source around
   * every dispatch, and the unblocking wakes the context for one more,
   * empty, iteration. */
  gboolean dispatching;
  gboolean hidden;
  gint64 hidden_ready_time;

  struct epoll_event ready[READY_BATCH];
} ProcwatchSource;

static void
hide (ProcwatchSource *self)
{
  GSource *source = (GSource *) self;

  if (self->epoll_tag != NULL)
    g_source_modify_unix_fd (source, self->epoll_tag, 0);
  if (!self->hidden)
    {
      self->hidden = TRUE;
      self->hidden_ready_time = g_source_get_ready_time (source);
      g_source_set_ready_time (source, -1);
    }
}

static void
show (ProcwatchSource *self)
{
  GSource *source = (GSource *) self;

  self->hidden = FALSE;
  if (g_source_is_destroyed (source))
    return;
  if (self->epoll_tag != NULL)
    g_source_modify_unix_fd (source, self->epoll_tag, G_IO_IN);
  g_source_set_ready_time (source, self->hidden_ready_time);
}

static gboolean
procwatch_source_dispatch (GSource     *source,
                           GSourceFunc  callback,
                           gpointer     user_data)
{
  ProcwatchSource *self = (ProcwatchSource *) source;
  gint64 ready_time = g_source_get_ready_time (source);
  gboolean timer_due;

  if (procwatch_self_pid () != self->creator_pid)
    return G_SOURCE_REMOVE;

  /* Reached again from a handler's nested main loop: epoll would hand over
   * the handles the dispatch under way is still working through. */
  if (self->dispatching)
    {
      hide (self);
      return G_SOURCE_CONTINUE;
    }
  self->dispatching = TRUE;

  /* GLib dispatches a source without a check function for its ready time
   * or for a polled fd with events: when the timer is not due, the epoll
   * fd is ready, and asking GLib again is not needed. */
  timer_due = ready_time >= 0 && g_source_get_time (source) >= ready_time;

  g_rec_mutex_lock (&self->owner_lock);

  if (self->owner != NULL && timer_due)
    {
      g_source_set_ready_time (source, -1);
      self->timer_func (self->owner);
    }

  /* The timer's handlers may have forked: a child goes no further (the
   * owner stopped its own dispatch at the fork). */
  if (self->owner != NULL && self->epoll_tag != NULL &&
      G_LIKELY (!timer_due || procwatch_self_pid () == self->creator_pid) &&
      (!timer_due || g_source_query_unix_fd (source, self->epoll_tag) & G_IO_IN))
    {
      int n;

      do
        n = epoll_wait (self->epoll_fd, self->ready, READY_BATCH, 0);
      while (n < 0 && errno == EINTR);

      if (n > 0)
        self->ready_func (self->owner, self->ready, n);
    }

  g_rec_mutex_unlock (&self->owner_lock);

  self->dispatching = FALSE;
  if (G_UNLIKELY (self->hidden))
    show (self);

  return G_SOURCE_CONTINUE;
}

static void
procwatch_source_finalize (GSource *source)
{
  ProcwatchSource *self = (ProcwatchSource *) source;

  if (self->epoll_fd >= 0)
    close (self->epoll_fd);
  g_rec_mutex_clear (&self->owner_lock);
}

static GSourceFuncs procwatch_source_funcs = {
  .dispatch = procwatch_source_dispatch,
  .finalize = procwatch_source_finalize,
};

/* Without @pollable handles the owner only probes: no epoll fd is made
 * (until procwatch_source_ensure_epoll()), so none is taken from a full fd
 * table. */
GSource *
procwatch_source_new (gboolean                   pollable,
                      ProcwatchSourceReadyFunc   ready_func,
                      ProcwatchSourceTimerFunc   timer_func,
                      gpointer                   owner,
                      GError                   **error)
{
  ProcwatchSource *self;

  self = (ProcwatchSource *) g_source_new (&procwatch_source_funcs, sizeof *self);
  g_source_set_static_name ((GSource *) self, "[gio-procwatch] process monitor");
  g_source_set_can_recurse ((GSource *) self, TRUE);

  self->epoll_fd = -1;
  self->ready_func = ready_func;
  self->timer_func = timer_func;
  self->owner = owner;
  self->creator_pid = procwatch_self_pid ();
  g_rec_mutex_init (&self->owner_lock);

  if (pollable && !procwatch_source_ensure_epoll ((GSource *) self, error))
    {
      g_source_unref ((GSource *) self);
      return NULL;
    }

  return (GSource *) self;
}

/* Makes the epoll fd if there is none yet: a source made without pollable
 * handles gets one once the owner has handles that must be polled after
 * all (cgroups). */
gboolean
procwatch_source_ensure_epoll (GSource  *source,
                               GError  **error)
{
  ProcwatchSource *self = (ProcwatchSource *) source;
  int epoll_fd;

  if (self->epoll_fd >= 0)
    return TRUE;

  epoll_fd = epoll_create1 (EPOLL_CLOEXEC);
  if (epoll_fd < 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   /* Translators: %s is the system's error message. */
                   _("Cannot create an epoll instance: %s"), g_strerror (saved_errno));
      return FALSE;
    }

  self->epoll_fd = epoll_fd;
  self->epoll_tag = g_source_add_unix_fd (source, epoll_fd, self->hidden ? 0 : G_IO_IN);
  return TRUE;
}

/* Keeps the owner from being called, in any thread, until released: a
 * dispatch under way in another thread is waited for. */
void
procwatch_source_lock_owner (GSource *source)
{
  g_rec_mutex_lock (&((ProcwatchSource *) source)->owner_lock);
}

void
procwatch_source_unlock_owner (GSource *source)
{
  g_rec_mutex_unlock (&((ProcwatchSource *) source)->owner_lock);
}

/* The owner is going away: it must never be called again, also not by a
 * dispatch that is under way further up the stack or in another thread. */
void
procwatch_source_disown (GSource *source)
{
  ProcwatchSource *self = (ProcwatchSource *) source;

  g_rec_mutex_lock (&self->owner_lock);
  self->owner = NULL;
  g_rec_mutex_unlock (&self->owner_lock);

  /* Closed now, not when GLib lets go of the source: that waits for the
   * end of a dispatch under way (the owner closed from its handler). */
  if (self->epoll_tag != NULL)
    g_source_remove_unix_fd (source, g_steal_pointer (&self->epoll_tag));
  if (self->epoll_fd >= 0)
    close (self->epoll_fd);
  self->epoll_fd = -1;

  g_source_destroy (source);
}

/* Refused for want of memory or of epoll watches (max_user_watches): the
 * owner falls back to probing then, so no reason is needed; errno says. */
static gboolean
control (ProcwatchSource *self,
         int              op,
         int              fd,
         guint32          events,
         gpointer         data)
{
  struct epoll_event event = { .events = events, .data.ptr = data };

  return epoll_ctl (self->epoll_fd, op, fd, &event) == 0;
}

gboolean
procwatch_source_add_handle (GSource  *source,
                             int       fd,
                             guint32   events,
                             gpointer  data)
{
  return control ((ProcwatchSource *) source, EPOLL_CTL_ADD, fd, events, data);
}

gboolean
procwatch_source_modify_handle (GSource  *source,
                                int       fd,
                                guint32   events,
                                gpointer  data)
{
  return control ((ProcwatchSource *) source, EPOLL_CTL_MOD, fd, events, data);
}

/* Events of @fd already taken in the current batch are still handed over:
 * the owner must recognise handles it has stopped watching. Returns false
 * if @fd may still be in the set (ENOENT: it was not). */
gboolean
procwatch_source_remove_handle (GSource *source,
                                int      fd)
{
  return control ((ProcwatchSource *) source, EPOLL_CTL_DEL, fd, 0, NULL) ||
         errno == ENOENT;
}

/* Wakes the owner's timer_func at @ready_time (monotonic, in microseconds),
 * or never with -1. */
void
procwatch_source_set_timer (GSource *source,
                            gint64   ready_time)
{
  ProcwatchSource *self = (ProcwatchSource *) source;

  /* Another kind of source: the probe scheduler's tests drive a plain one. */
  if (source->source_funcs == &procwatch_source_funcs && self->hidden)
    self->hidden_ready_time = ready_time;
  else
    g_source_set_ready_time (source, ready_time);
}
