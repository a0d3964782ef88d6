/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * What a handler may do: every place the library calls the application (a
 * callout: a signal, a property notification, items-changed, a wait
 * completing) against every call back into the monitor that a handler may
 * make, for each kind of process. One test path per cell,
 * /reentrancy/CALLOUT/CALL/PROCESS-KIND, each run in a subprocess of its
 * own so that a cell that crashes the library fails alone. Only the
 * public API is used.
 *
 * docs/threads.md ("What a handler may do") states the outcome of every
 * cell; a new callout is one more line in callouts[] below.
 */

#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio-procwatch/procwatch.h>

#include "procwatch-test-cgroup.h"
#include "procwatch-test-util.h"

/* The property that says whether the wait status is known: its name in
 * one place, as it is being renamed. */
#define STATUS_KNOWN_PROPERTY "status-known"

/* How long a nested main loop in a handler runs at most. */
#define NESTED_LOOP_MS 100
/* A nested loop that blocks iterates a handful of times in that span; one
 * kept awake by a ready descriptor nobody takes, thousands. */
#define NESTED_LOOP_MAX_ITERATIONS 50
/* How long a cell waits for an event that must come. */
#define DEADLINE_SECONDS 20
#define EXIT_CODE 3

typedef enum
{
  CALLOUT_EXITED,
  CALLOUT_REAPED,
  CALLOUT_NOTIFY,
  CALLOUT_ITEMS_REMOVED,
  CALLOUT_ITEMS_ADDED,
  CALLOUT_MONITOR_WAIT,
  CALLOUT_PROCESS_WAIT,
  CALLOUT_CGROUP_NOTIFY,
  CALLOUT_CGROUP_EMPTIED,
  CALLOUT_CGROUP_WAIT,
  CALLOUT_CGROUP_SIGNAL,
  CALLOUT_LAST_REF,
} CalloutKind;

/* How the application holds an object whose last reference is the
 * monitor's: its finalization runs the application's code. */
typedef enum
{
  HOLDER_STRONG,          /* an ordinary reference: not one of these */
  HOLDER_WEAK,            /* g_object_weak_ref () */
  HOLDER_QDATA,           /* g_object_set_data_full ()'s destroy notify */
  HOLDER_TOGGLE,          /* g_object_add_toggle_ref (), as GJS and PyGObject hold objects */
} Holder;

/* Where the monitor lets go of it. */
typedef enum
{
  DROP_UNWATCH,           /* unwatch (pid) */
  DROP_UNWATCH_PROCESS,   /* unwatch_process () */
  DROP_UNWATCH_CGROUP,    /* unwatch_cgroup (): the cgroup's object */
  DROP_CLOSE,             /* close () */
  DROP_DISPOSE,           /* g_object_run_dispose () */
  DROP_REAP,              /* the process's reap */
  DROP_CGROUP_REMOVED,    /* the cgroup emptied and removed: the cgroup's object */
} Dropper;

typedef struct
{
  const char *name;
  CalloutKind kind;
  /* For notifications: the property, and for "state" the value it
   * changes to. */
  const char *property;
  ProcwatchProcessState state;
  /* The process dies by SIGKILL instead of exiting with EXIT_CODE. */
  gboolean killed;
  /* The process dies by SIGQUIT with its RLIMIT_CORE raised, in a scratch
   * directory of the cell: it dumps core there. */
  gboolean dumps_core;
  /* Comes only where the wait status gets known: for a child at its
   * exit, for another process at its reap. */
  gboolean needs_status;
  /* Comes once the monitor has stopped watching the process (its reap). */
  gboolean after_watch;
  /* Comes from inside a call the test makes, not from the monitor's
   * dispatch. */
  gboolean inside_call;
  /* For the last reference dropped: how the test holds the object, and
   * what makes the monitor let go of it. */
  Holder holder;
  Dropper dropper;
  /* Run for a child only: the kind of process changes nothing of it. */
  gboolean child_only;
} Callout;

/* The last reference to an object the test holds by @holder, dropped by
 * each thing that makes the monitor let go of it. Only the reap depends on
 * the kind of process. */
#define LAST_REF_ROWS(name, how) \
  { "last-ref-" name "-unwatch", CALLOUT_LAST_REF, .inside_call = TRUE, \
    .holder = how, .dropper = DROP_UNWATCH, .child_only = TRUE }, \
  { "last-ref-" name "-unwatch-process", CALLOUT_LAST_REF, .inside_call = TRUE, \
    .holder = how, .dropper = DROP_UNWATCH_PROCESS, .child_only = TRUE }, \
  { "last-ref-" name "-unwatch-cgroup", CALLOUT_LAST_REF, .inside_call = TRUE, \
    .holder = how, .dropper = DROP_UNWATCH_CGROUP, .child_only = TRUE }, \
  { "last-ref-" name "-close", CALLOUT_LAST_REF, .inside_call = TRUE, \
    .holder = how, .dropper = DROP_CLOSE, .child_only = TRUE }, \
  { "last-ref-" name "-dispose", CALLOUT_LAST_REF, .inside_call = TRUE, \
    .holder = how, .dropper = DROP_DISPOSE, .child_only = TRUE }, \
  { "last-ref-" name "-reap", CALLOUT_LAST_REF, .after_watch = TRUE, \
    .holder = how, .dropper = DROP_REAP }, \
  { "last-ref-" name "-cgroup-removed", CALLOUT_LAST_REF, \
    .holder = how, .dropper = DROP_CGROUP_REMOVED, .child_only = TRUE }

/* The rows. */
static const Callout callouts[] = {
  { "exited", CALLOUT_EXITED },
  { "reaped", CALLOUT_REAPED, .after_watch = TRUE },
  { "notify-state-exited", CALLOUT_NOTIFY, "state", PROCWATCH_PROCESS_STATE_EXITED },
  { "notify-state-reaped", CALLOUT_NOTIFY, "state", PROCWATCH_PROCESS_STATE_REAPED, .after_watch = TRUE },
  { "notify-" STATUS_KNOWN_PROPERTY, CALLOUT_NOTIFY, STATUS_KNOWN_PROPERTY, .needs_status = TRUE },
  { "notify-exit-status", CALLOUT_NOTIFY, "exit-status", .needs_status = TRUE },
  { "notify-term-sig", CALLOUT_NOTIFY, "term-sig", .needs_status = TRUE, .killed = TRUE },
  { "notify-core-dumped", CALLOUT_NOTIFY, "core-dumped", .needs_status = TRUE, .dumps_core = TRUE },
  { "items-changed-removed", CALLOUT_ITEMS_REMOVED, .after_watch = TRUE },
  { "items-changed-added", CALLOUT_ITEMS_ADDED, .inside_call = TRUE },
  { "monitor-wait", CALLOUT_MONITOR_WAIT },
  { "process-wait", CALLOUT_PROCESS_WAIT },
  { "cgroup-notify-populated", CALLOUT_CGROUP_NOTIFY, "populated" },
  { "cgroup-emptied", CALLOUT_CGROUP_EMPTIED },
  { "cgroup-wait-empty", CALLOUT_CGROUP_WAIT },
  { "cgroup-send-signal", CALLOUT_CGROUP_SIGNAL },
  LAST_REF_ROWS ("weak", HOLDER_WEAK),
  LAST_REF_ROWS ("qdata", HOLDER_QDATA),
  LAST_REF_ROWS ("toggle", HOLDER_TOGGLE),
};

