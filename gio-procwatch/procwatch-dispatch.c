/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include "procwatch-cgroup-files-private.h"
#include "procwatch-cgroup-private.h"
#include "procwatch-dispatch-private.h"
#include "procwatch-i18n-private.h"
#include "procwatch-process-private.h"
#include "procwatch-self-private.h"
#include "procwatch-test-seam-private.h"

#ifdef PROCWATCH_TEST_SEAM
guint procwatch_test_seam_cgroup_event_reads;
guint procwatch_test_seam_cgroup_probe_reads;
#endif

static guint exited_signal;
static guint reaped_signal;
static guint cgroup_emptied_signal;
static guint items_changed_signal;

void
procwatch_dispatch_set_signals (guint exited,
                                guint reaped,
                                guint cgroup_emptied)
{
  exited_signal = exited;
  reaped_signal = reaped;
  cgroup_emptied_signal = cgroup_emptied;
  items_changed_signal = g_signal_lookup ("items-changed", G_TYPE_LIST_MODEL);
}

typedef enum
{
  CALLOUT_SIGNAL,         /* a signal of the monitor about @object */
  CALLOUT_NOTIFY,         /* @pspec of @object changed */
  CALLOUT_COMPLETE_WAIT,  /* @task returns @object */
  CALLOUT_ITEMS_CHANGED,  /* the list model changed */
  CALLOUT_COMPLETE_SIGNAL, /* a cgroup signal's @task returns @error, or true */
  CALLOUT_RELEASE,        /* a reference to the watch @object goes, maybe its last */
} CalloutKind;

typedef struct
{
  CalloutKind kind;
  gpointer object;
  union
  {
    guint signal_id;
    GParamSpec *pspec;
    GTask *task;
    struct
    {
      GTask *task;
      GError *error;
    } result;
    struct
    {
      guint position;
      guint removed;
      guint added;
    } items;
  } u;
} Callout;

typedef enum
{
  GO_ON,          /* the monitor is open and still watches it */
  UNWATCHED,      /* the monitor is open, but no longer watches it */
  MONITOR_GONE,   /* closed, or disposed: touch nothing of it */
} Outcome;

/* Every call into the application goes through here. The application may
 * do anything meanwhile: unwatch @entry or anything else, watch more,
 * close the monitor, drop its last reference, run a nested main loop. So
 * what it did is looked at once it returns: whether the monitor is still
 * open (*@alive) in this process and whether it still watches @entry (if
 * any). */
/* Inlined: each caller's kind is a constant, and this runs several times
 * per exit. */
G_ALWAYS_INLINE static inline Outcome
call_out (ProcwatchWatchSet    *set,
          gboolean             *alive,
          ProcwatchSourceEntry *entry,
          const Callout        *callout)
{
  /* Never from inside an operation of the watch set, whose tables may be
   * halfway changed. */
  g_assert (set->busy == 0);

  switch (callout->kind)
    {
    case CALLOUT_SIGNAL:
      g_signal_emit (set->monitor, callout->u.signal_id, 0, callout->object);
      break;

    case CALLOUT_NOTIFY:
      g_object_notify_by_pspec (callout->object, callout->u.pspec);
      break;

    case CALLOUT_COMPLETE_WAIT:
      g_task_return_pointer (callout->u.task, g_object_ref (callout->object), g_object_unref);
      g_object_unref (callout->u.task);
      break;

    case CALLOUT_COMPLETE_SIGNAL:
      if (callout->u.result.error != NULL)
        g_task_return_error (callout->u.result.task, callout->u.result.error);
      else
        g_task_return_boolean (callout->u.result.task, TRUE);
      g_object_unref (callout->u.result.task);
      break;

    case CALLOUT_ITEMS_CHANGED:
      g_list_model_items_changed ((GListModel *) set->monitor, callout->u.items.position,
                                  callout->u.items.removed, callout->u.items.added);
      break;

    /* The last reference to a watch finalizes the process or cgroup object
     * if the application dropped it: its weak-ref, qdata and toggle
     * notifies run. */
    case CALLOUT_RELEASE:
      procwatch_source_entry_unref (callout->object);
      break;

    default:
      g_assert_not_reached ();
    }

  /* A handler that forked (a pre-forking server) returns here twice: the
   * rest of the batch is the parent's, and the child's copy of the monitor
   * is inert (see the monitor's class doc), so the child's stops here. The
   * pid is the cached one: no system call per callout. */
  if (!*alive || G_UNLIKELY (procwatch_self_pid () != set->owner.creator_pid))
    return MONITOR_GONE;
  if (entry != NULL && !procwatch_source_entry_is_watched (entry))
    return UNWATCHED;
  return GO_ON;
}

