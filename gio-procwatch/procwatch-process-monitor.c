/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <errno.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "procwatch-cgroup-files-private.h"
#include "procwatch-cgroup-private.h"
#include "procwatch-dbus-sender-private.h"
#include "procwatch-dispatch-private.h"
#include "procwatch-enums.h"
#include "procwatch-process-token-private.h"
#include "procwatch-i18n-private.h"
#include "procwatch-process-monitor.h"
#include "procwatch-process-private.h"
#include "procwatch-watch-set-private.h"

/**
 * ProcwatchProcessMonitor:
 *
 * Tells when processes terminate and when they are reaped.
 *
 * A `ProcwatchProcessMonitor` watches any processes the caller can see, not
 * only its own children. For each watched process it emits
 * [signal@Procwatch.ProcessMonitor::exited] once the process has terminated
 * (a zombie, or already reaped if its parent was quicker than the
 * monitor), then [signal@Procwatch.ProcessMonitor::reaped] once its
 * parent has collected it and its pid is free. Each signal is emitted exactly
 * once per process, "exited" always first, even when the kernel reports both
 * at the same time.
 *
 * Processes are identified by kernel handles (pidfds), not by pid numbers, so
 * a pid that is reused after a reap is never taken for the process that had
 * it before. [method@Procwatch.ProcessMonitor.watch_pidfd] closes the last
 * gap: a pidfd refers to one process for its whole life.
 *
 * The monitor never reaps: it coexists with [func@GLib.child_watch_add],
 * [class@Gio.Subprocess] and applications that call `waitpid()` themselves.
 *
 * All watched processes share one [struct@GLib.Source] with one epoll file
 * descriptor (none with the "poll" backend, which only probes, until a
 * cgroup is watched), so an iteration of the main loop costs the same
 * whether no process or ten thousand are watched.
 *
 * It also watches cgroups (version 2), such as the one a desktop starts an
 * application in, to tell when no process of the application is left:
 * see [method@Procwatch.ProcessMonitor.watch_cgroup].
 *
 * Signals are emitted, and asynchronous waits complete, in the thread-default
 * main context of the thread that created the monitor (see
 * [method@GLib.MainContext.push_thread_default]); never, except for the
 * list model's "items-changed" (see below), from inside a call
 * to the library (watching, unwatching, closing, disposing, dropping a
 * reference, cancelling, finishing): a wait that such a call ends completes
 * from a later iteration of that context.
 *
 * A monitor is not thread-safe: use it from that thread. The one exception
 * is the last reference, which may be dropped in any thread (as garbage
 * collectors of language bindings do): the monitor then waits for a
 * dispatch under way in its context to end, and nothing of it runs after.
 * Any other use from another thread, `g_object_run_dispose()` and
 * [method@Procwatch.ProcessMonitor.close] included, is unsupported.
 *
 * The monitor is a [iface@Gio.ListModel] of the [class@Procwatch.Process]
 * objects it watches, in the order they were first watched, for a
 * `GtkListView` or `GtkColumnView` to show. A process leaves the list when
 * watching it stops: just before its
 * [signal@Procwatch.ProcessMonitor::reaped] (when, as documented there, it
 * is no longer watched), when it is unwatched, or, all at once, when the
 * monitor is closed. As with every list model,
 * [signal@Gio.ListModel::items-changed] is emitted synchronously, also
 * from inside the calls that change the list (watching, unwatching,
 * closing); not when the monitor is disposed. The monitor's own cost per
 * change is O(log n) in the number of watched processes (for a new watch,
 * amortized: now and then the list is compacted).
 *
 * A pending [method@Procwatch.ProcessMonitor.wait_async] holds a reference
 * to the monitor, as pending operations of GIO objects do: dropping yours
 * does not stop it. To stop everything at once, call
 * [method@Procwatch.ProcessMonitor.close].
 *
 * After `fork()` (without `exec()`), the child's copy of a monitor is
 * closed: it shares its epoll instance with the parent's, so anything it
 * did could change what the parent's monitor reports. In the child, calls
 * that take a [struct@GLib.Error] fail with `G_IO_ERROR_CLOSED`, the others
 * return false or nothing, nothing is emitted, and dropping it only closes
 * the child's copies of its file descriptors.
 */

struct _ProcwatchProcessMonitor
{
  GObject parent_instance;

  /* Everything watched, and the source that watches it. */
  ProcwatchWatchSet set;

  /* Decided at creation; never changes. */
  ProcwatchFeatures features;
};

enum {
  PROP_0,
  PROP_BACKEND,
  PROP_FEATURES,
  N_PROPS
};

enum {
  SIGNAL_EXITED,
  SIGNAL_REAPED,
  SIGNAL_CGROUP_EMPTIED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void procwatch_process_monitor_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (ProcwatchProcessMonitor, procwatch_process_monitor, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      procwatch_process_monitor_list_model_init))

/* Every new watch starts here. */
static gboolean
prepare_watch (ProcwatchProcessMonitor  *self,
               GError                  **error)
{
  return procwatch_watch_set_prepare (&self->set,
                                      procwatch_dispatch_handles_ready,
                                      procwatch_dispatch_probes_due,
                                      error);
}

static gboolean
is_open (ProcwatchProcessMonitor *self)
{
  return procwatch_watch_set_is_open (&self->set);
}

/* Takes @handle. Returns a reference to the watch of the process it refers
 * to: an existing one if the process is watched already, else a new one.
 * The reference is the caller's: a handler of "items-changed" may stop
 * watching the new process (or close the monitor) before this returns. */
static ProcwatchWatch *
add_watch (ProcwatchProcessMonitor *self,
           ProcwatchHandle         *handle)
{
  guint added_at;
  ProcwatchWatch *watch = procwatch_watch_set_add (&self->set, handle, &added_at);

  if (added_at != G_MAXUINT)
    procwatch_dispatch_list_changed (&self->set, added_at, 0, 1);

  return watch;
}

/* What the set let go of inside the call, once its operations are over:
 * the last reference to a process or cgroup the application dropped runs
 * the application's weak-ref, qdata and toggle notifies, which may call
 * anything, also drop the caller's reference to the monitor, so it is
 * held meanwhile. */