typedef enum
{
  CALL_UNWATCH_SELF,
  CALL_UNWATCH_OTHER,
  CALL_CLOSE,
  CALL_LAST_UNREF,
  CALL_WATCH_NEW,
  CALL_NESTED_LOOP,
  CALL_CANCEL_WAIT,
} CallKind;

/* The columns. */
static const struct
{
  const char *name;
  CallKind kind;
} calls[] = {
  { "unwatch-self", CALL_UNWATCH_SELF },
  { "unwatch-other", CALL_UNWATCH_OTHER },
  { "close", CALL_CLOSE },
  { "last-unref", CALL_LAST_UNREF },
  { "watch-new", CALL_WATCH_NEW },
  { "nested-loop", CALL_NESTED_LOOP },
  { "cancel-wait", CALL_CANCEL_WAIT },
};

/* The qdata key of the last-reference rows. */
#define LAST_REF_KEY "procwatch-test-cell"

/* Cells that make no sense, and why: they are listed as skipped. */
static const struct
{
  CalloutKind callout;
  CallKind call;
  const char *why;
} not_applicable[] = {
  { CALLOUT_ITEMS_ADDED, CALL_LAST_UNREF,
    "items-changed for an addition runs inside watch_pid(), on the reference the caller "
    "lends the call: it cannot be the last one the caller drops" },
};

typedef enum
{
  KIND_CHILD,
  KIND_REAPED_AT_ONCE,
  KIND_REAPED_LATE,
} ProcessKind;

static const struct
{
  const char *name;
  ProcessKind kind;
} kinds[] = {
  { "child", KIND_CHILD },
  { "non-child-reaped-at-once", KIND_REAPED_AT_ONCE },
  { "non-child-reaped-late", KIND_REAPED_LATE },
};

typedef struct
{
  const Callout *callout;
  CallKind call;
  ProcessKind kind;
  const char *not_applicable;
} CellSpec;

typedef struct _Cell Cell;

/* A process or cgroup of a cell, and what was said about it. */
typedef struct
{
  const char *label;
  GObject *object;        /* a reference, or as @holder says */
  Holder holder;
  TestProcess *process;   /* for processes */
  gboolean ended;         /* told to exit, or killed */
  gboolean stopped;       /* its watch was ended by a call */
  guint n_exited;
  guint n_reaped;
  guint n_emptied;
} Tracked;

/* A wait the cell started, and how it must end. */
typedef struct
{
  Cell *cell;
  const char *label;
  Tracked *target;
  GCancellable *cancellable;
  gboolean on_monitor;
  gboolean callout;       /* its completion is the cell's callout */
  guint n_completed;
  gboolean succeeded;
  GError *error;
  /* Set by a call made before it completed: the outcome it must have. */
  gboolean decided;
  gboolean must_succeed;
} Wait;

struct _Cell
{
  const CellSpec *spec;
  ProcwatchProcessMonitor *monitor;   /* the test's one reference */
  guint fds_without_monitor;
  guint in_call;          /* depth of calls into the library */
  gboolean called;        /* the callout has run (once) */
  gboolean closed;
  gboolean shutting;      /* close () or dispose under way, or done */
  gboolean dropped;
  gboolean finishing;     /* the cell is being torn down */
  gboolean checked_fds_after_drop;
  gboolean cgroups;
  Tracked a;              /* the process (or cgroup x) of the callout */
  Tracked b;              /* another watched, running child */
  Tracked c;              /* watched from a handler */
  Tracked d;              /* watched at the end, to see the monitor works */
  Tracked x;              /* cgroup of a */
  Tracked y;              /* cgroup of b */
  Tracked *all[6];        /* the six above */
  TestCgroup *x_dir;
  TestCgroup *y_dir;
  gboolean a_listed;
  guint n_signals_done;   /* send_signal_async () into the cgroup */
  GPtrArray *waits;       /* Wait */
  GString *violations;
};

static void
violation (Cell       *cell,
           const char *format,
           ...) G_GNUC_PRINTF (2, 3);

static void
violation (Cell       *cell,
           const char *format,
           ...)
{
  va_list args;

  va_start (args, format);
  g_string_append (cell->violations, "\n  ");
  g_string_append_vprintf (cell->violations, format, args);
  va_end (args);
}

/* What the open fds are, to say which were left open. */
static char *
describe_fds (void)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  GString *text = g_string_new (NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc/self/fd", name, NULL);
      g_autofree char *target = g_file_read_link (path, NULL);

      /* The directory being read is not counted either. */
      if (target != NULL && g_str_has_prefix (target, "/proc/") && g_str_has_suffix (target, "/fd"))
        continue;
      g_string_append_printf (text, " %s=%s", name, target != NULL ? target : "?");
    }

  return g_string_free (text, FALSE);
}

static void
check_fds (Cell       *cell,
           guint       expected,
           const char *when)
{
  guint fds = test_count_open_fds ();
  g_autofree char *open_fds = NULL;

  if (fds == expected)
    return;

  open_fds = describe_fds ();
  violation (cell, "%u fds open %s, %u expected:%s", fds, when, expected, open_fds);
}

static gboolean
reporting (Cell *cell)
{
  return cell->monitor != NULL && !cell->closed;
}

/* Whether calls on the monitor work: not once close () or dispose has
 * begun, nor once it has been dropped. */
static gboolean
monitor_open (Cell *cell)
{
  return reporting (cell) && !cell->shutting && !cell->dropped;
}

static gboolean
is_cgroup_row (const Callout *callout)
{
  return callout->kind == CALLOUT_CGROUP_NOTIFY ||
         callout->kind == CALLOUT_CGROUP_EMPTIED ||
         callout->kind == CALLOUT_CGROUP_WAIT ||
         callout->kind == CALLOUT_CGROUP_SIGNAL ||
         (callout->kind == CALLOUT_LAST_REF &&
          (callout->dropper == DROP_UNWATCH_CGROUP || callout->dropper == DROP_CGROUP_REMOVED));
}

/* In a last-reference row, what the monitor lets go of: the process, or
 * its cgroup. */
static Tracked *
dropped_target (Cell *cell)
{
  return is_cgroup_row (cell->spec->callout) ? &cell->x : &cell->a;
}

static Tracked *
find_tracked (Cell    *cell,
              gpointer object)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cell->all); i++)
    if (cell->all[i]->object != NULL && cell->all[i]->object == object)
      return cell->all[i];

  return NULL;
}

/* Whether what a wait on @tracked waits for has been seen. */
static gboolean
end_seen (Tracked *tracked)
{
  if (PROCWATCH_IS_CGROUP (tracked->object))
    return !procwatch_cgroup_get_populated (PROCWATCH_CGROUP (tracked->object));

  return procwatch_process_get_state (PROCWATCH_PROCESS (tracked->object)) !=
         PROCWATCH_PROCESS_STATE_RUNNING;
}

/* Watching @tracked has stopped (@tracked NULL: everything): its pending
 * waits complete with what had been seen by then. */