G_ALWAYS_INLINE static inline Outcome
emit_signal (ProcwatchWatchSet    *set,
             gboolean             *alive,
             ProcwatchSourceEntry *entry,
             guint                 signal_id,
             gpointer              object)
{
  Callout callout = { .kind = CALLOUT_SIGNAL, .object = object, .u.signal_id = signal_id };

  return call_out (set, alive, entry, &callout);
}

/* @changed: what a silent store returned, NULLs skipped. */
G_ALWAYS_INLINE static inline Outcome
notify_changes (ProcwatchWatchSet    *set,
                gboolean             *alive,
                ProcwatchSourceEntry *entry,
                gpointer              object,
                GParamSpec          **changed,
                guint                 n_changed)
{
  guint i;

  for (i = 0; i < n_changed; i++)
    {
      Callout callout = { .kind = CALLOUT_NOTIFY, .object = object, .u.pspec = changed[i] };
      Outcome outcome;

      if (changed[i] == NULL)
        continue;

      outcome = call_out (set, alive, entry, &callout);
      if (outcome != GO_ON)
        return outcome;
    }

  return GO_ON;
}

/* Completes the waits of @holder, popped one by one with @pop_wait, with
 * @object: a callback may unwatch, which settles the rest from an idle. */
static Outcome
complete_waits (ProcwatchWatchSet    *set,
                gboolean             *alive,
                ProcwatchSourceEntry *entry,
                GTask *             (*pop_wait) (gpointer holder),
                gpointer              holder,
                gpointer              object)
{
  GTask *task;

  while ((task = pop_wait (holder)) != NULL)
    {
      Callout callout = { .kind = CALLOUT_COMPLETE_WAIT, .object = object, .u.task = task };
      Outcome outcome = call_out (set, alive, entry, &callout);

      if (outcome != GO_ON)
        return outcome;
    }

  return GO_ON;
}

/* GObject emits an interface's signal on its slow path, its arguments
 * boxed in GValues, even when no handler is connected: ~1,300 instructions
 * per watch and per exit for a monitor that nobody shows in a list. GTK's
 * views and models connect handlers. (Emission hooks are not looked for:
 * nobody hooks this signal, and g_signal_has_handler_pending () cannot
 * tell.) */
static Outcome
list_changed (ProcwatchWatchSet *set,
              gboolean          *alive,
              guint              position,
              guint              removed,
              guint              added)
{
  Callout callout = {
    .kind = CALLOUT_ITEMS_CHANGED,
    .u.items = { position, removed, added },
  };

  if (!g_signal_has_handler_pending (set->monitor, items_changed_signal, 0, FALSE))
    return *alive ? GO_ON : MONITOR_GONE;

  return call_out (set, alive, NULL, &callout);
}

/* What the set gave up inside its operations, one callout each, until the
 * monitor is gone: a close () or dispose from a notify releases the rest
 * itself. (The dispatch's own pins need no such care: nothing of the set
 * is touched after them.) */
static void
release_dropped (ProcwatchWatchSet *set,
                 gboolean          *alive)
{
  while (*alive && set->dropped->len > 0)
    {
      Callout callout = {
        .kind = CALLOUT_RELEASE,
        .object = g_ptr_array_steal_index_fast (set->dropped, set->dropped->len - 1),
      };

      if (call_out (set, alive, NULL, &callout) == MONITOR_GONE)
        break;
    }
}

/* At the end of a call the application made (unwatch, close, dispose),
 * once the set's operations are over. The caller keeps the monitor alive
 * meanwhile: a notify may drop the application's last reference to it. */
void
procwatch_dispatch_release_dropped (ProcwatchWatchSet *set)
{
  /* Released also after close () or dispose: they are the application's
   * objects. */
  gboolean unchecked = TRUE;

  release_dropped (set, &unchecked);
}

/* "items-changed" from inside a call the application made (watch, unwatch,
 * close), as GIO's list models do. */
void
procwatch_dispatch_list_changed (ProcwatchWatchSet *set,
                                 guint              position,
                                 guint              removed,
                                 guint              added)
{
  /* The call returns right after: nothing is left to check. close () calls
   * this after its shutdown, so the observers still hear of the items
   * that went. */
  gboolean unchecked = TRUE;

  list_changed (set, &unchecked, position, removed, added);
}

/* Stores the status, if the kernel tells it in @state; returns how many of
 * @changed it filled. */
