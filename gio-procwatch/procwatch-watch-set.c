/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "procwatch-cgroup-files-private.h"
#include "procwatch-cgroup-private.h"
#include "procwatch-i18n-private.h"
#include "procwatch-process-private.h"
#include "procwatch-self-private.h"
#include "procwatch-watch-set-private.h"

/* Brackets every operation that changes the set, so that the dispatch can
 * assert that no callout happens inside one. Nor is an object of the
 * application finalized inside one: see give_up (). */
#define ENTER(set) ((set)->busy++)
#define LEAVE(set) ((set)->busy--)

/* What epoll and the probe scheduler hand back is a process watch, a
 * cgroup watch or a cgroup signal under way (epoll only), told apart by
 * their common first member. */
ProcwatchSourceEntry *
procwatch_source_entry_ref (ProcwatchSourceEntry *entry)
{
  if (entry->kind == PROCWATCH_SOURCE_ENTRY_SIGNAL)
    procwatch_cgroup_signal_ref ((ProcwatchCgroupSignal *) entry);
  else if (entry->kind == PROCWATCH_SOURCE_ENTRY_CGROUP)
    procwatch_cgroup_watch_ref ((ProcwatchCgroupWatch *) entry);
  else
    procwatch_watch_ref ((ProcwatchWatch *) entry);
  return entry;
}

void
procwatch_source_entry_unref (ProcwatchSourceEntry *entry)
{
  if (entry->kind == PROCWATCH_SOURCE_ENTRY_SIGNAL)
    procwatch_cgroup_signal_unref ((ProcwatchCgroupSignal *) entry);
  else if (entry->kind == PROCWATCH_SOURCE_ENTRY_CGROUP)
    procwatch_cgroup_watch_unref ((ProcwatchCgroupWatch *) entry);
  else
    procwatch_watch_unref ((ProcwatchWatch *) entry);
}

static int
entry_get_fd (ProcwatchSourceEntry *entry)
{
  if (entry->kind == PROCWATCH_SOURCE_ENTRY_CGROUP)
    return ((ProcwatchCgroupWatch *) entry)->fd;
  return ((ProcwatchWatch *) entry)->handle.fd;
}

static void
entry_close (ProcwatchSourceEntry *entry)
{
  if (entry->kind == PROCWATCH_SOURCE_ENTRY_CGROUP)
    procwatch_cgroup_watch_close ((ProcwatchCgroupWatch *) entry);
  else
    procwatch_handle_close (&((ProcwatchWatch *) entry)->handle);
}

/* Gives up a reference to a watch inside an operation. The last one would
 * finalize the process or cgroup object, if the application dropped it,
 * and with it run the application's weak-ref, qdata and toggle notifies
 * (GJS and PyGObject hold their objects by toggle references), which may
 * call anything while the tables are halfway changed: it is kept for the
 * dispatch to release once the operation is over. A process watch tells
 * whether it is the last (at a reap in a dispatch it never is: the
 * dispatch pins what it works on); a cgroup watch cannot tell, and its
 * references go rarely. */
static void
give_up (ProcwatchWatchSet    *set,
         ProcwatchSourceEntry *entry)
{
  if (entry->kind == PROCWATCH_SOURCE_ENTRY_PROCESS &&
      !procwatch_watch_is_last_ref ((ProcwatchWatch *) entry))
    procwatch_watch_unref ((ProcwatchWatch *) entry);
  else
    g_ptr_array_add (set->dropped, entry);
}

static void
add_signal_for_cgroup (ProcwatchWatchOwner   *owner,
                       ProcwatchCgroupSignal *op)
{
  /* The owner is the set's first member. */
  procwatch_watch_set_add_signal ((ProcwatchWatchSet *) owner, op);
}

/* Watching @watch stopped: the object stops being a way to reach it. */
static void
cgroup_watch_stopped (ProcwatchCgroupWatch *watch,
                      const char           *reason)
{
  watch->watched = FALSE;
  procwatch_cgroup_stopped (watch->cgroup, reason);
}