static void
stopped (Cell    *cell,
         Tracked *tracked)
{
  guint i;

  for (i = 0; i < cell->waits->len; i++)
    {
      Wait *wait = g_ptr_array_index (cell->waits, i);

      if ((tracked == NULL || wait->target == tracked) &&
          wait->n_completed == 0 && !wait->decided)
        {
          wait->decided = TRUE;
          wait->must_succeed = end_seen (wait->target);
        }
    }

  if (tracked != NULL)
    tracked->stopped = TRUE;
}

static void
stop_everything (Cell *cell)
{
  guint i;

  stopped (cell, NULL);
  for (i = 0; i < G_N_ELEMENTS (cell->all); i++)
    cell->all[i]->stopped = TRUE;
}

/* Anything said about @tracked after its watch ended breaks a promise. */
static void
check_not_stopped (Cell       *cell,
                   Tracked    *tracked,
                   const char *what)
{
  if (tracked->stopped)
    violation (cell, "%s: %s after its watch was ended", tracked->label, what);
  if (cell->in_call)
    violation (cell, "%s: %s from inside a call to the library", tracked->label, what);
}

static void run_call (Cell *cell);

static void
callout_ran (Cell *cell)
{
  if (cell->called)
    return;

  cell->called = TRUE;
  run_call (cell);
}

/* What a finalizer of the application sees of the list model: processes
 * only, never the object going away, and none at all once close () or
 * dispose has begun (the list is emptied before anything is finalized). */
static void
check_model (Cell     *cell,
             gpointer  going)
{
  GListModel *model;
  guint n;
  guint i;

  if (cell->monitor == NULL)
    return;

  model = G_LIST_MODEL (cell->monitor);
  n = g_list_model_get_n_items (model);
  if (cell->shutting && n > 0)
    violation (cell, "the list model had %u items when close () or dispose finalized an object", n);

  for (i = 0; i < n; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (model, i);

      if (!PROCWATCH_IS_PROCESS (item))
        violation (cell, "item %u of %u of the list model is no process", i, n);
      else if ((gpointer) item == going)
        violation (cell, "the list model listed the object being finalized");
    }
}

/* The monitor has let go of the last reference but the test's hold: the
 * row's callout. */
static void
last_ref_dropped (Cell     *cell,
                  gpointer  object)
{
  if (cell->finishing)
    return;
  if (cell->called)
    {
      violation (cell, "the object was finalized twice");
      return;
    }

  check_model (cell, object);
  callout_ran (cell);
}

static void
on_last_ref_weak (gpointer  data,
                  GObject  *where_the_object_was)
{
  Cell *cell = data;

  dropped_target (cell)->object = NULL;
  last_ref_dropped (cell, where_the_object_was);
}

static void
on_last_ref_qdata (gpointer data)
{
  Cell *cell = data;
  Tracked *tracked = dropped_target (cell);
  gpointer object = g_steal_pointer (&tracked->object);

  last_ref_dropped (cell, object);
}

/* Down to the toggle reference alone: the object lives on, the test's. */
static void
on_last_ref_toggle (gpointer  data,
                    GObject  *object,
                    gboolean  is_last_ref)
{
  Cell *cell = data;

  if (is_last_ref && !cell->called)
    last_ref_dropped (cell, object);
}

/* The test's reference to @tracked becomes the row's hold: the monitor's
 * is the last one then. */
static void
hand_over (Cell    *cell,
           Tracked *tracked)
{
  const Callout *callout = cell->spec->callout;

  tracked->holder = callout->holder;
  if (callout->holder == HOLDER_WEAK)
    g_object_weak_ref (tracked->object, on_last_ref_weak, cell);
  else if (callout->holder == HOLDER_QDATA)
    g_object_set_data_full (tracked->object, LAST_REF_KEY, cell, on_last_ref_qdata);
  else
    g_object_add_toggle_ref (tracked->object, on_last_ref_toggle, cell);
  g_object_unref (tracked->object);
}

/* The process at the centre of the cell, by object. */
static gboolean
is_a (Cell    *cell,
      gpointer object)
{
  return cell->a.object != NULL && cell->a.object == object;
}

/* A signal of the monitor about @object: checks that it may come now, and
 * returns what the cell knows of @object, if anything. */
static Tracked *
signalled (Cell       *cell,
           gpointer    object,
           const char *what)
{
  Tracked *tracked = find_tracked (cell, object);

  if (cell->closed || cell->dropped)
    violation (cell, "%s after the monitor was closed or dropped", what);
  if (tracked != NULL)
    check_not_stopped (cell, tracked, what);

  return tracked;
}

static void
on_exited (ProcwatchProcessMonitor *monitor,
           ProcwatchProcess        *process,
           Cell                    *cell)
{
  Tracked *tracked = signalled (cell, process, "\"exited\"");

  if (tracked == NULL)
    return;

  if (tracked->n_exited > 0 || tracked->n_reaped > 0)
    violation (cell, "%s: \"exited\" again, or after \"reaped\"", tracked->label);
  tracked->n_exited++;

  if (cell->spec->callout->kind == CALLOUT_EXITED && is_a (cell, process))
    callout_ran (cell);
}

static void
on_reaped (ProcwatchProcessMonitor *monitor,
           ProcwatchProcess        *process,
           Cell                    *cell)
{
  Tracked *tracked = signalled (cell, process, "\"reaped\"");

  if (tracked == NULL)
    return;

  if (tracked->n_reaped > 0 || tracked->n_exited == 0)
    violation (cell, "%s: \"reaped\" again, or before \"exited\"", tracked->label);
  tracked->n_reaped++;

  if (cell->spec->callout->kind == CALLOUT_REAPED && is_a (cell, process))
    callout_ran (cell);
}

static gboolean
model_holds (GListModel *model,
             gpointer    object)
{
  guint n = g_list_model_get_n_items (model);
  guint i;

  for (i = 0; i < n; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (model, i);

      if (item == object)
        return TRUE;
    }

  return FALSE;
}

static void
on_items_changed (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  Cell       *cell)
{
  guint i;

  if (cell->closed || cell->dropped)
    violation (cell, "items-changed after the monitor was closed or dropped");

  if (cell->spec->callout->kind == CALLOUT_ITEMS_ADDED && cell->a.object == NULL)
    {
      for (i = position; i < position + added; i++)
        {
          g_autoptr(ProcwatchProcess) item = g_list_model_get_item (model, i);

          if (item != NULL &&
              procwatch_process_get_pid (item) == test_process_get_pid (cell->a.process))
            {
              cell->a.object = G_OBJECT (g_steal_pointer (&item));
              callout_ran (cell);
              return;
            }
        }
    }

  if (removed > 0 && cell->a_listed && !model_holds (model, cell->a.object))
    {
      cell->a_listed = FALSE;
      if (cell->spec->callout->kind == CALLOUT_ITEMS_REMOVED)
        callout_ran (cell);
    }
}