static guint
read_status (ProcwatchWatchSet     *set,
             ProcwatchWatch        *watch,
             ProcwatchProcessState  state,
             GParamSpec           **changed)
{
  const ProcwatchBackend *backend = set->backend;
  int wait_status;

  if (procwatch_process_peek_status_known (watch->process) ||
      !backend->read_status (backend, &watch->handle, state, &wait_status))
    return 0;

  return procwatch_process_set_status (watch->process, wait_status, changed);
}

static GTask *
pop_process_wait (gpointer entry)
{
  return procwatch_watch_pop_wait (entry);
}

/* The exit: the status and the state are stored first, so that each
 * handler sees them all; then the notifications, "exited", and the waits. */
static Outcome
report_exit (ProcwatchWatchSet     *set,
             gboolean              *alive,
             ProcwatchWatch        *watch,
             ProcwatchProcessState  state)
{
  ProcwatchProcess *process = watch->process;
  GParamSpec *changed[PROCWATCH_PROCESS_STATUS_PROPS + 1];
  guint n_changed;
  Outcome outcome;

  /* Asked in the state it is in now: a reaped process is no zombie whose
   * status could be peeked at. */
  n_changed = read_status (set, watch, state, changed);
  changed[n_changed++] = procwatch_process_set_state (process, PROCWATCH_PROCESS_STATE_EXITED);

  outcome = notify_changes (set, alive, &watch->entry, process, changed, n_changed);
  if (outcome == GO_ON)
    outcome = emit_signal (set, alive, &watch->entry, exited_signal, process);
  if (outcome == GO_ON && procwatch_watch_has_waits (watch))
    outcome = complete_waits (set, alive, &watch->entry, pop_process_wait, watch, process);

  return outcome;
}

/* The reap: watching stops first, so that handlers see the pid as free and
 * the process out of the list; so every callout after that one is about a
 * process no longer watched, and only the monitor's end stops them. */
static Outcome
report_reap (ProcwatchWatchSet *set,
             gboolean          *alive,
             ProcwatchWatch    *watch)
{
  ProcwatchProcess *process = watch->process;
  GParamSpec *changed[PROCWATCH_PROCESS_STATUS_PROPS + 1];
  guint n_changed;
  guint position;
  Outcome outcome;

  n_changed = read_status (set, watch, PROCWATCH_PROCESS_STATE_REAPED, changed);
  changed[n_changed++] = procwatch_process_set_state (process, PROCWATCH_PROCESS_STATE_REAPED);
  position = procwatch_watch_set_remove (set, watch, N_("the process was reaped"), TRUE);

  outcome = list_changed (set, alive, position, 1, 0);
  if (outcome == GO_ON)
    outcome = notify_changes (set, alive, NULL, process, changed, n_changed);
  if (outcome == GO_ON)
    outcome = emit_signal (set, alive, NULL, reaped_signal, process);

  return outcome;
}

/* After "exited" of a process whose status was known then (a child, or
 * one reaped already): whether it has been reaped since. A child is most
 * often reaped by the "exited" handler itself (waitpid (), as GSubprocess
 * and g_child_watch_add () users do), and its reap would otherwise wait
 * for a wake-up of its own (the hang-up, or a probe). One look at the
 * handle, which tells a reap only once it has happened: the hang-up of a
 * pidfd (poll ()), signal 0 through it, or the stat file of a /proc
 * handle. A process of unknown status (not our child) is not looked at:
 * nobody here reaps it, and its reap announces itself. */
static ProcwatchProcessState
reaped_meanwhile (ProcwatchWatchSet *set,
                  ProcwatchWatch    *watch)
{
  const ProcwatchBackend *backend = set->backend;

  if (!procwatch_process_peek_status_known (watch->process) ||
      backend->read_state (backend, &watch->handle, PROCWATCH_PROBE_EXITED) !=
      PROCWATCH_PROCESS_STATE_REAPED)
    return PROCWATCH_PROCESS_STATE_EXITED;

  return PROCWATCH_PROCESS_STATE_REAPED;
}

/* Moves @watch forward to @state, reporting what lies on the way. Returns
 * false once the monitor is gone, after which @set must not be touched. */
static gboolean
advance_watch (ProcwatchWatchSet     *set,
               gboolean              *alive,
               ProcwatchWatch        *watch,
               ProcwatchProcessState  state)
{
  ProcwatchProcessState known = procwatch_process_peek_state (watch->process);
  Outcome outcome;

  if (!watch->watched || state <= known)
    return TRUE;

  if (known == PROCWATCH_PROCESS_STATE_RUNNING)
    {
      outcome = report_exit (set, alive, watch, state);
      if (outcome != GO_ON)
        return outcome != MONITOR_GONE;

      if (state == PROCWATCH_PROCESS_STATE_EXITED)
        state = reaped_meanwhile (set, watch);

      /* After the signal, to keep the epoll_ctl () off the latency path:
       * this source cannot be dispatched again before we return. */
      if (state == PROCWATCH_PROCESS_STATE_EXITED)
        procwatch_watch_set_arm (set, watch, state);
    }

  if (state == PROCWATCH_PROCESS_STATE_REAPED)
    return report_reap (set, alive, watch) != MONITOR_GONE;

  return TRUE;
}