void
procwatch_watch_set_init (ProcwatchWatchSet *set,
                          GObject           *monitor)
{
  set->owner.creator_pid = procwatch_self_pid ();
  set->owner.add_signal = add_signal_for_cgroup;
  set->backend = procwatch_backend_get_default ();
  set->monitor = monitor;
  set->context = g_main_context_ref_thread_default ();
  set->watches = g_hash_table_new (NULL, NULL);
  set->items = procwatch_item_list_new (G_STRUCT_OFFSET (ProcwatchWatch, slot));
  set->cgroups = g_hash_table_new (g_int64_hash, g_int64_equal);
  set->lingering = g_ptr_array_new_with_free_func ((GDestroyNotify) procwatch_source_entry_unref);
  set->signals = g_ptr_array_new_with_free_func ((GDestroyNotify) procwatch_cgroup_signal_unref);
  set->dropped = g_ptr_array_new_with_free_func ((GDestroyNotify) procwatch_source_entry_unref);
  set->life = g_new (ProcwatchWatchSetLife, 1);
  set->life->ref_count = 1;
  set->life->alive = TRUE;
  set->proc_fd = PROCWATCH_PROC_FD_UNKNOWN;
}

/* Once shut down. */
void
procwatch_watch_set_clear (ProcwatchWatchSet *set)
{
  g_hash_table_unref (set->watches);
  g_hash_table_unref (set->cgroups);
  procwatch_item_list_free (set->items);
  g_ptr_array_unref (set->lingering);
  g_assert (set->n_reaped == 0);
  g_free (set->reaped);
  g_ptr_array_unref (set->signals);
  /* Left only by a forked copy, whose dispatch stopped at the fork. */
  g_ptr_array_unref (set->dropped);
  procwatch_watch_set_life_release (set->life);
  g_main_context_unref (set->context);
}

/* In a child forked without exec, the copy is inert: it shares its epoll
 * set with the parent's (see the monitor's class doc). */
gboolean
procwatch_watch_set_is_forked_copy (ProcwatchWatchSet *set)
{
  return procwatch_watch_owner_is_forked_copy (&set->owner);
}

gboolean
procwatch_watch_set_is_open (ProcwatchWatchSet *set)
{
  return !set->closed && !procwatch_watch_set_is_forked_copy (set);
}

gboolean
procwatch_watch_set_check_open (ProcwatchWatchSet  *set,
                                GError            **error)
{
  if (set->closed)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CLOSED,
                           _("The process monitor is closed"));
      return FALSE;
    }

  return procwatch_watch_owner_check (&set->owner, error);
}

static gboolean
ensure_source (ProcwatchWatchSet         *set,
               ProcwatchSourceReadyFunc   ready_func,
               ProcwatchSourceTimerFunc   timer_func,
               GError                   **error)
{
  const ProcwatchBackend *backend = set->backend;

  if (backend == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("This system offers no way to watch processes (no pidfd, no /proc)"));
      return FALSE;
    }

  if (set->source != NULL)
    return TRUE;

  set->source = procwatch_source_new (backend->handles_pollable, ready_func, timer_func,
                                      set, error);
  if (set->source == NULL)
    return FALSE;

  g_source_attach (set->source, set->context);
  set->probes = procwatch_probe_scheduler_new (set->source,
                                               backend->probe_min_interval,
                                               backend->probe_max_interval,
                                               backend->probe_young_interval,
                                               backend->probe_young_period);
  return TRUE;
}

/* Every new watch starts here. A handler that watches during a dispatch (a
 * "reaped" handler restarting a service) must not find the fd table fuller
 * than before that dispatch: the handles of the processes it has reaped are
 * released now rather than at its end, which is safe (no handler runs). */
gboolean
procwatch_watch_set_prepare (ProcwatchWatchSet         *set,
                             ProcwatchSourceReadyFunc   ready_func,
                             ProcwatchSourceTimerFunc   timer_func,
                             GError                   **error)
{
  if (!procwatch_watch_set_check_open (set, error) ||
      !ensure_source (set, ready_func, timer_func, error))
    return FALSE;

  procwatch_watch_set_release_reaped (set);

  return TRUE;
}

/* epoll forgets a handle on removal or once no fd anywhere refers to its
 * open file, and a forked child holds copies until it execs. If the
 * removal fails, closing our fd may leave the kernel handing out this
 * entry with events: it stays, fd open, until a removal works. Once the
 * set is shut down nothing reads the epoll set: nothing is removed. */
static void
release_handle (ProcwatchWatchSet    *set,
                ProcwatchSourceEntry *entry,
                gboolean              in_epoll_set)
{
  if (in_epoll_set && !set->closed &&
      !procwatch_source_remove_handle (set->source, entry_get_fd (entry)))
    g_ptr_array_add (set->lingering, procwatch_source_entry_ref (entry));
  else
    entry_close (entry);
}