static void
on_cgroup_emptied (ProcwatchProcessMonitor *monitor,
                   ProcwatchCgroup         *cgroup,
                   Cell                    *cell)
{
  Tracked *tracked = signalled (cell, cgroup, "\"cgroup-emptied\"");

  if (tracked == NULL)
    return;

  if (tracked->n_emptied > 0)
    violation (cell, "%s: \"cgroup-emptied\" twice", tracked->label);
  tracked->n_emptied++;

  if (cell->spec->callout->kind == CALLOUT_CGROUP_EMPTIED && tracked == &cell->x)
    callout_ran (cell);
}

/* Every notification of a tracked object. */
static void
on_notify (GObject    *object,
           GParamSpec *pspec,
           Cell       *cell)
{
  const Callout *callout = cell->spec->callout;
  Tracked *tracked = find_tracked (cell, object);
  g_autofree char *what = g_strdup_printf ("notify::%s", pspec->name);

  g_assert_nonnull (tracked);
  check_not_stopped (cell, tracked, what);

  if (!g_str_equal (pspec->name, callout->property ? callout->property : ""))
    return;

  if (callout->kind == CALLOUT_CGROUP_NOTIFY && tracked == &cell->x)
    callout_ran (cell);

  if (callout->kind == CALLOUT_NOTIFY && is_a (cell, object) &&
      (!g_str_equal (pspec->name, "state") ||
       procwatch_process_get_state (PROCWATCH_PROCESS (object)) == callout->state))
    callout_ran (cell);
}

static void
track (Cell       *cell,
       Tracked    *tracked,
       const char *label,
       gpointer    object)
{
  tracked->label = label;
  if (tracked->object == NULL)
    tracked->object = g_object_ref (object);
  g_signal_connect (object, "notify", G_CALLBACK (on_notify), cell);
}

static void
on_wait_done (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Wait *wait = user_data;
  Cell *cell = wait->cell;
  g_autoptr(GObject) value = NULL;

  if (wait->on_monitor)
    value = G_OBJECT (procwatch_process_monitor_wait_finish (PROCWATCH_PROCESS_MONITOR (object),
                                                             result, &wait->error));
  else if (PROCWATCH_IS_CGROUP (object))
    wait->succeeded = procwatch_cgroup_wait_empty_finish (PROCWATCH_CGROUP (object), result,
                                                          &wait->error);
  else
    wait->succeeded = procwatch_process_wait_finish (PROCWATCH_PROCESS (object), result,
                                                     &wait->error);

  if (wait->on_monitor)
    {
      wait->succeeded = value != NULL;
      if (value != NULL && value != wait->target->object)
        violation (cell, "%s: completed with another process", wait->label);
    }

  if (wait->n_completed > 0)
    violation (cell, "%s: completed twice", wait->label);
  if (cell->in_call)
    violation (cell, "%s: completed from inside a call to the library", wait->label);
  wait->n_completed++;

  if (wait->callout)
    callout_ran (cell);
}

static Wait *
start_wait (Cell       *cell,
            const char *label,
            Tracked    *target,
            gboolean    on_monitor,
            gboolean    cancellable)
{
  Wait *wait = g_new0 (Wait, 1);

  wait->cell = cell;
  wait->label = label;
  wait->target = target;
  wait->on_monitor = on_monitor;
  wait->cancellable = cancellable ? g_cancellable_new () : NULL;
  g_ptr_array_add (cell->waits, wait);

  cell->in_call++;
  if (on_monitor)
    procwatch_process_monitor_wait_async (cell->monitor,
                                          procwatch_process_get_pid (PROCWATCH_PROCESS (target->object)),
                                          wait->cancellable, on_wait_done, wait);
  else if (PROCWATCH_IS_CGROUP (target->object))
    procwatch_cgroup_wait_empty_async (PROCWATCH_CGROUP (target->object), wait->cancellable,
                                       on_wait_done, wait);
  else
    procwatch_process_wait_async (PROCWATCH_PROCESS (target->object), wait->cancellable,
                                  on_wait_done, wait);
  cell->in_call--;

  return wait;
}

static void
wait_free (Wait *wait)
{
  g_clear_object (&wait->cancellable);
  g_clear_error (&wait->error);
  g_free (wait);
}

static gboolean
on_timeout (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
check_fds_after_drop (Cell *cell)
{
  if (!cell->dropped || cell->checked_fds_after_drop)
    return;

  cell->checked_fds_after_drop = TRUE;
  check_fds (cell, cell->fds_without_monitor,
             "once the dispatch that dropped the monitor returned");
}

/* One iteration of the default context: one dispatch of the monitor. */
static void
iterate (Cell *cell)
{
  g_main_context_iteration (NULL, TRUE);
  check_fds_after_drop (cell);
}

typedef gboolean (*Condition) (Cell    *cell,
                               Tracked *tracked);

/* Iterates the default context until @done; fails after a deadline. Right
 * after the dispatch that dropped the monitor, every fd must be closed. */
static void
iterate_until (Cell       *cell,
               Condition   done,
               Tracked    *tracked,
               const char *what)
{
  g_autoptr(GSource) deadline = g_timeout_source_new_seconds (DEADLINE_SECONDS);
  gboolean timed_out = FALSE;

  g_source_set_callback (deadline, on_timeout, &timed_out, NULL);
  g_source_attach (deadline, NULL);

  while (!done (cell, tracked) && !timed_out)
    iterate (cell);
  g_source_destroy (deadline);

  if (timed_out)
    g_error ("timed out after %d s waiting for %s%s%s", DEADLINE_SECONDS,
             tracked != NULL ? tracked->label : "", what, cell->violations->str);
}

static void
drain (Cell *cell)
{
  while (g_main_context_iteration (NULL, FALSE))
    check_fds_after_drop (cell);
}

/* What the test runs in the handler: the column. */
static void
nested_loop (Cell *cell)
{
  g_autoptr(GSource) timeout = g_timeout_source_new (NESTED_LOOP_MS);
  gboolean timed_out = FALSE;
  guint in_call = cell->in_call;
  guint iterations = 0;
  gboolean arrived;

  /* The other process has exited when the loop starts: its "exited" is
   * ready to be reported. */
  test_process_exit (cell->b.process, 0);
  cell->b.ended = TRUE;
  test_process_await_exit (cell->b.process);

  /* What the nested loop dispatches runs from the loop, not from inside
   * the call that the handler may be in. */
  cell->in_call = 0;
  g_source_set_callback (timeout, on_timeout, &timed_out, NULL);
  g_source_attach (timeout, NULL);
  while (cell->b.n_exited == 0 && !timed_out)
    {
      g_main_context_iteration (NULL, TRUE);
      iterations++;
    }
  g_source_destroy (timeout);
  cell->in_call = in_call;

  /* The monitor's source stays out of the nested loop without making it
   * spin: a source that kept its ready epoll fd polled but dispatched
   * nothing would have the loop iterate without blocking until the
   * timeout (tens of thousands of times). */
  if (iterations > NESTED_LOOP_MAX_ITERATIONS)
    violation (cell, "a nested main loop iterated %u times in %d ms: it did not block",
               iterations, NESTED_LOOP_MS);

  arrived = cell->b.n_exited > 0;
  /* A closed monitor reports nothing at all. */
  if (!monitor_open (cell))
    {
      if (arrived)
        violation (cell, "the other process's \"exited\" arrived after close () or dispose");
      return;
    }
  /* The monitor's source does not recurse: what it has to report waits
   * for the dispatch under way to return. Outside of one, a nested loop
   * dispatches it as any loop would. */
  if (!cell->spec->callout->inside_call && arrived)
    violation (cell, "the other process's \"exited\" arrived inside a nested main loop "
               "of a handler run from the monitor's dispatch");
  if (cell->spec->callout->inside_call && !arrived)
    violation (cell, "the other process's \"exited\" did not arrive in %d ms of a nested "
               "main loop run outside of any dispatch", NESTED_LOOP_MS);
}

static void
cancel_waits (Cell *cell)
{
  guint i;

  for (i = 0; i < cell->waits->len; i++)
    {
      Wait *wait = g_ptr_array_index (cell->waits, i);

      if (wait->cancellable == NULL)
        continue;

      /* GIO's rule: cancelled before its callback ran, it fails so. */
      if (wait->n_completed == 0)
        {
          wait->decided = TRUE;
          wait->must_succeed = FALSE;
        }
      g_cancellable_cancel (wait->cancellable);
    }
}

static void
watch_new (Cell *cell)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ProcwatchProcess) process = NULL;

  /* Refused once close () or dispose has begun: tried on a process there is. */
  if (!monitor_open (cell))
    {
      cell->in_call++;
      process = procwatch_process_monitor_watch_pid (cell->monitor,
                                                     test_process_get_pid (cell->b.process),
                                                     &error);
      cell->in_call--;
      g_assert_null (process);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED);
      return;
    }

  cell->c.process = test_process_spawn (TEST_PROCESS_CHILD);
  cell->in_call++;
  process = procwatch_process_monitor_watch_pid (cell->monitor,
                                                 test_process_get_pid (cell->c.process), &error);
  cell->in_call--;
  g_assert_no_error (error);
  track (cell, &cell->c, "the process watched in the handler", process);
}