static gboolean
process_ready (ProcwatchWatchSet *set,
               gboolean          *alive,
               ProcwatchWatch    *watch,
               guint32            revents)
{
  const ProcwatchBackend *backend = set->backend;
  ProcwatchProcessState state;

  if (!watch->watched)
    {
      procwatch_watch_set_retry_lingering (set, &watch->entry);
      return TRUE;
    }

  state = backend->read_state (backend, &watch->handle, revents);
  if (state <= procwatch_process_peek_state (watch->process))
    {
      procwatch_watch_set_probe_instead (set, watch);
      return TRUE;
    }

  return advance_watch (set, alive, watch, state);
}

static GTask *
pop_cgroup_wait (gpointer cgroup)
{
  return procwatch_cgroup_pop_wait (cgroup);
}

/* Reads cgroup.events and takes it as the truth: notifications are merged,
 * so whatever changed since the last read is what counts. An empty cgroup
 * is probed for its removal, which raises no event (not in epoll, not in
 * inotify); a cgroup can only be removed once empty. Returns false once
 * the monitor is gone. */
static gboolean
update_cgroup (ProcwatchWatchSet    *set,
               gboolean             *alive,
               ProcwatchCgroupWatch *watch)
{
  ProcwatchCgroup *cgroup = watch->cgroup;
  int populated = procwatch_cgroup_read_populated (watch->fd);
  gboolean was_populated = procwatch_cgroup_get_populated (cgroup);
  gboolean removed = populated < 0;
  GParamSpec *changed;
  Outcome outcome;

  if (removed)
    populated = FALSE;

  changed = procwatch_cgroup_set_populated (cgroup, populated);
  outcome = notify_changes (set, alive, &watch->entry, cgroup, &changed, 1);
  if (outcome == GO_ON && was_populated && !populated)
    outcome = emit_signal (set, alive, &watch->entry, cgroup_emptied_signal, cgroup);
  if (outcome == GO_ON && was_populated && !populated)
    outcome = complete_waits (set, alive, &watch->entry, pop_cgroup_wait, cgroup, cgroup);
  if (outcome != GO_ON)
    return outcome != MONITOR_GONE;

  /* Probed soon after it empties, then less and less often (see
   * probe_cgroup ()): not at every read, or the backoff would restart at
   * each probe. */
  if (removed)
    procwatch_watch_set_remove_cgroup (set, watch, N_("the cgroup was removed"));
  else if (populated)
    procwatch_probe_unschedule (set->probes, &watch->probe);
  else if (was_populated)
    procwatch_probe_schedule (set->probes, &watch->probe, TRUE);

  return TRUE;
}

static gboolean
cgroup_ready (ProcwatchWatchSet    *set,
              gboolean             *alive,
              ProcwatchCgroupWatch *watch)
{
  if (!watch->watched)
    {
      procwatch_watch_set_retry_lingering (set, &watch->entry);
      return TRUE;
    }

  PROCWATCH_TEST_SEAM_COUNT (cgroup_event_reads);
  return update_cgroup (set, alive, watch);
}

/* A step of a signal to a cgroup tree (its timer, or its cgroup.events:
 * frozen yet?); once it is done, its completion is a callout like any
 * other, made here and nowhere else. It needs no watch to go on: the
 * cgroup it was sent to is checked by id when it starts. */
static gboolean
signal_ready (ProcwatchWatchSet     *set,
              gboolean              *alive,
              ProcwatchCgroupSignal *op)
{
  Callout callout = { .kind = CALLOUT_COMPLETE_SIGNAL };
  GError *error = NULL;

  if (procwatch_cgroup_signal_is_done (op) || !procwatch_cgroup_signal_advance (op, &error))
    return TRUE;

  callout.object = op;
  callout.u.result.task = procwatch_watch_set_end_signal (set, op);
  callout.u.result.error = error;
  return call_out (set, alive, NULL, &callout) != MONITOR_GONE;
}