static void
release_dropped (ProcwatchProcessMonitor *self)
{
  if (G_LIKELY (!procwatch_watch_set_has_dropped (&self->set)))
    return;

  g_object_ref (self);
  procwatch_dispatch_release_dropped (&self->set);
  g_object_unref (self);
}

static void
drop_watch (ProcwatchProcessMonitor *self,
            ProcwatchWatch          *watch)
{
  guint position = procwatch_watch_set_remove (&self->set, watch,
                                               N_("the process was unwatched"), FALSE);

  procwatch_dispatch_list_changed (&self->set, position, 1, 0);
}

/* The process of @watch, for the caller; gives up the reference to @watch
 * that add_watch() returned. */
static ProcwatchProcess *
take_process (ProcwatchWatch *watch)
{
  ProcwatchProcess *process = g_object_ref (watch->process);

  procwatch_watch_unref (watch);
  return process;
}

static gboolean
open_pid (ProcwatchProcessMonitor  *self,
          GPid                      pid,
          ProcwatchHandle          *handle,
          GError                  **error)
{
  if (pid <= 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("Cannot watch process %d: a process id must be positive"), (int) pid);
      return FALSE;
    }

  return prepare_watch (self, error) &&
         self->set.backend->open_pid (self->set.backend, pid, handle, error);
}

static ProcwatchWatch *
watch_pid (ProcwatchProcessMonitor  *self,
           GPid                      pid,
           GError                  **error)
{
  ProcwatchHandle handle = PROCWATCH_HANDLE_INIT;

  if (!open_pid (self, pid, &handle, error))
    return NULL;

  return add_watch (self, &handle);
}

static void
procwatch_process_monitor_dispose (GObject *object)
{
  ProcwatchProcessMonitor *self = PROCWATCH_PROCESS_MONITOR (object);
  g_autoptr(GSource) source = NULL;

  /* The last reference may go in another thread while the owner iterates
   * the context: holding the source's owner lock waits for a dispatch under
   * way and keeps the next from calling us, so the teardown is safe here;
   * none of it calls the application. In the owner thread the lock is free,
   * or ours already (dispose from inside a dispatch). */
  if (self->set.source != NULL && !procwatch_watch_set_is_forked_copy (&self->set))
    {
      source = g_source_ref (self->set.source);
      procwatch_source_lock_owner (source);
    }

  procwatch_watch_set_shut_down (&self->set, N_("the monitor was disposed"));

  if (source != NULL)
    procwatch_source_unlock_owner (source);

  /* The reference being dropped keeps the monitor until this returns. */
  procwatch_dispatch_release_dropped (&self->set);

  G_OBJECT_CLASS (procwatch_process_monitor_parent_class)->dispose (object);
}

static void
procwatch_process_monitor_finalize (GObject *object)
{
  ProcwatchProcessMonitor *self = PROCWATCH_PROCESS_MONITOR (object);

  procwatch_watch_set_clear (&self->set);

  G_OBJECT_CLASS (procwatch_process_monitor_parent_class)->finalize (object);
}