static void
close_monitor (Cell *cell)
{
  stop_everything (cell);
  cell->shutting = TRUE;
  cell->in_call++;
  procwatch_process_monitor_close (cell->monitor);
  cell->in_call--;
  cell->closed = TRUE;

  check_fds (cell, cell->fds_without_monitor, "right after close() returned");
}

static void
dispose_monitor (Cell *cell)
{
  ProcwatchProcessMonitor *monitor = cell->monitor;

  stop_everything (cell);
  cell->shutting = TRUE;
  cell->in_call++;
  g_object_run_dispose (G_OBJECT (monitor));
  cell->in_call--;
  cell->closed = TRUE;

  check_fds (cell, cell->fds_without_monitor, "right after the dispose returned");
}

/* Whether unwatching @target from the callout must find it watched: not
 * once the process has been reaped. The status of a non-child is read at
 * its reap, around the end of its watch: no promise says on which side, so
 * either answer is right there (but nothing may follow a true one). */
static gboolean
unwatch_answer_known (Cell     *cell,
                      Tracked  *target,
                      gboolean *watched)
{
  const Callout *callout = cell->spec->callout;

  /* Not once close () or dispose has begun, nor what the monitor has let
   * go of. */
  if (!monitor_open (cell) ||
      (callout->kind == CALLOUT_LAST_REF && target == dropped_target (cell)))
    {
      *watched = FALSE;
      return TRUE;
    }

  *watched = target != &cell->a || !callout->after_watch;
  return target != &cell->a || !callout->needs_status || cell->spec->kind == KIND_CHILD;
}

static void
run_call (Cell *cell)
{
  gboolean cgroup_row = is_cgroup_row (cell->spec->callout);
  Tracked *self = cgroup_row ? &cell->x : &cell->a;
  Tracked *other = cgroup_row ? &cell->y : &cell->b;
  gboolean must_be_watched;
  gboolean was_watched;

  switch (cell->spec->call)
    {
    case CALL_UNWATCH_SELF:
    case CALL_UNWATCH_OTHER:
      {
        Tracked *target = cell->spec->call == CALL_UNWATCH_SELF ? self : other;

        cell->in_call++;
        /* Being finalized: only its pid is left to name it by. */
        if (target->object == NULL)
          was_watched = procwatch_process_monitor_unwatch (cell->monitor,
                                                           test_process_get_pid (target->process));
        else if (cgroup_row)
          was_watched = procwatch_process_monitor_unwatch_cgroup (cell->monitor,
                                                                  PROCWATCH_CGROUP (target->object));
        else
          was_watched = procwatch_process_monitor_unwatch_process (cell->monitor,
                                                                   PROCWATCH_PROCESS (target->object));
        cell->in_call--;

        if (unwatch_answer_known (cell, target, &must_be_watched) &&
            was_watched != must_be_watched)
          violation (cell, "%s: unwatch returned %s", target->label,
                     was_watched ? "true" : "false");
        /* Only a watch that was still on is ended by the call. */
        if (was_watched)
          stopped (cell, target);
      }
      break;

    case CALL_CLOSE:
      close_monitor (cell);
      break;

    case CALL_LAST_UNREF:
      stop_everything (cell);
      g_clear_object (&cell->monitor);
      cell->dropped = TRUE;
      break;

    case CALL_WATCH_NEW:
      watch_new (cell);
      break;

    case CALL_NESTED_LOOP:
      nested_loop (cell);
      break;

    case CALL_CANCEL_WAIT:
      cancel_waits (cell);
      break;

    default:
      g_assert_not_reached ();
    }
}

/* Whether the monitor has said what it must about @tracked, or must say
 * nothing more. */
static gboolean
exit_settled (Cell    *cell,
              Tracked *tracked)
{
  return tracked->n_exited > 0 || tracked->stopped || !reporting (cell);
}

static gboolean
reap_settled (Cell    *cell,
              Tracked *tracked)
{
  return tracked->n_reaped > 0 || tracked->stopped || !reporting (cell);
}

static gboolean
emptied_settled (Cell    *cell,
                 Tracked *tracked)
{
  return tracked->n_emptied > 0 || tracked->stopped || !reporting (cell);
}

static gboolean
all_waits_completed (Cell    *cell,
                     Tracked *unused)
{
  guint i;

  for (i = 0; i < cell->waits->len; i++)
    if (((Wait *) g_ptr_array_index (cell->waits, i))->n_completed == 0)
      return FALSE;

  return TRUE;
}

/* The signal into the cgroup is the callout of its row. */
static void
on_signal_sent (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Cell *cell = user_data;
  g_autoptr(GError) error = NULL;

  if (!procwatch_cgroup_send_signal_finish (PROCWATCH_CGROUP (object), result, &error))
    violation (cell, "the signal into the cgroup failed: %s", error->message);
  if (cell->in_call)
    violation (cell, "the signal into the cgroup completed from inside a call to the library");
  if (cell->n_signals_done++ > 0)
    violation (cell, "the signal into the cgroup completed twice");
  callout_ran (cell);
}

static gboolean
signal_settled (Cell    *cell,
                Tracked *unused)
{
  return cell->n_signals_done > 0;
}

/* SIGCONT changes nothing for a process that runs, and goes through the
 * freeze: the signal's own fds in the monitor's epoll set, the wait for
 * "frozen 1", the thaw, then the completion. Awaited before the process
 * ends, so that the test never blocks outside the main loop on a process
 * that the monitor has frozen. */