/* Its handle is ready, and so comes back at every iteration until then.
 * The dispatch that asks pins @entry: the list's reference is not the
 * last. */
void
procwatch_watch_set_retry_lingering (ProcwatchWatchSet    *set,
                                     ProcwatchSourceEntry *entry)
{
  if (entry_get_fd (entry) < 0 ||
      !procwatch_source_remove_handle (set->source, entry_get_fd (entry)))
    return;

  entry_close (entry);
  g_ptr_array_remove_fast (set->lingering, entry);
}

/* Waits for @state to be left: by an epoll event where the backend has one,
 * by probing where it has not, or by probing where epoll refused the handle. */
void
procwatch_watch_set_arm (ProcwatchWatchSet     *set,
                         ProcwatchWatch        *watch,
                         ProcwatchProcessState  state)
{
  const ProcwatchBackend *backend = set->backend;
  gboolean needs_probe = backend->needs_probe (backend, state);

  if (backend->handles_pollable &&
      !procwatch_source_modify_handle (set->source, watch->handle.fd,
                                       backend->events_for (backend, state), watch))
    {
      procwatch_source_remove_handle (set->source, watch->handle.fd);
      needs_probe = TRUE;
    }

  if (needs_probe)
    procwatch_probe_schedule (set->probes, &watch->probe, TRUE);
  else
    procwatch_probe_unschedule (set->probes, &watch->probe);
}

/* Ready, yet nothing new (a child being reaped by another thread, whose
 * status comes with the reap): readiness would wake us again at once, so
 * only the hang-up, always reported, is listened for, and the process is
 * probed for besides. */
void
procwatch_watch_set_probe_instead (ProcwatchWatchSet *set,
                                   ProcwatchWatch    *watch)
{
  if (!procwatch_source_modify_handle (set->source, watch->handle.fd, 0, watch))
    procwatch_source_remove_handle (set->source, watch->handle.fd);
  procwatch_probe_schedule (set->probes, &watch->probe, TRUE);
}

/* A pidfd of a process reaped already names no pid: the process may still
 * be watched under the pid it had. Its pidfs inode tells (Linux 6.9+), or
 * on older kernels, for want of anything else, the pidfd being one we hold
 * already (the application's pidfd passed again, or a duplicate of it).
 * Only a walk over every watch can find it; rare (a reaped process, or one
 * in a pid namespace this one cannot see), so no index is kept for it. */
static ProcwatchWatch *
find_without_pid (ProcwatchWatchSet     *set,
                  const ProcwatchHandle *handle)
{
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, set->watches);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      ProcwatchWatch *watch;

      for (watch = value; watch != NULL; watch = watch->older)
        {
          if (handle->inode != 0 ? watch->handle.inode == handle->inode :
              watch->handle.inode == 0 &&
              procwatch_handle_same_pidfd (set->backend, &watch->handle, handle))
            return watch;
        }
    }

  return NULL;
}

static ProcwatchWatch *
find_same_process (ProcwatchWatchSet     *set,
                   const ProcwatchHandle *handle)
{
  ProcwatchWatch *watch;

  for (watch = g_hash_table_lookup (set->watches, GINT_TO_POINTER (handle->pid));
       watch != NULL;
       watch = watch->older)
    {
      if (procwatch_backend_same_process (set->backend, &watch->handle, handle))
        return watch;
    }

  if (handle->pid == 0)
    return find_without_pid (set, handle);

  return NULL;
}

/* Takes @handle: a watch, and the object handed out for its process. */
static ProcwatchWatch *
new_watch (ProcwatchWatchSet *set,
           ProcwatchHandle   *handle)
{
  ProcwatchIdentity identity;
  ProcwatchProcess *process;
  ProcwatchWatch *watch;

  procwatch_handle_read_identity (set->backend, handle, &set->proc_fd, &identity);
  process = procwatch_process_new (handle->pid, procwatch_handle_get_public_inode (handle),
                                   identity.name, g_steal_pointer (&identity.cgroup));
  procwatch_identity_clear (&identity);
  watch = procwatch_watch_new (set->backend, &set->owner, handle, process);
  procwatch_process_set_watch (process, watch);

  return watch;
}

/* Takes @handle. Returns a reference to the watch of the process it refers
 * to: an existing one if the process is watched already (*@added_at is
 * then G_MAXUINT), else a new one, added to the list at *@added_at. */