/* The source's ready_func: @owner is the watch set. */
void
procwatch_dispatch_handles_ready (gpointer                  owner,
                                  const struct epoll_event *events,
                                  guint                     n_events)
{
  ProcwatchWatchSet *set = owner;
  ProcwatchWatchSetLife *life = procwatch_watch_set_life_acquire (set->life);
  gboolean *alive = &life->alive;
  ProcwatchSourceEntry **batch = g_newa (ProcwatchSourceEntry *, n_events);
  gboolean open = TRUE;
  guint i;

  /* Pinned before any handler runs: one may unwatch a process whose event
   * is further down this batch. */
  for (i = 0; i < n_events; i++)
    batch[i] = procwatch_source_entry_ref (events[i].data.ptr);

  for (i = 0; i < n_events && open; i++)
    {
      if (batch[i]->kind == PROCWATCH_SOURCE_ENTRY_SIGNAL)
        open = signal_ready (set, alive, (ProcwatchCgroupSignal *) batch[i]);
      else if (batch[i]->kind == PROCWATCH_SOURCE_ENTRY_CGROUP)
        open = cgroup_ready (set, alive, (ProcwatchCgroupWatch *) batch[i]);
      else
        open = process_ready (set, alive, (ProcwatchWatch *) batch[i], events[i].events);
    }

  if (open)
    procwatch_watch_set_release_reaped (set);
  if (open && procwatch_watch_set_has_dropped (set))
    release_dropped (set, alive);

  /* Last, and plainly: the pin of a reaped process may be its last
   * reference, and the application's notifies may then do anything, but
   * nothing of the set is touched after them. */
  for (i = 0; i < n_events; i++)
    procwatch_source_entry_unref (batch[i]);

  procwatch_watch_set_life_release (life);
}

/* An empty cgroup, for its removal; it is probed less and less often
 * while it stays empty. */
static gboolean
probe_cgroup (ProcwatchWatchSet    *set,
              gboolean             *alive,
              ProcwatchCgroupWatch *watch)
{
  PROCWATCH_TEST_SEAM_COUNT (cgroup_probe_reads);
  if (!update_cgroup (set, alive, watch))
    return FALSE;

  if (watch->watched && !procwatch_probe_is_scheduled (&watch->probe) &&
      !procwatch_cgroup_get_populated (watch->cgroup))
    procwatch_probe_schedule (set->probes, &watch->probe, FALSE);

  return TRUE;
}

static gboolean
probe_process (ProcwatchWatchSet *set,
               gboolean          *alive,
               ProcwatchWatch    *watch)
{
  const ProcwatchBackend *backend = set->backend;
  ProcwatchProcessState before = procwatch_process_peek_state (watch->process);
  guint32 known = before == PROCWATCH_PROCESS_STATE_EXITED ? PROCWATCH_PROBE_EXITED : 0;

  if (!advance_watch (set, alive, watch, backend->read_state (backend, &watch->handle, known)))
    return FALSE;

  if (watch->watched && !procwatch_probe_is_scheduled (&watch->probe) &&
      procwatch_process_peek_state (watch->process) == before)
    procwatch_probe_schedule (set->probes, &watch->probe, FALSE);

  return TRUE;
}

/* The source's timer_func: @owner is the watch set. */
void
procwatch_dispatch_probes_due (gpointer owner)
{
  ProcwatchWatchSet *set = owner;
  ProcwatchWatchSetLife *life = procwatch_watch_set_life_acquire (set->life);
  gboolean *alive = &life->alive;
  g_autoptr(GPtrArray) due = g_ptr_array_new_with_free_func ((GDestroyNotify) procwatch_source_entry_unref);
  gboolean open = TRUE;
  guint i;

  /* Taken out of the queue first: probing may reschedule them. */
  procwatch_probe_scheduler_take_due (set->probes, due);
  for (i = 0; i < due->len; i++)
    procwatch_source_entry_ref (g_ptr_array_index (due, i));

  for (i = 0; i < due->len && open; i++)
    {
      ProcwatchSourceEntry *entry = g_ptr_array_index (due, i);

      if (!procwatch_source_entry_is_watched (entry))
        continue;

      if (entry->kind == PROCWATCH_SOURCE_ENTRY_CGROUP)
        open = probe_cgroup (set, alive, (ProcwatchCgroupWatch *) entry);
      else
        open = probe_process (set, alive, (ProcwatchWatch *) entry);
    }

  if (open)
    {
      procwatch_watch_set_release_reaped (set);
      procwatch_probe_scheduler_update_timer (set->probes);
      if (procwatch_watch_set_has_dropped (set))
        release_dropped (set, alive);
    }

  procwatch_watch_set_life_release (life);
  /* Then @due goes, as the pins of procwatch_dispatch_handles_ready (). */
}