static void
send_signal_into_cgroup (Cell *cell)
{
  cell->in_call++;
  procwatch_cgroup_send_signal_async (PROCWATCH_CGROUP (cell->x.object), SIGCONT, NULL,
                                      on_signal_sent, cell);
  cell->in_call--;
  iterate_until (cell, signal_settled, NULL, "the signal into the cgroup");
}

/* Ends the cell's own process, of its kind, and lets the monitor report. */
static void
end_a (Cell *cell)
{
  TestProcess *process = cell->a.process;

  if (cell->spec->callout->dumps_core)
    test_process_kill (process, SIGQUIT);
  else if (cell->spec->callout->killed)
    test_process_kill (process, SIGKILL);
  else
    test_process_exit (process, EXIT_CODE);
  cell->a.ended = TRUE;

  switch (cell->spec->kind)
    {
    case KIND_CHILD:
      iterate_until (cell, exit_settled, &cell->a, ": \"exited\"");
      test_process_reap (process);
      break;

    case KIND_REAPED_AT_ONCE:
      test_process_reap (process);
      break;

    case KIND_REAPED_LATE:
      test_process_await_exit (process);
      iterate_until (cell, exit_settled, &cell->a, ": \"exited\"");
      test_process_reap (process);
      break;

    default:
      g_assert_not_reached ();
    }

  iterate_until (cell, reap_settled, &cell->a, ": \"reaped\"");
  if (cell->cgroups)
    iterate_until (cell, emptied_settled, &cell->x, ": \"cgroup-emptied\"");
}

/* Ends a child, and waits for what the monitor must say about it; returns
 * whether it had to say it. */
static gboolean
end_child (Cell    *cell,
           Tracked *tracked)
{
  gboolean watched = reporting (cell) && !tracked->stopped;

  if (tracked->process == NULL)
    return FALSE;

  if (!tracked->ended)
    test_process_exit (tracked->process, 0);
  tracked->ended = TRUE;

  iterate_until (cell, exit_settled, tracked, ": \"exited\"");
  test_process_reap (tracked->process);
  iterate_until (cell, reap_settled, tracked, ": \"reaped\"");

  return watched && !tracked->stopped && reporting (cell);
}

static void
assert_reported_once (Cell    *cell,
                      Tracked *tracked)
{
  if (tracked->n_exited != 1 || tracked->n_reaped != 1)
    violation (cell, "%s: \"exited\" %u times and \"reaped\" %u times, not once each",
               tracked->label, tracked->n_exited, tracked->n_reaped);
}

/* A monitor still open reports a process watched now; a closed one
 * refuses it. Its events also come after anything still due for the
 * others, which the backend saw earlier. */
static void
check_fresh_process (Cell *cell)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ProcwatchProcess) process = NULL;

  if (cell->monitor == NULL)
    return;

  cell->d.process = test_process_spawn (TEST_PROCESS_CHILD);
  process = procwatch_process_monitor_watch_pid (cell->monitor,
                                                 test_process_get_pid (cell->d.process), &error);
  if (cell->closed)
    {
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED);
      return;
    }

  g_assert_no_error (error);
  track (cell, &cell->d, "a process watched afterwards", process);
  if (end_child (cell, &cell->d))
    assert_reported_once (cell, &cell->d);
}