ProcwatchWatch *
procwatch_watch_set_add (ProcwatchWatchSet *set,
                         ProcwatchHandle   *handle,
                         guint             *added_at)
{
  const ProcwatchBackend *backend = set->backend;
  gpointer key = GINT_TO_POINTER (handle->pid);
  ProcwatchWatch *watch;

  ENTER (set);

  watch = find_same_process (set, handle);
  if (watch != NULL)
    {
      procwatch_handle_close (handle);
      *added_at = G_MAXUINT;
      LEAVE (set);
      return procwatch_watch_ref (watch);
    }

  watch = new_watch (set, handle);
  watch->older = g_hash_table_lookup (set->watches, key);
  *added_at = procwatch_item_list_append (set->items, watch);
  g_hash_table_insert (set->watches, key, watch);

  /* Where epoll refuses the handle (out of memory, max_user_watches), the
   * process is probed for instead: slower, but nothing is missed. */
  if ((backend->handles_pollable &&
       !procwatch_source_add_handle (set->source, handle->fd,
                                     backend->events_for (backend, PROCWATCH_PROCESS_STATE_RUNNING),
                                     watch)) ||
      backend->needs_probe (backend, PROCWATCH_PROCESS_STATE_RUNNING))
    procwatch_probe_schedule (set->probes, &watch->probe, TRUE);

  LEAVE (set);
  return procwatch_watch_ref (watch);
}

ProcwatchWatch *
procwatch_watch_set_lookup (ProcwatchWatchSet *set,
                            GPid               pid)
{
  return g_hash_table_lookup (set->watches, GINT_TO_POINTER (pid));
}

static void
unlink_watch (ProcwatchWatchSet *set,
              ProcwatchWatch    *watch)
{
  gpointer key = GINT_TO_POINTER (watch->handle.pid);
  ProcwatchWatch *head = NULL;

  /* Usually the one watch of its pid: taken out in one operation, put back
   * where it has company. */
  g_hash_table_steal_extended (set->watches, key, NULL, (gpointer *) &head);

  if (head == watch)
    {
      if (watch->older != NULL)
        g_hash_table_insert (set->watches, key, watch->older);
    }
  else
    {
      ProcwatchWatch *newer = head;

      g_hash_table_insert (set->watches, key, head);

      while (newer != NULL && newer->older != watch)
        newer = newer->older;

      g_assert (newer != NULL);
      newer->older = watch->older;
    }

  watch->older = NULL;
}

/* Stops watching, once @watch is out of the table: no event of @watch is
 * handled after this, even one already taken from the kernel in the current
 * batch. Gives up the table's reference. With @release_later (a reap, in a
 * dispatch) the handle is released by procwatch_watch_set_release_reaped ()
 * once the dispatch has emitted its signals: EPOLL_CTL_DEL and close () cost
 * the more, the bigger the epoll set and the fd table are (a few
 * microseconds at 10,000 watched processes), and nothing needs them before,
 * unless a handler starts a new watch (procwatch_watch_set_prepare ()).
 * Until then the fd stays open, so no new watch gets its number. */
static void
stop_watch (ProcwatchWatchSet *set,
            ProcwatchWatch    *watch,
            const char        *reason,
            gboolean           release_later)
{
  g_assert (watch->watched);

  /* The process object stops being a way to reach the watch. */
  watch->watched = FALSE;
  procwatch_process_set_watch (watch->process, NULL);
  procwatch_probe_unschedule (set->probes, &watch->probe);
  procwatch_watch_settle_waits_later (watch, reason,
                                      procwatch_process_peek_state (watch->process) !=
                                      PROCWATCH_PROCESS_STATE_RUNNING);

  /* The table's reference goes with it. */
  if (release_later && set->backend->handles_pollable)
    {
      if (set->n_reaped == set->reaped_size)
        {
          set->reaped_size = MAX (8, 2 * set->reaped_size);
          set->reaped = g_renew (ProcwatchWatch *, set->reaped, set->reaped_size);
        }
      set->reaped[set->n_reaped++] = watch;
      return;
    }

  release_handle (set, &watch->entry, set->backend->handles_pollable);
  give_up (set, &watch->entry);
}

/* Stops watching @watch and takes it out of the list; returns where it
 * was, for the caller to tell the list's observers. */
guint
procwatch_watch_set_remove (ProcwatchWatchSet *set,
                            ProcwatchWatch    *watch,
                            const char        *reason,
                            gboolean           reaped)
{
  guint position;

  ENTER (set);
  position = procwatch_item_list_remove (set->items, watch->slot);
  unlink_watch (set, watch);
  stop_watch (set, watch, reason, reaped);
  LEAVE (set);

  return position;
}