static void
procwatch_process_monitor_get_property (GObject    *object,
                                        guint       prop_id,
                                        GValue     *value,
                                        GParamSpec *pspec)
{
  ProcwatchProcessMonitor *self = PROCWATCH_PROCESS_MONITOR (object);

  switch (prop_id)
    {
    case PROP_BACKEND:
      g_value_set_static_string (value, procwatch_process_monitor_get_backend (self));
      break;

    case PROP_FEATURES:
      g_value_set_flags (value, self->features);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
procwatch_process_monitor_class_init (ProcwatchProcessMonitorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = procwatch_process_monitor_dispose;
  object_class->finalize = procwatch_process_monitor_finalize;
  object_class->get_property = procwatch_process_monitor_get_property;

  /**
   * ProcwatchProcessMonitor:backend:
   *
   * The mechanism that detects exits on this kernel, chosen once per
   * process by probing what the kernel does:
   *
   * - "pidfd": pidfds (Linux 5.3 and newer); exits and, from Linux 6.9 on,
   *   reaps arrive as events;
   * - "procfs": pollable /proc directories, for kernels carrying that patch;
   * - "poll": /proc read on a timer, where neither is available;
   * - "none": no way to watch processes here (no pidfd and no /proc); every
   *   watch fails with `G_IO_ERROR_NOT_SUPPORTED`.
   *
   * The environment variable `PROCWATCH_BACKEND` forces one of the first
   * three, where it works.
   */
  properties[PROP_BACKEND] =
    g_param_spec_string ("backend", NULL, NULL,
                         NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * ProcwatchProcessMonitor:features: (getter get_features)
   *
   * What this monitor can deliver, on this kernel with its
   * [property@Procwatch.ProcessMonitor:backend]: a set of
   * [flags@Procwatch.Features]. It is decided once, when the monitor is
   * created, by asking the kernel about a pidfd of the calling process (no
   * process is started), and never changes: it is never notified.
   *
   * How each flag is decided, by a probe where one exists:
   *
   * - `PROCWATCH_FEATURES_REAP_EVENT`: with the "pidfd" backend, pidfds
   *   live on pidfs (`fstatfs()`), which came with the hang-up on reap in
   *   Linux 6.9 (`PROCWATCH_DEBUG=no-pollhup` turns it off); with the
   *   "procfs" backend always (`POLLERR`); never with "poll".
   * - `PROCWATCH_FEATURES_NON_CHILD_STATUS` and
   *   `PROCWATCH_FEATURES_CORE_DUMP`, with the "pidfd" backend: the kernel
   *   keeps the status of a reaped process (`PIDFD_INFO_EXIT`, Linux
   *   6.15). A kernel that lists the bits it supports
   *   (`PIDFD_INFO_SUPPORTED_MASK`, Linux 6.19) is taken at its word; one
   *   that echoes `PIDFD_INFO_COREDUMP` for a live process is Linux 6.16
   *   or later, and so keeps statuses; one that answers `PIDFD_GET_INFO`
   *   without either is Linux 6.13 to 6.15, where no call tells 6.15
   *   apart (a live process never has an exit status to show): there, and
   *   only there, the kernel release decides, as the last resort. The
   *   "procfs" and "poll" backends hold a pidfd only for processes
   *   watched through one, so they set neither.
   * - `PROCWATCH_FEATURES_INODE`, with the "pidfd" backend: the pidfd is on
   *   pidfs (Linux 6.9) and has a 64-bit inode number.
   * - `PROCWATCH_FEATURES_THREADS`: with the "pidfd" backend,
   *   `pidfd_open()` with `PIDFD_THREAD` works on the calling thread
   *   (Linux 6.9); the "procfs" and "poll" backends always hold a thread
   *   by its own `/proc/<pid>/task/<tid>` directory.
   * - `PROCWATCH_FEATURES_FILE_HANDLES`, with the "pidfd" backend:
   *   `name_to_handle_at()` names the pidfd (Linux 6.14) and
   *   `open_by_handle_at()` opens the handle again, with `FD_PIDFS_ROOT`
   *   (Linux 6.17) or a pidfd as the mount fd, as the caller's user.
   *
   * A kernel whose system calls are filtered (a container's seccomp
   * profile) shows as the older kernel it then resembles.
   *
   * Since: 1.4
   */
  properties[PROP_FEATURES] =
    g_param_spec_flags ("features", NULL, NULL,
                        PROCWATCH_TYPE_FEATURES,
                        PROCWATCH_FEATURES_NONE,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* The interface's signal exists once its default vtable does. */
  g_type_default_interface_unref (g_type_default_interface_ref (G_TYPE_LIST_MODEL));

  /**
   * ProcwatchProcessMonitor::exited:
   * @self: the monitor
   * @process: (transfer none): the process that terminated
   *
   * Emitted once when a watched process has terminated. Usually it is a
   * zombie now, its pid still taken until its parent reaps it; but it may
   * already have been reaped (by the time the monitor looked, or before it
   * was watched): then [signal@Procwatch.ProcessMonitor::reaped] follows
   * at once.
   *
   * For a child of the calling process, the wait status is known from now
   * on (see [method@Procwatch.Process.has_status]) with the "pidfd"
   * backend, whoever reaps the child: [class@Gio.Subprocess],
   * [func@GLib.child_watch_add] or a thread of yours calling `waitpid()`.
   * When another thread reaps the child, the monitor waits for the reap to
   * end (microseconds) to read the status that the kernel keeps. The
   * kernel keeps it from Linux 6.15 on (`PIDFD_INFO_EXIT`); on older
   * kernels, and with the "procfs" and "poll" backends, a child reaped by
   * someone else before the monitor looked has no status, here or at
   * "reaped". A child that nobody has reaped yet always has it.
   */
  signals[SIGNAL_EXITED] =
    g_signal_new ("exited",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0,
                  NULL, NULL,
                  NULL,
                  G_TYPE_NONE, 1, PROCWATCH_TYPE_PROCESS);

  /**
   * ProcwatchProcessMonitor::reaped:
   * @self: the monitor
   * @process: (transfer none): the process that was reaped
   *
   * Emitted once when the parent of a watched process has collected it,
   * always after [signal@Procwatch.ProcessMonitor::exited]. Its pid is free
   * and may already belong to another process.
   *
   * The monitor stops watching the process before this signal; the
   * process object stays valid for whoever holds a reference.
   */
  signals[SIGNAL_REAPED] =
    g_signal_new ("reaped",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0,
                  NULL, NULL,
                  NULL,
                  G_TYPE_NONE, 1, PROCWATCH_TYPE_PROCESS);

  /**
   * ProcwatchProcessMonitor::cgroup-emptied:
   * @self: the monitor
   * @cgroup: (transfer none): the cgroup that no process is in any more
   *
   * Emitted each time a watched cgroup is seen going from populated to
   * empty, once per such change seen, after
   * [property@Procwatch.Cgroup:populated] has become false and before
   * pending [method@Procwatch.Cgroup.wait_empty_async] calls complete.
   *
   * The kernel empties the cgroup of an exiting process before the
   * process is a zombie, so no order is promised between this signal and
   * [signal@Procwatch.ProcessMonitor::exited] or
   * [signal@Procwatch.ProcessMonitor::reaped] for the processes that were
   * in the cgroup: it often comes first.
   *
   * When a watched cgroup is removed (it can only be removed once empty),
   * the monitor stops watching it: if it had not seen it empty yet, this
   * signal is emitted first; [property@Procwatch.Cgroup:populated] stays
   * false from then on. The kernel announces no removal: the monitor
   * notices it at the next notification of the cgroup or, for a cgroup
   * that is empty, by looking at it on a timer that backs off from a few
   * milliseconds after it emptied to once every 5 seconds.
   *
   * Since: 1.2
   */
  signals[SIGNAL_CGROUP_EMPTIED] =
    g_signal_new ("cgroup-emptied",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0,
                  NULL, NULL,
                  NULL,
                  G_TYPE_NONE, 1, PROCWATCH_TYPE_CGROUP);

  procwatch_dispatch_set_signals (signals[SIGNAL_EXITED], signals[SIGNAL_REAPED],
                                  signals[SIGNAL_CGROUP_EMPTIED]);
}

static void
procwatch_process_monitor_init (ProcwatchProcessMonitor *self)
{
  procwatch_watch_set_init (&self->set, G_OBJECT (self));
  self->features = procwatch_backend_probe_features (self->set.backend);
}

/**
 * procwatch_process_monitor_new:
 *
 * Creates a monitor that delivers its signals in the thread-default main
 * context of the calling thread.
 *
 * Returns: (transfer full): a new monitor
 */
ProcwatchProcessMonitor *
procwatch_process_monitor_new (void)
{
  return g_object_new (PROCWATCH_TYPE_PROCESS_MONITOR, NULL);
}

/**
 * procwatch_process_monitor_get_features: (get-property features)
 * @self: a monitor
 *
 * Gets what this monitor can deliver on this kernel with its backend,
 * decided when it was created: see
 * [property@Procwatch.ProcessMonitor:features] for how.
 *
 * Returns: the features
 *
 * Since: 1.4
 */
ProcwatchFeatures
procwatch_process_monitor_get_features (ProcwatchProcessMonitor *self)
{
  g_return_val_if_fail (PROCWATCH_IS_PROCESS_MONITOR (self), PROCWATCH_FEATURES_NONE);

  return self->features;
}

/**
 * procwatch_process_monitor_get_backend:
 * @self: a monitor
 *
 * Gets the name of the mechanism that detects exits on this kernel.
 *
 * Returns: the value of [property@Procwatch.ProcessMonitor:backend]
 */
const char *
procwatch_process_monitor_get_backend (ProcwatchProcessMonitor *self)
{
  g_return_val_if_fail (PROCWATCH_IS_PROCESS_MONITOR (self), NULL);

  return self->set.backend != NULL ? self->set.backend->name : "none";
}

/**
 * procwatch_process_monitor_watch_pid:
 * @self: a monitor
 * @pid: the id of a process
 * @error: return location for an error
 *
 * Starts watching the process with the id @pid, which need not be a child of
 * the caller. A process that has already terminated but not yet been reaped
 * is watched too: [signal@Procwatch.ProcessMonitor::exited] follows from the
 * main loop.
 *
 * The pid of a process watches the whole process, which exits once all its
 * threads have. The id of a thread other than the main one watches that
 * thread alone (Linux 6.9 and newer with pidfds).
 *
 * If the process is watched already, the same [class@Procwatch.Process] is
 * returned. A process that merely has the same pid as a reaped one is a
 * different process, with an object of its own.
 *
 * Between the moment you learnt @pid and this call, the process may have
 * been reaped and the pid reused; where you can get a pidfd instead, use
 * [method@Procwatch.ProcessMonitor.watch_pidfd].
 *
 * Errors are in the [error@Gio.IOErrorEnum] domain:
 * `G_IO_ERROR_INVALID_ARGUMENT` for a pid that is not positive,
 * `G_IO_ERROR_NOT_FOUND` when no such process exists (any more),
 * `G_IO_ERROR_NOT_SUPPORTED` when the kernel offers no way to
 * watch it (no backend, a thread before Linux 6.9, or, without pidfds, a
 * /proc that belongs to another pid namespace or no /proc mounted: the
 * message says which),
 * `G_IO_ERROR_PERMISSION_DENIED` when /proc hides it (`hidepid`,
 * without pidfds),
 * `G_IO_ERROR_TOO_MANY_OPEN_FILES` when out of file
 * descriptors, `G_IO_ERROR_CLOSED` once the monitor is closed. A failed
 * call changes nothing.
 *
 * Returns: (transfer full): the watched process, or `NULL` on error
 */
ProcwatchProcess *
procwatch_process_monitor_watch_pid (ProcwatchProcessMonitor  *self,
                                     GPid                      pid,
                                     GError                  **error)
{
  ProcwatchWatch *watch;

  g_return_val_if_fail (PROCWATCH_IS_PROCESS_MONITOR (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  watch = watch_pid (self, pid, error);

  return watch != NULL ? take_process (watch) : NULL;
}

/**
 * procwatch_process_monitor_watch_pidfd:
 * @self: a monitor
 * @pidfd: a pidfd, as from `pidfd_open()`, `clone3()` or a
 *   [class@Gio.UnixFDList]
 * @error: return location for an error
 *
 * Starts watching the process @pidfd refers to. This is free of the pid
 * reuse race of [method@Procwatch.ProcessMonitor.watch_pid]: a pidfd refers
 * to one process for its whole life.
 *
 * The monitor keeps a duplicate of @pidfd; the caller still owns @pidfd and
 * may close it at once. A pidfd of a process that has already been reaped is
 * accepted: both signals follow, with the status where the kernel keeps it.
 *
 * If the process is watched already, the same [class@Procwatch.Process] is
 * returned. A pidfd of a process reaped already names no pid: its watch is
 * then found by the pidfs inode (Linux 6.9 and newer), or, on older
 * kernels, only if @pidfd is a pidfd the monitor holds (the same pidfd
 * passed again, a duplicate of it, or one received over a socket); a pidfd
 * opened apart from the monitor's gives a second object there.
 *
 * A pidfd of a thread (`PIDFD_THREAD`) watches that thread alone.
 *
 * Errors are in the [error@Gio.IOErrorEnum] domain:
 * `G_IO_ERROR_INVALID_ARGUMENT` for a negative or closed file
 * descriptor, or one that is not a pidfd;
 * `G_IO_ERROR_NOT_SUPPORTED` when the kernel offers no way to
 * watch processes, or when a backend that reads /proc finds no pid for the
 * process in this pid namespace;
 * `G_IO_ERROR_PERMISSION_DENIED` when such a backend finds /proc hiding the
 * process (`hidepid`);
 * `G_IO_ERROR_TOO_MANY_OPEN_FILES` when out of file
 * descriptors; `G_IO_ERROR_CLOSED` once the monitor is closed. A failed
 * call changes nothing.
 *
 * Returns: (transfer full): the watched process, or `NULL` on error
 */
ProcwatchProcess *
procwatch_process_monitor_watch_pidfd (ProcwatchProcessMonitor  *self,
                                       int                       pidfd,
                                       GError                  **error)
{
  ProcwatchHandle handle = PROCWATCH_HANDLE_INIT;
  ProcwatchWatch *watch;

  g_return_val_if_fail (PROCWATCH_IS_PROCESS_MONITOR (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!prepare_watch (self, error) ||
      !self->set.backend->open_pidfd (self->set.backend, pidfd, &handle, error))
    return NULL;

  watch = add_watch (self, &handle);

  return take_process (watch);
}

/**
 * procwatch_process_monitor_watch_file_handle:
 * @self: a monitor
 * @handle: a token from [method@Procwatch.Process.dup_file_handle], made in
 *   this program or another
 * @error: return location for an error
 *
 * Starts watching the process that @handle names, as
 * [method@Procwatch.ProcessMonitor.watch_pidfd] does with a pidfd the kernel
 * opens from the token: the same [class@Procwatch.Process] if it is
 * watched already. The token names one process for its whole life: once
 * that process is reaped, the token names nothing, even when its pid has
 * been given to another process, so this never watches another process.
 *
 * Errors are in the [error@Gio.IOErrorEnum] domain:
 * `G_IO_ERROR_NOT_FOUND` when the process is gone (reaped), not visible
 * from here (it lives in a pid namespace that this one cannot see: the
 * kernel answers the same as for a reaped one) or the token is from
 * another boot; `G_IO_ERROR_INVALID_ARGUMENT` only for bytes that are not a
 * token of a format this library knows (truncated, or not a token at all);
 * `G_IO_ERROR_PERMISSION_DENIED` where the kernel refuses to open it;
 * `G_IO_ERROR_NOT_SUPPORTED` where the kernel opens no pidfs file handles
 * (before Linux 6.14); `G_IO_ERROR_TOO_MANY_OPEN_FILES` when out of file
 * descriptors; `G_IO_ERROR_CLOSED` once the monitor is closed. A failed
 * call changes nothing.
 *
 * Returns: (transfer full): the watched process, or `NULL` on error
 *
 * Since: 1.4
 */
ProcwatchProcess *
procwatch_process_monitor_watch_file_handle (ProcwatchProcessMonitor  *self,
                                             GBytes                   *handle,
                                             GError                  **error)
{
  ProcwatchProcess *process;
  int pidfd;

  g_return_val_if_fail (PROCWATCH_IS_PROCESS_MONITOR (self), NULL);
  g_return_val_if_fail (handle != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!prepare_watch (self, error))
    return NULL;

  pidfd = procwatch_process_token_open (handle, error);
  if (pidfd < 0)
    return NULL;

  process = procwatch_process_monitor_watch_pidfd (self, pidfd, error);
  close (pidfd);

  return process;
}

/**
 * procwatch_process_monitor_unwatch:
 * @self: a monitor
 * @pid: the id of a watched process
 *
 * Stops watching the process with the id @pid. No signal is emitted for it
 * afterwards. Pending waits on it complete from the main loop, after this
 * call has returned: with the process if its exit has been seen (as when
 * called from a [signal@Procwatch.ProcessMonitor::exited] handler), else
 * with `G_IO_ERROR_CANCELLED`.
 *
 * A process whose [property@Procwatch.Process:pid] is 0 (watched through a
 * pidfd of a process reaped already, or in a pid namespace this one cannot
 * see) cannot be named by pid: `unwatch (0)` returns false. Watching it
 * stops when it is reaped, or when the monitor is closed
 * ([method@Procwatch.ProcessMonitor.close]), or stop it by the object with
 * [method@Procwatch.ProcessMonitor.unwatch_process].
 *
 * Returns: true if the process was watched; false also on a closed monitor
 */
gboolean
procwatch_process_monitor_unwatch (ProcwatchProcessMonitor *self,
                                   GPid                     pid)
{
  ProcwatchWatch *watch;
  gboolean was_watched = FALSE;

  g_return_val_if_fail (PROCWATCH_IS_PROCESS_MONITOR (self), FALSE);

  if (pid <= 0 || !is_open (self))
    return FALSE;

  /* Also any earlier process with this pid whose reap is still pending. */
  while ((watch = procwatch_watch_set_lookup (&self->set, pid)) != NULL)
    {
      drop_watch (self, watch);
      was_watched = TRUE;
    }

  release_dropped (self);
  return was_watched;
}

/**
 * procwatch_process_monitor_unwatch_process:
 * @self: a monitor
 * @process: a process
 *
 * Stops watching @process, as [method@Procwatch.ProcessMonitor.unwatch]
 * does, but names the process by its object: a process whose pid is 0 or
 * has been reused by another process is stopped too, and a newer process
 * with the same pid is left alone.
 *
 * Returns: true if @process was watched by @self; false if not (it was
 *   reaped, unwatched, watched by another monitor) and on a closed monitor
 *
 * Since: 1.2
 */
gboolean
procwatch_process_monitor_unwatch_process (ProcwatchProcessMonitor *self,
                                           ProcwatchProcess        *process)
{
  ProcwatchWatch *watch;

  g_return_val_if_fail (PROCWATCH_IS_PROCESS_MONITOR (self), FALSE);
  g_return_val_if_fail (PROCWATCH_IS_PROCESS (process), FALSE);

  watch = procwatch_process_get_watch (process);
  if (watch == NULL || watch->owner != &self->set.owner || !is_open (self))
    return FALSE;

  drop_watch (self, watch);
  release_dropped (self);
  return TRUE;
}

/**
 * procwatch_process_monitor_lookup:
 * @self: a monitor
 * @pid: a process id
 *
 * Finds the watched process with the id @pid. When the process that had
 * the pid has been reaped, and the monitor has not reported it yet, while
 * a newer process with the pid is watched too, the newer one is returned.
 *
 * It watches nothing: see [method@Procwatch.ProcessMonitor.watch_pid].
 *
 * Returns: (transfer full) (nullable): the process, or `NULL` if no
 *   watched process has that pid (and for 0)
 *
 * Since: 1.2
 */
ProcwatchProcess *
procwatch_process_monitor_lookup (ProcwatchProcessMonitor *self,
                                  GPid                     pid)
{
  ProcwatchWatch *watch;

  g_return_val_if_fail (PROCWATCH_IS_PROCESS_MONITOR (self), NULL);

  if (pid <= 0 || !is_open (self))
    return NULL;

  watch = procwatch_watch_set_lookup (&self->set, pid);

  return watch != NULL ? g_object_ref (watch->process) : NULL;
}

/**
 * procwatch_process_monitor_watch_pid_inode:
 * @self: a monitor
 * @pid: the id of a process
 * @inode: the pidfs inode number of that process, as from
 *   [method@Procwatch.Process.get_inode], `lsfd` or `procwatch -v`
 * @error: return location for an error
 *
 * Starts watching the process with the id @pid only if it is the process
 * with the pidfs inode number @inode: the pair names one process for the
 * whole boot (on 64-bit kernels), as util-linux `waitpid PID:INODE` does,
 * without passing file descriptors. There is no window for a reused pid:
 * the handle whose inode is compared is the one that is then watched.
 *
 * Errors are those of [method@Procwatch.ProcessMonitor.watch_pid], and:
 * `G_IO_ERROR_NOT_FOUND` when the pid now belongs to another process (or
 * to none); `G_IO_ERROR_NOT_SUPPORTED` where pidfs inodes are not known
 * (before Linux 6.9, or with the "procfs" and "poll" backends);
 * `G_IO_ERROR_INVALID_ARGUMENT` for an inode of 0.
 *
 * Returns: (transfer full): the watched process, or `NULL` on error
 *
 * Since: 1.2
 */
ProcwatchProcess *
procwatch_process_monitor_watch_pid_inode (ProcwatchProcessMonitor  *self,
                                           GPid                      pid,
                                           guint64                   inode,
                                           GError                  **error)
{
  ProcwatchHandle handle = PROCWATCH_HANDLE_INIT;
  ProcwatchWatch *watch;

  g_return_val_if_fail (PROCWATCH_IS_PROCESS_MONITOR (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (inode == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("Cannot watch process %d: inode 0 names no process"), (int) pid);
      return NULL;
    }

  if (!open_pid (self, pid, &handle, error))
    return NULL;

  if (procwatch_handle_get_public_inode (&handle) == 0)
    {
      procwatch_handle_close (&handle);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   /* Translators: %s is the name of a backend: pidfd, procfs or poll. */
                   _("Cannot watch process %d by inode: the %s backend knows no pidfs inodes here"),
                   (int) pid, self->set.backend->name);
      return NULL;
    }

  if (handle.inode != inode)
    {
      procwatch_handle_close (&handle);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   /* Translators: an inode number names one process for the whole boot. */
                   _("Cannot watch process %d with inode %llu: the pid belongs to another process (inode %llu)"),
                   (int) pid, (unsigned long long) inode, (unsigned long long) handle.inode);
      return NULL;
    }

  watch = add_watch (self, &handle);

  return take_process (watch);
}

/**
 * procwatch_process_monitor_close:
 * @self: a monitor
 *
 * Stops watching every process and closes every file descriptor of the
 * monitor, at once. No signal is emitted afterwards. Every pending
 * [method@Procwatch.ProcessMonitor.wait_async] completes from the main loop,
 * after this call has returned: with `G_IO_ERROR_CANCELLED`, or with the
 * process if its exit had been seen (when closing from an
 * [signal@Procwatch.ProcessMonitor::exited] handler). Later watch calls fail
 * with `G_IO_ERROR_CLOSED`.
 *
 * Pending waits hold references to the monitor, so dropping your own does
 * not stop them; call this where watching must end for good, such as in the
 * `disable()` of a shell extension. Closing a closed monitor does nothing.
 * The [class@Procwatch.Process] objects you hold stay valid.
 *
 * Since: 1.2
 */
void
procwatch_process_monitor_close (ProcwatchProcessMonitor *self)
{
  guint n_items;

  g_return_if_fail (PROCWATCH_IS_PROCESS_MONITOR (self));

  n_items = procwatch_watch_set_shut_down (&self->set, N_("the monitor was closed"));

  /* Not in a forked copy: the parent's observers were copied with it. */
  if (n_items > 0 && !procwatch_watch_set_is_forked_copy (&self->set))
    procwatch_dispatch_list_changed (&self->set, 0, n_items, 0);

  /* After "items-changed": the list was empty before anything went. */
  release_dropped (self);
}

/**
 * procwatch_process_monitor_wait_async:
 * @self: a monitor
 * @pid: the id of a process
 * @cancellable: (nullable): a cancellable
 * @callback: (scope async): the function to call when the process has exited
 * @user_data: data for @callback
 *
 * Waits until the process with the id @pid has exited. If it is not watched
 * yet, it becomes watched as with
 * [method@Procwatch.ProcessMonitor.watch_pid], and stays so until it is
 * reaped or unwatched. Several waits on one process all complete.
 *
 * The wait fails with `G_IO_ERROR_CANCELLED` (in the
 * [error@Gio.IOErrorEnum] domain) when @cancellable is
 * cancelled, or when the process is unwatched or the monitor closed before
 * its exit was seen; with `G_IO_ERROR_CLOSED` on a closed monitor; and with
 * the errors of [method@Procwatch.ProcessMonitor.watch_pid] when the
 * process cannot be watched. @callback is always called from the main
 * context, never from inside a call to the library.
 *
 * The wait holds a reference to the monitor until it completes.
 */
void
procwatch_process_monitor_wait_async (ProcwatchProcessMonitor *self,
                                      GPid                     pid,
                                      GCancellable            *cancellable,
                                      GAsyncReadyCallback      callback,
                                      gpointer                 user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  ProcwatchWatch *watch;

  g_return_if_fail (PROCWATCH_IS_PROCESS_MONITOR (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, procwatch_process_monitor_wait_async);
  g_task_set_name (task, "[gio-procwatch] wait");

  if (g_task_return_error_if_cancelled (task))
    return;

  watch = watch_pid (self, pid, &error);
  if (watch == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  if (procwatch_process_get_state (watch->process) != PROCWATCH_PROCESS_STATE_RUNNING)
    g_task_return_pointer (task, g_object_ref (watch->process), g_object_unref);
  else if (!watch->watched)
    /* A handler of "items-changed" stopped watching it at once. */
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                             "Stopped waiting for process %d: it was unwatched as it was watched",
                             (int) pid);
  else
    procwatch_watch_add_wait (watch, task);

  procwatch_watch_unref (watch);
}

/**
 * procwatch_process_monitor_wait_finish:
 * @self: a monitor
 * @result: the result passed to the callback
 * @error: return location for an error
 *
 * Finishes a wait started with
 * [method@Procwatch.ProcessMonitor.wait_async].
 *
 * Returns: (transfer full): the process, which has exited, or `NULL` on
 *   error
 */
ProcwatchProcess *
procwatch_process_monitor_wait_finish (ProcwatchProcessMonitor  *self,
                                       GAsyncResult             *result,
                                       GError                  **error)
{
  g_return_val_if_fail (PROCWATCH_IS_PROCESS_MONITOR (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        procwatch_process_monitor_wait_async, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
on_sender_pidfd (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ProcwatchProcessMonitor *self = g_task_get_source_object (task);
  ProcwatchDBusSenderVia via = PROCWATCH_DBUS_SENDER_VIA_NONE;
  g_autoptr(GError) error = NULL;
  ProcwatchProcess *process;
  int pidfd;

  pidfd = procwatch_dbus_sender_open_pidfd_finish (result, &via, &error);
#ifdef PROCWATCH_TEST_SEAM
  procwatch_dbus_sender_set_via (task, via);
#endif

  /* Closed meanwhile: that is the answer, whatever the lookup found. */
  if (!is_open (self))
    {
      g_clear_error (&error);
      procwatch_watch_set_check_open (&self->set, &error);
    }
  if (pidfd < 0 || error != NULL)
    {
      if (pidfd >= 0)
        g_close (pidfd, NULL);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  /* Cancelled: nothing is watched. Once watched, the result says so. */
  if (g_task_return_error_if_cancelled (task))
    {
      g_close (pidfd, NULL);
      return;
    }
  g_task_set_check_cancellable (task, FALSE);

  process = procwatch_process_monitor_watch_pidfd (self, pidfd, &error);
  g_close (pidfd, NULL);
  if (process == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, process, g_object_unref);
}

/**
 * procwatch_process_monitor_watch_dbus_sender_async:
 * @self: a monitor
 * @connection: the D-Bus connection the caller's message came in on
 * @sender: (nullable): the caller's unique bus name, as
 *   [method@Gio.DBusMethodInvocation.get_sender] gives it; `NULL` on a
 *   peer-to-peer connection
 * @cancellable: (nullable): a cancellable
 * @callback: (scope async): the function to call when the caller's
 *   process is watched, or cannot be
 * @user_data: data for @callback
 *
 * Starts watching the process behind a D-Bus caller, so that a service can
 * free what it keeps for the caller when the caller dies: connect to
 * [signal@Procwatch.ProcessMonitor::exited] or call
 * [method@Procwatch.Process.wait_async] on the result.
 *
 * On a message bus connection, the bus is asked with
 * `GetConnectionCredentials`. Where it sends `ProcessFD`, a pidfd of the
 * caller (dbus-daemon 1.16, dbus-broker 34 and newer), that pidfd is
 * watched and there is no race at all. Where it sends only `ProcessID`,
 * a pidfd is opened for that pid and the bus is asked again, to check that
 * @sender is still connected with that pid. What remains is narrow: a pid
 * is reused only after its process was reaped, and a dead process's
 * connection is closed, so this fails unless (a) the process that
 * connected has died while another process still holds its connection (a
 * socket inherited across `fork()` or passed on), or (b) the bus answers
 * the second question before it has noticed that the connection hung up.
 * In either case the pidfd may refer to an unrelated process that got the
 * pid.
 *
 * On a peer-to-peer connection (@sender `NULL`), the socket tells who
 * connected: `SO_PEERPIDFD` (Linux 6.5 and newer) gives a pidfd with no
 * race; before that, `SO_PEERCRED` gives a pid, a pidfd is opened for it,
 * and the connection is then checked for a hang-up, which a peer that died
 * has caused. The same narrow window as (a) above remains there. Note that
 * the kernel records the process that called `connect()` (or, for a
 * `socketpair()`, the process that made the pair), not the one that uses
 * the socket now. With @sender `NULL` on a message bus connection, the
 * peer is the bus itself.
 *
 * What a sandboxed caller shows: a Flatpak app reaches the bus through
 * xdg-dbus-proxy, one per running instance of the app, outside the app's
 * sandbox, which connects to the bus on behalf of each connection the app
 * makes. The bus then reports the proxy's process, and that is what is
 * watched: it exits when the app's sandbox ends, so the watch ends once
 * the whole app instance is gone, not when the process that called exits,
 * and which process inside the sandbox called cannot be told. The proxy
 * does close its bus connection for an app connection that closes, so
 * @sender disappearing from the bus
 * ([func@Gio.bus_watch_name_on_connection]) is the earlier sign there. A
 * caller in another pid namespace is watched all the same where the bus
 * sends `ProcessFD`; its [property@Procwatch.Process:pid] is 0 if its pid
 * does not exist in this namespace.
 *
 * Errors: `G_DBUS_ERROR_NAME_HAS_NO_OWNER` (in the
 * [error@Gio.DBusError] domain) when @sender has already disconnected from
 * the bus or its process has exited; in the [error@Gio.IOErrorEnum]
 * domain, `G_IO_ERROR_CLOSED` when a peer has already hung up or the
 * connection is closed, or when the monitor is closed (also while the
 * caller is being looked up);
 * `G_IO_ERROR_NOT_SUPPORTED` when the bus does not tell the caller's
 * process, when the connection is not on a unix socket, or when the peer
 * has no pid in this pid namespace, or without pidfds (Linux before 5.3);
 * `G_IO_ERROR_CANCELLED` when
 * @cancellable is cancelled before the process is watched; the errors of
 * [method@Procwatch.ProcessMonitor.watch_pidfd]; other errors of the bus
 * as it sends them.
 *
 * @callback is always called from the main context, never from inside a
 * call to the library. The operation holds a reference to the monitor and
 * to @connection until it completes.
 *
 * Since: 1.2
 */
void
procwatch_process_monitor_watch_dbus_sender_async (ProcwatchProcessMonitor *self,
                                                   GDBusConnection         *connection,
                                                   const char              *sender,
                                                   GCancellable            *cancellable,
                                                   GAsyncReadyCallback      callback,
                                                   gpointer                 user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (PROCWATCH_IS_PROCESS_MONITOR (self));
  g_return_if_fail (G_IS_DBUS_CONNECTION (connection));
  g_return_if_fail (sender == NULL || g_dbus_is_unique_name (sender));
  g_return_if_fail (sender == NULL || g_dbus_connection_get_unique_name (connection) != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, procwatch_process_monitor_watch_dbus_sender_async);
  g_task_set_name (task, "[gio-procwatch] watch D-Bus sender");

  if (g_task_return_error_if_cancelled (task))
    return;

  if (!procwatch_watch_set_check_open (&self->set, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  procwatch_dbus_sender_open_pidfd_async (connection, sender, cancellable,
                                          on_sender_pidfd, g_steal_pointer (&task));
}

/**
 * procwatch_process_monitor_watch_dbus_sender_finish:
 * @self: a monitor
 * @result: the result passed to the callback
 * @error: return location for an error
 *
 * Finishes [method@Procwatch.ProcessMonitor.watch_dbus_sender_async].
 *
 * Returns: (transfer full): the watched process of the caller, or `NULL`
 *   on error
 *
 * Since: 1.2
 */
ProcwatchProcess *
procwatch_process_monitor_watch_dbus_sender_finish (ProcwatchProcessMonitor  *self,
                                                    GAsyncResult             *result,
                                                    GError                  **error)
{
  g_return_val_if_fail (PROCWATCH_IS_PROCESS_MONITOR (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        procwatch_process_monitor_watch_dbus_sender_async, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * procwatch_process_monitor_watch_cgroup:
 * @self: a monitor
 * @path: a cgroup v2 path: relative to the root of the hierarchy, as
 *   `/proc/<pid>/cgroup` and [method@Procwatch.Process.get_cgroup] write
 *   it, or a path of the cgroup's directory under the cgroup2 mount point
 * @error: return location for an error
 *
 * Starts watching a cgroup (version 2) for whether processes are in it,
 * such as the systemd scope a desktop starts an application in:
 * [property@Procwatch.Cgroup:populated] follows what the kernel says, and
 * [signal@Procwatch.ProcessMonitor::cgroup-emptied] tells when the last
 * process has left, whichever process that was (one forked by the
 * application and outliving the process that was launched too).
 *
 * The cgroup2 mount is found in `/proc/self/mountinfo`, wherever it is
 * (`/sys/fs/cgroup`, or `/sys/fs/cgroup/unified` in a hybrid layout). A
 * path that exists both as a relative cgroup path and as a path under the
 * mount point is taken as the latter. A cgroup is identified by its id
 * (the inode number of its directory): watching it again, by any path,
 * returns the same [class@Procwatch.Cgroup], and
 * [method@Procwatch.Cgroup.get_path] keeps the path it was first watched
 * by.
 *
 * Its `cgroup.events` file joins the monitor's one epoll set (also with the
 * "poll" backend, which makes one for cgroups alone), so an emptying costs
 * a dispatch that reads this one cgroup, however many are watched. An
 * empty cgroup is also looked at on a timer, since its removal raises no
 * event: see [signal@Procwatch.ProcessMonitor::cgroup-emptied].
 *
 * Errors are in the [error@Gio.IOErrorEnum] domain:
 * `G_IO_ERROR_NOT_SUPPORTED` when cgroup v2 is not mounted (or
 * `/proc/self/mountinfo` cannot be read); `G_IO_ERROR_NOT_FOUND` when
 * there is no such cgroup; `G_IO_ERROR_INVALID_ARGUMENT` for an empty
 * path, a path with a ".." component, an existing path that is not a
 * cgroup v2 directory (not under the mount), or the root cgroup (which has
 * no `cgroup.events`: it is never empty); `G_IO_ERROR_PERMISSION_DENIED`
 * when the cgroup cannot be read; `G_IO_ERROR_CLOSED` once the monitor is
 * closed. A failed call changes nothing.
 *
 * Returns: (transfer full): the watched cgroup, or `NULL` on error
 *
 * Since: 1.2
 */
ProcwatchCgroup *
procwatch_process_monitor_watch_cgroup (ProcwatchProcessMonitor  *self,
                                        const char               *path,
                                        GError                  **error)
{
  g_autoptr(GPtrArray) mounts = NULL;
  g_autofree char *relative = NULL;
  g_autofree char *absolute = NULL;
  ProcwatchCgroupWatch *watch;
  guint64 id;
  int fd;

  g_return_val_if_fail (PROCWATCH_IS_PROCESS_MONITOR (self), NULL);
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!prepare_watch (self, error) ||
      !procwatch_source_ensure_epoll (self->set.source, error) ||
      (mounts = procwatch_cgroup_read_mounts (error)) == NULL ||
      !procwatch_cgroup_resolve (mounts, path, &relative, &absolute, error))
    return NULL;

  fd = procwatch_cgroup_open_events (relative, absolute, &id, error);
  if (fd < 0)
    return NULL;

  watch = procwatch_watch_set_lookup_cgroup (&self->set, id);
  if (watch != NULL)
    {
      close (fd);
      return g_object_ref (watch->cgroup);
    }

  watch = procwatch_watch_set_add_cgroup (&self->set, relative, id, fd, error);
  if (watch == NULL)
    return NULL;

  return g_object_ref (watch->cgroup);
}

/**
 * procwatch_process_monitor_unwatch_cgroup:
 * @self: a monitor
 * @cgroup: a cgroup
 *
 * Stops watching @cgroup: [property@Procwatch.Cgroup:populated] no longer
 * changes and no signal is emitted for it afterwards. Pending waits on it
 * complete from the main loop, after this call has returned: successfully
 * if it was seen empty, else with `G_IO_ERROR_CANCELLED`.
 *
 * Returns: true if @cgroup was watched by @self; false if not (unwatched
 *   already, removed, watched by another monitor) and on a closed monitor
 *
 * Since: 1.2
 */
gboolean
procwatch_process_monitor_unwatch_cgroup (ProcwatchProcessMonitor *self,
                                          ProcwatchCgroup         *cgroup)
{
  ProcwatchCgroupWatch *watch;

  g_return_val_if_fail (PROCWATCH_IS_PROCESS_MONITOR (self), FALSE);
  g_return_val_if_fail (PROCWATCH_IS_CGROUP (cgroup), FALSE);

  watch = procwatch_cgroup_get_watch (cgroup);
  if (watch == NULL || watch->owner != &self->set.owner || !is_open (self))
    return FALSE;

  procwatch_watch_set_remove_cgroup (&self->set, watch, N_("the cgroup was unwatched"));
  release_dropped (self);
  return TRUE;
}

static GType
procwatch_process_monitor_get_item_type (GListModel *model)
{
  return PROCWATCH_TYPE_PROCESS;
}

static guint
procwatch_process_monitor_get_n_items (GListModel *model)
{
  ProcwatchProcessMonitor *self = PROCWATCH_PROCESS_MONITOR (model);

  if (procwatch_watch_set_is_forked_copy (&self->set))
    return 0;

  return procwatch_item_list_get_length (self->set.items);
}

static gpointer
procwatch_process_monitor_get_item (GListModel *model,
                                    guint       position)
{
  ProcwatchProcessMonitor *self = PROCWATCH_PROCESS_MONITOR (model);
  ProcwatchWatch *watch;

  if (procwatch_watch_set_is_forked_copy (&self->set))
    return NULL;

  watch = procwatch_item_list_get (self->set.items, position);

  return watch != NULL ? g_object_ref (watch->process) : NULL;
}

static void
procwatch_process_monitor_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = procwatch_process_monitor_get_item_type;
  iface->get_n_items = procwatch_process_monitor_get_n_items;
  iface->get_item = procwatch_process_monitor_get_item;
}