static void
check_waits (Cell *cell)
{
  guint i;

  for (i = 0; i < cell->waits->len; i++)
    {
      Wait *wait = g_ptr_array_index (cell->waits, i);
      gboolean must_succeed = wait->decided ? wait->must_succeed : TRUE;

      if (wait->n_completed != 1)
        violation (cell, "%s: completed %u times", wait->label, wait->n_completed);
      else if (must_succeed && !wait->succeeded)
        violation (cell, "%s: failed (%s), but what it waits for was seen", wait->label,
                   wait->error != NULL ? wait->error->message : "no error");
      else if (!must_succeed && !g_error_matches (wait->error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        violation (cell, "%s: %s, not G_IO_ERROR_CANCELLED", wait->label,
                   wait->error != NULL ? wait->error->message : "succeeded");
    }
}

static void
tracked_clear (Cell    *cell,
               Tracked *tracked)
{
  if (tracked->object != NULL)
    {
      g_signal_handlers_disconnect_matched (tracked->object, G_SIGNAL_MATCH_FUNC, 0, 0, NULL,
                                            on_notify, NULL);
      /* A hold whose notify never came: the object is the monitor's. */
      if (tracked->holder == HOLDER_WEAK)
        g_object_weak_unref (tracked->object, on_last_ref_weak, cell);
      else if (tracked->holder == HOLDER_QDATA)
        g_object_steal_data (tracked->object, LAST_REF_KEY);
      else if (tracked->holder == HOLDER_TOGGLE)
        g_object_remove_toggle_ref (tracked->object, on_last_ref_toggle, cell);
      else
        g_object_unref (tracked->object);
      tracked->object = NULL;
    }
  g_clear_pointer (&tracked->process, test_process_free);
}

static TestProcessKind
test_process_kind (ProcessKind kind)
{
  return kind == KIND_CHILD ? TEST_PROCESS_CHILD : TEST_PROCESS_GRANDCHILD;
}

static ProcwatchProcess *
watch_process (Cell        *cell,
               TestProcess *process)
{
  g_autoptr(GError) error = NULL;
  ProcwatchProcess *watched;

  cell->in_call++;
  watched = procwatch_process_monitor_watch_pid (cell->monitor, test_process_get_pid (process),
                                                 &error);
  cell->in_call--;
  g_assert_no_error (error);

  return watched;
}

static ProcwatchCgroup *
watch_cgroup (Cell       *cell,
              TestCgroup *dir)
{
  g_autoptr(GError) error = NULL;
  ProcwatchCgroup *cgroup;

  cgroup = procwatch_process_monitor_watch_cgroup (cell->monitor, dir->relative, &error);
  g_assert_no_error (error);
  g_assert_true (procwatch_cgroup_get_populated (cgroup));

  return cgroup;
}

static void
set_up_cgroups (Cell *cell)
{
  g_autofree char *x_name = g_strdup_printf ("cell-%d-x", (int) getpid ());
  g_autofree char *y_name = g_strdup_printf ("cell-%d-y", (int) getpid ());

  cell->cgroups = TRUE;
  cell->x_dir = test_cgroup_new (x_name);
  cell->y_dir = test_cgroup_new (y_name);
  test_cgroup_move (cell->x_dir, test_process_get_pid (cell->a.process));
  test_cgroup_move (cell->y_dir, test_process_get_pid (cell->b.process));
}

static void
start_waits (Cell *cell)
{
  const Callout *callout = cell->spec->callout;
  gboolean cancel = cell->spec->call == CALL_CANCEL_WAIT;
  /* A wait holds its object: none on what the monitor is to let go of,
   * and none on a process that no row's end makes exit. */
  gboolean last_ref = callout->kind == CALLOUT_LAST_REF;
  Wait *wait;

  /* Which wait is the callout, and which the handler cancels. */
  if (callout->kind != CALLOUT_ITEMS_ADDED && !last_ref)
    {
      wait = start_wait (cell, "a wait on the process", &cell->a, FALSE, FALSE);
      wait->callout = callout->kind == CALLOUT_PROCESS_WAIT;
    }
  if (callout->kind == CALLOUT_MONITOR_WAIT)
    {
      wait = start_wait (cell, "a wait on the monitor", &cell->a, TRUE, FALSE);
      wait->callout = TRUE;
    }
  start_wait (cell, "a wait on the other process", &cell->b, FALSE, FALSE);

  if (cell->cgroups)
    {
      if (!last_ref)
        {
          wait = start_wait (cell, "a wait on the cgroup", &cell->x, FALSE, FALSE);
          wait->callout = callout->kind == CALLOUT_CGROUP_WAIT;
        }
      start_wait (cell, "a wait on the other cgroup", &cell->y, FALSE, FALSE);
    }

  if (!cancel)
    return;

  if (cell->cgroups)
    {
      if (!last_ref)
        start_wait (cell, "a cancellable wait on the cgroup", &cell->x, FALSE, TRUE);
      start_wait (cell, "a cancellable wait on the other cgroup", &cell->y, FALSE, TRUE);
    }
  else
    {
      /* The process being added has no wait yet: there is only the other's. */
      if (callout->kind != CALLOUT_ITEMS_ADDED && !last_ref)
        start_wait (cell, "a cancellable wait on the process", &cell->a, FALSE, TRUE);
      start_wait (cell, "a cancellable wait on the other process", &cell->b, FALSE, TRUE);
    }
}

static gboolean
can_raise_core_limit_from_zero (void)
{
  int status = 0;
  pid_t pid = fork ();

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      struct rlimit limit = { 0, 0 };

      if (setrlimit (RLIMIT_CORE, &limit) != 0)
        _exit (1);
      limit.rlim_cur = limit.rlim_max = RLIM_INFINITY;
      _exit (setrlimit (RLIMIT_CORE, &limit) == 0 ? 0 : 1);
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);

  return WIFEXITED (status) && WEXITSTATUS (status) == 0;
}

/* Whether a process that dumps core here writes a file in its working
 * directory: a pipe or socket core_pattern is machine-wide, not the
 * test's; under valgrind the process writes a vgcore of valgrind's. */
static gboolean
core_dumps_land_here (char **why)
{
  g_autofree char *pattern = NULL;

  if (g_strrstr (g_getenv ("LD_PRELOAD") ? g_getenv ("LD_PRELOAD") : "", "vgpreload") != NULL)
    {
      *why = g_strdup ("under valgrind a process writes valgrind's vgcore, not the kernel's core");
      return FALSE;
    }

  /* GLib sets a test subprocess's RLIMIT_CORE to 0, the hard limit too:
   * only CAP_SYS_RESOURCE raises that again. Asked of a forked process. */
  if (!can_raise_core_limit_from_zero ())
    {
      *why = g_strdup ("GLib sets the hard RLIMIT_CORE of a test subprocess to 0, and raising "
                       "it again needs CAP_SYS_RESOURCE, which this process lacks");
      return FALSE;
    }

  if (!g_file_get_contents ("/proc/sys/kernel/core_pattern", &pattern, NULL, NULL))
    pattern = g_strdup ("");
  g_strchomp (pattern);
  if (pattern[0] == '\0' || pattern[0] == '|' || pattern[0] == '@' || strchr (pattern, '/') != NULL)
    {
      *why = g_strdup_printf ("core_pattern is \"%s\": a dump does not land in the cell's "
                              "directory (untested here)", pattern);
      return FALSE;
    }

  return TRUE;
}

static char *
start_dumping_core (void)
{
  g_autoptr(GError) error = NULL;
  struct rlimit limit;
  char *dir;

  limit.rlim_cur = RLIM_INFINITY;
  limit.rlim_max = RLIM_INFINITY;
  g_assert_no_errno (setrlimit (RLIMIT_CORE, &limit));
  dir = g_dir_make_tmp ("procwatch-reentrancy-XXXXXX", &error);
  g_assert_no_error (error);
  g_assert_no_errno (chdir (dir));

  return dir;
}

static void
stop_dumping_core (const char *dir)
{
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_assert_no_errno (unlink (path));
    }
  g_assert_no_errno (chdir ("/"));
  g_assert_no_errno (rmdir (dir));
}

static gboolean
callout_came (Cell    *cell,
              Tracked *unused)
{
  return cell->called;
}

/* What makes the monitor let go of the last reference but the test's
 * hold; the row's callout comes from it. */
static void
drop_last_ref (Cell *cell)
{
  const Callout *callout = cell->spec->callout;
  ProcwatchProcessMonitor *monitor = cell->monitor;
  Tracked *target = dropped_target (cell);
  gboolean watched = TRUE;

  switch (callout->dropper)
    {
    case DROP_UNWATCH:
    case DROP_UNWATCH_PROCESS:
    case DROP_UNWATCH_CGROUP:
      stopped (cell, target);
      cell->in_call++;
      if (callout->dropper == DROP_UNWATCH)
        watched = procwatch_process_monitor_unwatch (monitor,
                                                     test_process_get_pid (cell->a.process));
      else if (callout->dropper == DROP_UNWATCH_PROCESS)
        watched = procwatch_process_monitor_unwatch_process (monitor,
                                                             PROCWATCH_PROCESS (target->object));
      else
        watched = procwatch_process_monitor_unwatch_cgroup (monitor,
                                                            PROCWATCH_CGROUP (target->object));
      cell->in_call--;
      break;

    case DROP_CLOSE:
      close_monitor (cell);
      break;

    case DROP_DISPOSE:
      dispose_monitor (cell);
      break;

    case DROP_REAP:
      end_a (cell);
      break;

    case DROP_CGROUP_REMOVED:
      /* Its removal, which the monitor probes for once it is empty. */
      end_a (cell);
      g_clear_pointer (&cell->x_dir, test_cgroup_free);
      break;

    default:
      g_assert_not_reached ();
    }

  if (!watched)
    violation (cell, "%s: unwatching it returned false", target->label);
  /* As an ordinary unref would: before the call returns. */
  if (callout->inside_call && !cell->called)
    violation (cell, "%s: the object was not finalized by the time the call returned",
               target->label);
  iterate_until (cell, callout_came, NULL, "the last reference to go");
}