/* At the end of a dispatch, if the set is still open (shut_down () closes
 * them otherwise). A handle closed meanwhile (retry_lingering ()) has fd
 * -1. */
void
procwatch_watch_set_release_reaped (ProcwatchWatchSet *set)
{
  guint i;

  if (set->n_reaped == 0)
    return;

  /* Never the last references: the dispatch pins the watches it handles
   * (and a watch is reaped only there), and calls this before it lets go
   * of its pins, so no process object is finalized here. */
  ENTER (set);
  for (i = 0; i < set->n_reaped; i++)
    {
      ProcwatchWatch *watch = set->reaped[i];

      if (watch->handle.fd >= 0)
        release_handle (set, &watch->entry, TRUE);
      procwatch_watch_unref (watch);
    }

  set->n_reaped = 0;
  LEAVE (set);
}

/* Takes @fd, the cgroup's cgroup.events, and reads it once it is in the
 * epoll set, so that no change falls in between. */
ProcwatchCgroupWatch *
procwatch_watch_set_add_cgroup (ProcwatchWatchSet  *set,
                                const char         *relative,
                                guint64             id,
                                int                 fd,
                                GError            **error)
{
  ProcwatchCgroupWatch *watch;
  int populated;

  ENTER (set);
  watch = procwatch_cgroup_watch_new (&set->owner, procwatch_cgroup_new (relative), id, fd);
  procwatch_cgroup_set_watch (watch->cgroup, watch);

  if (!procwatch_source_add_handle (set->source, fd, EPOLLPRI | EPOLLERR, watch) ||
      (populated = procwatch_cgroup_read_populated (fd)) < 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR,
                   saved_errno == ENODEV ? G_IO_ERROR_NOT_FOUND : g_io_error_from_errno (saved_errno),
                   /* Translators: the first %s is a cgroup path, the second the system's error message. */
                   _("Cannot watch cgroup %s: %s"), relative, g_strerror (saved_errno));
      procwatch_source_remove_handle (set->source, fd);
      cgroup_watch_stopped (watch, N_("it could not be watched"));
      /* Its object was never handed out: nothing of the application's
       * goes with it. */
      procwatch_cgroup_watch_unref (watch);
      LEAVE (set);
      return NULL;
    }

  /* A new object: nobody can be listening yet. */
  procwatch_cgroup_set_populated (watch->cgroup, populated);
  g_hash_table_insert (set->cgroups, &watch->id, watch);
  if (!populated)
    procwatch_probe_schedule (set->probes, &watch->probe, TRUE);

  LEAVE (set);
  return watch;
}

ProcwatchCgroupWatch *
procwatch_watch_set_lookup_cgroup (ProcwatchWatchSet *set,
                                   guint64            id)
{
  return g_hash_table_lookup (set->cgroups, &id);
}

/* Stops watching @watch, which is in the table: no event of it is handled
 * after this. Gives up the table's reference. */
void
procwatch_watch_set_remove_cgroup (ProcwatchWatchSet    *set,
                                   ProcwatchCgroupWatch *watch,
                                   const char           *reason)
{
  g_assert (watch->watched);

  ENTER (set);
  g_hash_table_remove (set->cgroups, &watch->id);
  cgroup_watch_stopped (watch, reason);
  procwatch_probe_unschedule (set->probes, &watch->probe);
  release_handle (set, &watch->entry, TRUE);
  give_up (set, &watch->entry);
  LEAVE (set);
}

/* Takes @op, a signal to a cgroup of the set: its fds join the epoll set,
 * and the dispatch takes its steps when they wake. */
void
procwatch_watch_set_add_signal (ProcwatchWatchSet     *set,
                                ProcwatchCgroupSignal *op)
{
  ENTER (set);
  if (op->timer_fd < 0 ||
      !procwatch_source_add_handle (set->source, op->timer_fd, EPOLLIN, op) ||
      (op->events_fd >= 0 &&
       !procwatch_source_add_handle (set->source, op->events_fd, EPOLLPRI | EPOLLERR, op)))
    {
      if (op->timer_fd >= 0)
        procwatch_source_remove_handle (set->source, op->timer_fd);
      procwatch_cgroup_signal_settle_later (op, N_("it could not be waited for"));
      procwatch_cgroup_signal_unref (op);
    }
  else
    g_ptr_array_add (set->signals, op);
  LEAVE (set);
}

/* @op is done: out of the epoll set and of the set. Returns its task, for
 * the dispatch to complete. */
GTask *
procwatch_watch_set_end_signal (ProcwatchWatchSet     *set,
                                ProcwatchCgroupSignal *op)
{
  GTask *task;

  ENTER (set);
  procwatch_source_remove_handle (set->source, op->timer_fd);
  if (op->events_fd >= 0)
    procwatch_source_remove_handle (set->source, op->events_fd);
  task = procwatch_cgroup_signal_end (op);
  g_ptr_array_remove_fast (set->signals, op);
  LEAVE (set);

  return task;
}

/* Stops everything, once; returns how many items the list had. Waits are
 * settled from idles, so this may run inside any dispatch, also from one of
 * the monitor's handlers. Every fd is closed before this returns, the
 * source's epoll fd too. In a forked copy, nothing touches the epoll set
 * the parent shares: handles are closed, not removed. The list is emptied
 * first and no object is finalized here: the watches' last references
 * wait in @dropped for the caller to have released. */
guint
procwatch_watch_set_shut_down (ProcwatchWatchSet *set,
                               const char        *reason)
{
  g_autoptr(GHashTable) watches = NULL;
  g_autoptr(GHashTable) cgroups = NULL;
  GHashTableIter iter;
  gpointer value;
  guint n_items;
  guint i;

  if (set->closed)
    return 0;

  ENTER (set);
  set->closed = TRUE;
  set->life->alive = FALSE;
  /* Before any watch goes: the list holds no references of its own. */
  n_items = procwatch_item_list_get_length (set->items);
  procwatch_item_list_clear (set->items);
  if (set->proc_fd >= 0)
    close (set->proc_fd);
  set->proc_fd = PROCWATCH_PROC_FD_UNKNOWN;
  watches = g_steal_pointer (&set->watches);
  set->watches = g_hash_table_new (NULL, NULL);

  /* The whole table at once: no chain needs unlinking watch by watch. */
  g_hash_table_iter_init (&iter, watches);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      ProcwatchWatch *watch = value;

      while (watch != NULL)
        {
          ProcwatchWatch *older = g_steal_pointer (&watch->older);

          stop_watch (set, watch, reason, FALSE);
          watch = older;
        }
    }

  cgroups = g_steal_pointer (&set->cgroups);
  set->cgroups = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_hash_table_iter_init (&iter, cgroups);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      ProcwatchCgroupWatch *watch = value;

      cgroup_watch_stopped (watch, reason);
      procwatch_probe_unschedule (set->probes, &watch->probe);
      procwatch_cgroup_watch_close (watch);
      give_up (set, &watch->entry);
    }

  /* Thawed now, whatever the application does next. */
  for (i = 0; i < set->signals->len; i++)
    {
      ProcwatchCgroupSignal *op = g_ptr_array_index (set->signals, i);

      /* The parent's, also the freeze it will undo itself. */
      if (procwatch_watch_set_is_forked_copy (set))
        op->froze = FALSE;
      else
        {
          procwatch_source_remove_handle (set->source, op->timer_fd);
          procwatch_source_remove_handle (set->source, op->events_fd);
        }
      procwatch_cgroup_signal_settle_later (op, reason);
    }
  g_ptr_array_set_size (set->signals, 0);

  g_clear_pointer (&set->probes, procwatch_probe_scheduler_free);

  /* A forked copy's source dispatches nothing (it checks the pid first),
   * and its lock may be a copy of one a thread of the parent held. */
  if (set->source != NULL && procwatch_watch_set_is_forked_copy (set))
    g_source_destroy (set->source);
  else if (set->source != NULL)
    procwatch_source_disown (set->source);
  g_clear_pointer (&set->source, g_source_unref);

  /* Nothing reads the epoll set any more: their registrations are moot. */
  while (set->lingering->len > 0)
    {
      ProcwatchSourceEntry *entry = g_ptr_array_steal_index_fast (set->lingering,
                                                                  set->lingering->len - 1);

      entry_close (entry);
      give_up (set, entry);
    }
  for (i = 0; i < set->n_reaped; i++)
    {
      procwatch_handle_close (&set->reaped[i]->handle);
      give_up (set, &set->reaped[i]->entry);
    }
  set->n_reaped = 0;
  LEAVE (set);

  return n_items;
}