static void
run_cell (const CellSpec *spec)
{
  const Callout *callout = spec->callout;
  Cell cell_storage = { 0, };
  Cell *cell = &cell_storage;
  g_autoptr(ProcwatchProcess) a = NULL;
  g_autoptr(ProcwatchProcess) b = NULL;
  g_autofree char *core_dir = NULL;
  guint fds_at_start;
  guint i;

  fds_at_start = test_count_open_fds ();
  cell->spec = spec;
  cell->waits = g_ptr_array_new_with_free_func ((GDestroyNotify) wait_free);
  cell->violations = g_string_new (NULL);
  cell->a.label = "the process";
  cell->b.label = "the other process";
  cell->x.label = "the cgroup";
  cell->y.label = "the other cgroup";
  memcpy (cell->all, (Tracked *[]) { &cell->a, &cell->b, &cell->c, &cell->d, &cell->x, &cell->y },
          sizeof cell->all);

  /* The cell's own process inherits both; the cell runs in a subprocess of
   * its own, which leaves the directory again at its end. */
  if (callout->dumps_core)
    core_dir = start_dumping_core ();
  cell->a.process = test_process_spawn (test_process_kind (spec->kind));
  cell->b.process = test_process_spawn (TEST_PROCESS_CHILD);
  if (is_cgroup_row (callout))
    set_up_cgroups (cell);

  cell->fds_without_monitor = test_count_open_fds ();
  cell->monitor = procwatch_process_monitor_new ();
  g_signal_connect (cell->monitor, "exited", G_CALLBACK (on_exited), cell);
  g_signal_connect (cell->monitor, "reaped", G_CALLBACK (on_reaped), cell);
  g_signal_connect (cell->monitor, "cgroup-emptied", G_CALLBACK (on_cgroup_emptied), cell);
  g_signal_connect (cell->monitor, "items-changed", G_CALLBACK (on_items_changed), cell);

  b = watch_process (cell, cell->b.process);
  track (cell, &cell->b, cell->b.label, b);
  if (cell->cgroups)
    {
      g_autoptr(ProcwatchCgroup) x = watch_cgroup (cell, cell->x_dir);
      g_autoptr(ProcwatchCgroup) y = watch_cgroup (cell, cell->y_dir);

      track (cell, &cell->x, cell->x.label, x);
      track (cell, &cell->y, cell->y.label, y);
    }

  /* For this row the callout is the watch itself, from inside the call:
   * the waits a handler may cancel come first. */
  if (callout->kind == CALLOUT_ITEMS_ADDED)
    {
      start_waits (cell);
      a = watch_process (cell, cell->a.process);
      if (!cell->called)
        violation (cell, "no items-changed inside watch_pid()");
      g_assert_true (cell->a.object == G_OBJECT (a));
    }
  else
    a = watch_process (cell, cell->a.process);
  track (cell, &cell->a, cell->a.label, a);
  cell->a_listed = reporting (cell) && !cell->a.stopped;

  if (callout->kind != CALLOUT_ITEMS_ADDED)
    start_waits (cell);
  if (callout->kind == CALLOUT_CGROUP_SIGNAL)
    send_signal_into_cgroup (cell);

  if (callout->kind == CALLOUT_LAST_REF)
    {
      g_clear_object (&a);
      hand_over (cell, dropped_target (cell));
      drop_last_ref (cell);
    }
  else
    end_a (cell);
  if (!cell->called)
    violation (cell, "the callout never came");

  /* The others end too, and whatever is still watched is reported. */
  if (end_child (cell, &cell->b))
    assert_reported_once (cell, &cell->b);
  if (end_child (cell, &cell->c))
    assert_reported_once (cell, &cell->c);
  if (!cell->a.ended)
    {
      if (end_child (cell, &cell->a))
        assert_reported_once (cell, &cell->a);
    }
  else if (!cell->a.stopped && reporting (cell))
    assert_reported_once (cell, &cell->a);

  check_fresh_process (cell);
  iterate_until (cell, all_waits_completed, NULL, "every wait to complete");
  drain (cell);
  check_waits (cell);

  /* Whatever the handler did, nothing is left behind. */
  cell->finishing = TRUE;
  g_clear_object (&cell->monitor);
  for (i = 0; i < G_N_ELEMENTS (cell->all); i++)
    tracked_clear (cell, cell->all[i]);
  g_clear_object (&a);
  g_clear_object (&b);
  g_clear_pointer (&cell->x_dir, test_cgroup_free);
  g_clear_pointer (&cell->y_dir, test_cgroup_free);
  drain (cell);
  check_fds (cell, fds_at_start, "at the end of the cell");

  g_ptr_array_unref (cell->waits);
  if (core_dir != NULL)
    stop_dumping_core (core_dir);
  g_assert_cmpstr (cell->violations->str, ==, "");
  g_string_free (cell->violations, TRUE);
}

static gboolean
status_known_at_reap (void)
{
  static int known = -1;

  if (known < 0)
    {
      g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();

      known = test_status_known_after_reap (monitor);
    }

  return known;
}

static void
test_cell (gconstpointer data)
{
  const CellSpec *spec = data;
  g_autofree char *why = NULL;

  if (spec->not_applicable != NULL)
    {
      g_test_skip (spec->not_applicable);
      return;
    }

  if (spec->callout->dumps_core && !core_dumps_land_here (&why))
    {
      g_test_skip (why);
      return;
    }

  if (is_cgroup_row (spec->callout) && test_cgroups_skip ())
    return;

  /* A child's status is known from its exit; another process's only from
   * its reap, and only where the kernel keeps it for the pidfd backend. */
  if (spec->callout->needs_status && spec->kind != KIND_CHILD && !status_known_at_reap ())
    {
      g_test_skip ("the status of a non-child is never known with this backend and kernel: "
                   "nothing to notify");
      return;
    }

  if (g_test_subprocess ())
    {
      run_cell (spec);
      return;
    }

  /* A failed cell fails alone: the others still run. */
  g_test_set_nonfatal_assertions ();
  g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

static const char *
find_not_applicable (const Callout *callout,
                     CallKind       call)
{
  guint i;

  if (callout->kind == CALLOUT_LAST_REF && is_cgroup_row (callout) &&
      callout->holder != HOLDER_TOGGLE && call == CALL_UNWATCH_SELF)
    return "the cgroup's object is being finalized, and a cgroup is unwatched by its object: "
           "nothing is left to name it by";

  for (i = 0; i < G_N_ELEMENTS (not_applicable); i++)
    if (not_applicable[i].callout == callout->kind && not_applicable[i].call == call)
      return not_applicable[i].why;

  return NULL;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GPtrArray) specs = g_ptr_array_new_with_free_func (g_free);
  const char *expected = test_expected_backend ();
  guint i, j, k;

  test_cgroups_set_up ();
  test_init (&argc, &argv);
  /* Their wakeup fds are not the monitor's: they exist before any fd
   * count (GTask's class makes GLib's worker context). */
  (void) g_main_context_default ();
  g_type_ensure (G_TYPE_TASK);

  if (expected != NULL)
    {
      g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();

      g_assert_cmpstr (procwatch_process_monitor_get_backend (monitor), ==, expected);
    }

  for (i = 0; i < G_N_ELEMENTS (callouts); i++)
    for (j = 0; j < G_N_ELEMENTS (calls); j++)
      for (k = 0; k < G_N_ELEMENTS (kinds); k++)
        {
          CellSpec *spec;
          g_autofree char *path = NULL;

          if (callouts[i].child_only && kinds[k].kind != KIND_CHILD)
            continue;

          spec = g_new0 (CellSpec, 1);
          path = g_strdup_printf ("/reentrancy/%s/%s/%s", callouts[i].name,
                                                   calls[j].name, kinds[k].name);

          spec->callout = &callouts[i];
          spec->call = calls[j].kind;
          spec->kind = kinds[k].kind;
          spec->not_applicable = find_not_applicable (&callouts[i], calls[j].kind);
          g_ptr_array_add (specs, spec);
          g_test_add_data_func (path, spec, test_cell);
        }

  return g_test_run ();
}
