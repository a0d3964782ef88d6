/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procwatch-enums.h"
#include "procwatch-process-token-private.h"
#include "procwatch-i18n-private.h"
#include "procwatch-process-private.h"
#include "procwatch-shared-string-private.h"
#include "procwatch-watch-private.h"

/**
 * ProcwatchProcess:
 *
 * One process watched by a [class@Procwatch.ProcessMonitor].
 *
 * A `ProcwatchProcess` is created by the monitor when a process is first
 * watched and is the same object for as long as that process is watched.
 * Its [property@Procwatch.Process:state], a [enum@Procwatch.ProcessState],
 * moves forward from
 * `PROCWATCH_PROCESS_STATE_RUNNING` to
 * `PROCWATCH_PROCESS_STATE_EXITED` and then to
 * `PROCWATCH_PROCESS_STATE_REAPED`, never back.
 *
 * Once the process has terminated, its wait status may be known: check
 * [method@Procwatch.Process.has_status] before reading it. The getters
 * follow those of [class@Gio.Subprocess]. For a child of the calling
 * process the status is known when it exits; for any other process it is
 * known once it has been reaped, on kernels that keep it (Linux 6.15 and
 * newer). It is never guessed.
 *
 * The object is also the handle on the process for as long as it is
 * watched: wait for it ([method@Procwatch.Process.wait_async]), signal it
 * ([method@Procwatch.Process.send_signal]) or get a pidfd of it
 * ([method@Procwatch.Process.dup_pidfd]) without naming it by a pid that
 * may be reused by then, and stop watching it with
 * [method@Procwatch.ProcessMonitor.unwatch_process].
 *
 * The object stays valid for as long as you hold a reference, also after the
 * monitor has stopped watching the process; the calls that act on the
 * process then fail with `G_IO_ERROR_CLOSED` (once it has exited,
 * [method@Procwatch.Process.send_signal] says `G_IO_ERROR_NOT_FOUND`
 * and [method@Procwatch.Process.wait_async] completes): the library keeps
 * nothing open for a process it does not watch.
 */

struct _ProcwatchProcess
{
  GObject parent_instance;

  GPid pid;
  ProcwatchProcessState state;
  guint64 inode;

  /* While watched; cleared by the monitor when watching stops. */
  ProcwatchWatch *watch;

  /* Shared: the processes of one cgroup, often thousands, hold one copy of
   * its long path. */
  const char *cgroup;

  int wait_status;
  guint has_status : 1;
  guint has_name : 1;
  guint name_on_heap : 1;

  /* A comm is at most 15 bytes and sits in the object; only a name that
   * g_utf8_make_valid() lengthened past that is allocated. */
  union {
    char inline_name[16];
    char *heap_name;
  } name;
};

enum {
  PROP_0,
  PROP_PID,
  PROP_STATE,
  PROP_INODE,
  PROP_NAME,
  PROP_STATUS_KNOWN,
  PROP_EXIT_STATUS,
  PROP_TERM_SIG,
  PROP_CGROUP,
  PROP_CORE_DUMPED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (ProcwatchProcess, procwatch_process, G_TYPE_OBJECT)

static void
procwatch_process_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  ProcwatchProcess *self = PROCWATCH_PROCESS (object);

  switch (prop_id)
    {
    case PROP_PID:
      g_value_set_int (value, self->pid);
      break;

    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;

    case PROP_INODE:
      g_value_set_uint64 (value, self->inode);
      break;

    case PROP_NAME:
      g_value_set_string (value, procwatch_process_get_name (self));
      break;

    case PROP_STATUS_KNOWN:
      g_value_set_boolean (value, self->has_status);
      break;

    case PROP_EXIT_STATUS:
      g_value_set_int (value, procwatch_process_get_if_exited (self) ? WEXITSTATUS (self->wait_status) : -1);
      break;

    case PROP_TERM_SIG:
      g_value_set_int (value, procwatch_process_get_if_signaled (self) ? WTERMSIG (self->wait_status) : 0);
      break;

    case PROP_CGROUP:
      g_value_set_string (value, self->cgroup);
      break;

    case PROP_CORE_DUMPED:
      g_value_set_boolean (value, procwatch_process_get_core_dumped (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
procwatch_process_finalize (GObject *object)
{
  /* Plain casts: a process is finalized at every reap whose object nobody
   * kept. */
  ProcwatchProcess *self = (ProcwatchProcess *) object;

  if (self->name_on_heap)
    g_free (self->name.heap_name);
  if (self->cgroup != NULL)
    procwatch_shared_string_release (self->cgroup);

  ((GObjectClass *) procwatch_process_parent_class)->finalize (object);
}

static void
procwatch_process_class_init (ProcwatchProcessClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = procwatch_process_finalize;
  object_class->get_property = procwatch_process_get_property;

  /**
   * ProcwatchProcess:pid:
   *
   * The process id, as seen from the pid namespace of the monitor.
   *
   * It is 0 when the process was watched through a pidfd whose process had
   * already been reaped, or lives in a pid namespace that cannot see it, or
   * when it cannot be told (before Linux 6.13, in a process whose /proc
   * belongs to another pid namespace). It is never a pid of another
   * namespace.
   *
   * A process with pid 0 cannot be unwatched by pid
   * ([method@Procwatch.ProcessMonitor.unwatch] with 0 returns false): it is
   * watched until it is reaped, or until the monitor is closed
   * ([method@Procwatch.ProcessMonitor.close]).
   */
  properties[PROP_PID] =
    g_param_spec_int ("pid", NULL, NULL,
                      0, G_MAXINT, 0,
                      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * ProcwatchProcess:state:
   *
   * How far the process has come: running, exited (a zombie) or reaped.
   *
   * It changes in the monitor's main context, just before the monitor emits
   * [signal@Procwatch.ProcessMonitor::exited] or
   * [signal@Procwatch.ProcessMonitor::reaped].
   */
  properties[PROP_STATE] =
    g_param_spec_enum ("state", NULL, NULL,
                       PROCWATCH_TYPE_PROCESS_STATE,
                       PROCWATCH_PROCESS_STATE_RUNNING,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * ProcwatchProcess:inode:
   *
   * The pidfs inode number of the process: see
   * [method@Procwatch.Process.get_inode].
   *
   * Since: 1.2
   */
  properties[PROP_INODE] =
    g_param_spec_uint64 ("inode", NULL, NULL,
                         0, G_MAXUINT64, 0,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * ProcwatchProcess:name:
   *
   * The name of the process when watching started: see
   * [method@Procwatch.Process.get_name].
   *
   * Since: 1.2
   */
  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL,
                         NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * ProcwatchProcess:cgroup:
   *
   * The cgroup v2 path of the process when watching started: see
   * [method@Procwatch.Process.get_cgroup].
   *
   * Since: 1.2
   */
  properties[PROP_CGROUP] =
    g_param_spec_string ("cgroup", NULL, NULL,
                         NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * ProcwatchProcess:status-known: (getter has_status)
   *
   * Whether the wait status of the terminated process is known: see
   * [method@Procwatch.Process.has_status]. Notified when it becomes
   * known, before [property@Procwatch.Process:state] is notified: that is
   * the order of the notifications, not of the values, as the state has
   * its new value already inside this notification's handlers.
   *
   * It is not named after its getter, as a property named `has-status`
   * would hide the method in GJS.
   *
   * Since: 1.2
   */
  properties[PROP_STATUS_KNOWN] =
    g_param_spec_boolean ("status-known", NULL, NULL,
                          FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * ProcwatchProcess:exit-status:
   *
   * The exit code of a process known to have terminated normally (see
   * [method@Procwatch.Process.get_exit_status]), or -1 otherwise: while it
   * runs, when its status is not known, or when a signal terminated it.
   * Notified when the status becomes known.
   *
   * Since: 1.2
   */
  properties[PROP_EXIT_STATUS] =
    g_param_spec_int ("exit-status", NULL, NULL,
                      -1, 255, -1,
                      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * ProcwatchProcess:term-sig:
   *
   * The signal that terminated the process, if that is known (see
   * [method@Procwatch.Process.get_term_sig]), or 0 otherwise. Notified when
   * the status becomes known.
   *
   * Since: 1.2
   */
  properties[PROP_TERM_SIG] =
    g_param_spec_int ("term-sig", NULL, NULL,
                      0, G_MAXINT, 0,
                      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  /**
   * ProcwatchProcess:core-dumped: (getter get_core_dumped)
   *
   * Whether the kernel reports that the process dumped core: see
   * [method@Procwatch.Process.get_core_dumped]. Notified with the other
   * status properties when the status becomes known and says so, before
   * [property@Procwatch.Process:state] changes.
   *
   * Since: 1.4
   */
  properties[PROP_CORE_DUMPED] =
    g_param_spec_boolean ("core-dumped", NULL, NULL,
                          FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
procwatch_process_init (ProcwatchProcess *self)
{
  self->state = PROCWATCH_PROCESS_STATE_RUNNING;
}

ProcwatchProcess *
procwatch_process_new (GPid        pid,
                       guint64     inode,
                       const char *name,
                       const char *cgroup)
{
  ProcwatchProcess *self = g_object_new (PROCWATCH_TYPE_PROCESS, NULL);

  self->pid = pid;
  self->inode = inode;
  if (name != NULL)
    {
      self->has_name = TRUE;
      self->name_on_heap = strlen (name) >= sizeof self->name.inline_name;
      if (self->name_on_heap)
        self->name.heap_name = g_strdup (name);
      else
        strcpy (self->name.inline_name, name);
    }
  /* The caller's hold, taken over. */
  self->cgroup = cgroup;

  return self;
}

void
procwatch_process_set_watch (ProcwatchProcess *self,
                             ProcwatchWatch   *watch)
{
  self->watch = watch;
}

ProcwatchWatch *
procwatch_process_get_watch (ProcwatchProcess *self)
{
  return self->watch;
}

ProcwatchProcessState
procwatch_process_peek_state (ProcwatchProcess *self)
{
  return self->state;
}

gboolean
procwatch_process_peek_status_known (ProcwatchProcess *self)
{
  return self->has_status;
}

/* Silent stores, run once or twice per exit on the dispatch path: they
 * return what changed, and the dispatch notifies it (only the dispatch calls
 * the application). Only the monitor calls them, with its own objects, so
 * they skip the checked casts (a type check each). */
GParamSpec *
procwatch_process_set_state (ProcwatchProcess      *self,
                             ProcwatchProcessState  state)
{
  g_return_val_if_fail (state >= self->state, NULL);

  if (self->state == state)
    return NULL;

  self->state = state;
  return properties[PROP_STATE];
}

/* Every value is in place before the dispatch notifies the first, so a
 * handler of any of them sees them all. Returns how many properties of
 * @changed (room for PROCWATCH_PROCESS_STATUS_PROPS) changed. */
guint
procwatch_process_set_status (ProcwatchProcess  *self,
                              int                wait_status,
                              GParamSpec       **changed)
{
  guint n_changed = 0;

  if (self->has_status)
    return 0;

  self->wait_status = wait_status;
  self->has_status = TRUE;

  changed[n_changed++] = properties[PROP_STATUS_KNOWN];
  if (WIFEXITED (wait_status))
    changed[n_changed++] = properties[PROP_EXIT_STATUS];
  if (WIFSIGNALED (wait_status))
    changed[n_changed++] = properties[PROP_TERM_SIG];
  if (WIFSIGNALED (wait_status) && WCOREDUMP (wait_status))
    changed[n_changed++] = properties[PROP_CORE_DUMPED];

  g_assert (n_changed <= PROCWATCH_PROCESS_STATUS_PROPS);
  return n_changed;
}

/**
 * procwatch_process_get_pid:
 * @self: a process
 *
 * Gets the process id the process was watched by.
 *
 * After the process has been reaped, the same number may belong to another
 * process: use it for display, not to find the process again.
 *
 * Returns: the process id, or 0 when it is not known (see
 *   [property@Procwatch.Process:pid])
 */
GPid
procwatch_process_get_pid (ProcwatchProcess *self)
{
  g_return_val_if_fail (PROCWATCH_IS_PROCESS (self), 0);

  return self->pid;
}

/**
 * procwatch_process_get_state:
 * @self: a process
 *
 * Gets how far the process has come.
 *
 * Returns: the state of the process
 */
ProcwatchProcessState
procwatch_process_get_state (ProcwatchProcess *self)
{
  g_return_val_if_fail (PROCWATCH_IS_PROCESS (self), PROCWATCH_PROCESS_STATE_RUNNING);

  return self->state;
}

/**
 * procwatch_process_has_status: (get-property status-known)
 * @self: a process
 *
 * Checks whether the wait status of the terminated process is known.
 *
 * For a child of the calling process it is known from
 * [signal@Procwatch.ProcessMonitor::exited] on; for other processes from
 * [signal@Procwatch.ProcessMonitor::reaped] on, where the kernel keeps it
 * (Linux 6.15 and newer).
 *
 * Returns: whether [method@Procwatch.Process.get_status] may be called
 */
gboolean
procwatch_process_has_status (ProcwatchProcess *self)
{
  g_return_val_if_fail (PROCWATCH_IS_PROCESS (self), FALSE);

  return self->has_status;
}

/**
 * procwatch_process_get_status:
 * @self: a process
 *
 * Gets the raw wait status of the terminated process, as `waitpid()` would
 * have returned it to its parent.
 *
 * It is a programming error to call this unless
 * [method@Procwatch.Process.has_status] returns true. Prefer the
 * [method@Procwatch.Process.get_if_exited] family of getters, which
 * decode it. Its core flag (`WCOREDUMP()`) is what
 * [method@Procwatch.Process.get_core_dumped] reports.
 *
 * Returns: the wait status
 */
int
procwatch_process_get_status (ProcwatchProcess *self)
{
  g_return_val_if_fail (PROCWATCH_IS_PROCESS (self), 0);
  g_return_val_if_fail (self->has_status, 0);

  return self->wait_status;
}

/**
 * procwatch_process_get_if_exited:
 * @self: a process
 *
 * Checks whether the process is known to have terminated normally, by
 * calling `exit()` or returning from `main()`.
 *
 * Returns: true if the status is known and says so
 */
gboolean
procwatch_process_get_if_exited (ProcwatchProcess *self)
{
  g_return_val_if_fail (PROCWATCH_IS_PROCESS (self), FALSE);

  return self->has_status && WIFEXITED (self->wait_status);
}

/**
 * procwatch_process_get_exit_status:
 * @self: a process
 *
 * Gets the exit code of a process that terminated normally.
 *
 * It is a programming error to call this unless
 * [method@Procwatch.Process.get_if_exited] returns true.
 *
 * Returns: the exit code, 0 to 255
 */
int
procwatch_process_get_exit_status (ProcwatchProcess *self)
{
  g_return_val_if_fail (PROCWATCH_IS_PROCESS (self), 1);
  g_return_val_if_fail (procwatch_process_get_if_exited (self), 1);

  return WEXITSTATUS (self->wait_status);
}

/**
 * procwatch_process_get_if_signaled:
 * @self: a process
 *
 * Checks whether the process is known to have been terminated by a signal.
 *
 * Returns: true if the status is known and says so
 */
gboolean
procwatch_process_get_if_signaled (ProcwatchProcess *self)
{
  g_return_val_if_fail (PROCWATCH_IS_PROCESS (self), FALSE);

  return self->has_status && WIFSIGNALED (self->wait_status);
}

/**
 * procwatch_process_get_term_sig:
 * @self: a process
 *
 * Gets the signal that terminated the process.
 *
 * It is a programming error to call this unless
 * [method@Procwatch.Process.get_if_signaled] returns true.
 *
 * Returns: the signal number
 */
int
procwatch_process_get_term_sig (ProcwatchProcess *self)
{
  g_return_val_if_fail (PROCWATCH_IS_PROCESS (self), 0);
  g_return_val_if_fail (procwatch_process_get_if_signaled (self), 0);

  return WTERMSIG (self->wait_status);
}

/**
 * procwatch_process_get_core_dumped: (get-property core-dumped)
 * @self: a process
 *
 * Checks whether the kernel reports that the process dumped core: it was
 * terminated by a signal whose default action dumps core (`SIGSEGV`,
 * `SIGABRT`, `SIGBUS`, `SIGFPE`, `SIGILL`, `SIGQUIT`, …) and the dump was
 * written, which `RLIMIT_CORE` and the system's `core_pattern` decide. A
 * process that crashed without a dump, such as one whose `RLIMIT_CORE` is 0
 * with a file pattern, gives false here and still its signal in
 * [method@Procwatch.Process.get_term_sig].
 *
 * The answer is the core flag of the wait status (`WCOREDUMP()`), so it is
 * known exactly when the status is (see
 * [method@Procwatch.Process.has_status]): for a child of the calling
 * process from [signal@Procwatch.ProcessMonitor::exited] on, on every
 * kernel and backend; for any other process from
 * [signal@Procwatch.ProcessMonitor::reaped] on, on Linux 6.15 and newer.
 * On Linux 6.16 and newer the kernel's own account of the dump
 * (`PIDFD_INFO_COREDUMP`), where it gives one, is taken too. Before the
 * status is known, and where it never is, this returns false: check
 * [method@Procwatch.Process.has_status] to tell "no dump" from "not
 * known". The guide page [Telling a crash from a quit](crash-or-quit.html)
 * says what each kernel gives.
 *
 * Returns: true if the status is known and says that a core was dumped
 *
 * Since: 1.4
 */
gboolean
procwatch_process_get_core_dumped (ProcwatchProcess *self)
{
  g_return_val_if_fail (PROCWATCH_IS_PROCESS (self), FALSE);

  return self->has_status && WIFSIGNALED (self->wait_status) && WCOREDUMP (self->wait_status);
}

/**
 * procwatch_process_get_inode:
 * @self: a process
 *
 * Gets the pidfs inode number of the process (Linux 6.9 and newer): the
 * number `lsfd` shows for its pidfds, that util-linux `waitpid PID:INODE`
 * takes and that `procwatch -v` prints. On 64-bit kernels it tells the
 * process apart from every other process of this boot, also from one that
 * later has the same pid; pass it with the pid to
 * [method@Procwatch.ProcessMonitor.watch_pid_inode] to watch this process
 * and no other. On 32-bit kernels pidfs inode numbers are 32 bits wide and
 * are reused; only an inode generation, which this library does not
 * read, tells reused ones apart there.
 *
 * It is 0 where it is not known: before Linux 6.9, and with the "procfs"
 * and "poll" backends for a process watched by pid.
 *
 * Returns: the inode number, or 0
 *
 * Since: 1.2
 */
guint64
procwatch_process_get_inode (ProcwatchProcess *self)
{
  g_return_val_if_fail (PROCWATCH_IS_PROCESS (self), 0);

  return self->inode;
}

/**
 * procwatch_process_get_name:
 * @self: a process
 *
 * Gets the name of the process (what `/proc/<pid>/comm` holds, at most 15
 * bytes) as it was when watching started. It does not change afterwards,
 * also not when the process renames itself, and survives its exit.
 *
 * Returns: (nullable): the name, or `NULL` if it could not be read (the
 *   process was reaped already, has no pid here, or /proc does not show it)
 *
 * Since: 1.2
 */
const char *
procwatch_process_get_name (ProcwatchProcess *self)
{
  g_return_val_if_fail (PROCWATCH_IS_PROCESS (self), NULL);

  if (!self->has_name)
    return NULL;

  return self->name_on_heap ? self->name.heap_name : self->name.inline_name;
}

/**
 * procwatch_process_get_cgroup:
 * @self: a process
 *
 * Gets the cgroup v2 the process belonged to when watching started, as
 * the "0::" line of `/proc/<pid>/cgroup` gives it: a path relative to the
 * root of the cgroup hierarchy (of the caller's cgroup namespace), such as
 * `/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Calculator-4242.scope`,
 * which [method@Procwatch.ProcessMonitor.watch_cgroup] accepts. Like the
 * name, it is read once, checked to belong to the watched process (the
 * pid was not reaped in between), and does not follow later moves.
 *
 * Returns: (nullable): the path, or `NULL` where there is none (no cgroup
 *   v2 on this system) or it could not be read, as for
 *   [method@Procwatch.Process.get_name]
 *
 * Since: 1.2
 */
const char *
procwatch_process_get_cgroup (ProcwatchProcess *self)
{
  g_return_val_if_fail (PROCWATCH_IS_PROCESS (self), NULL);

  return self->cgroup;
}

static gboolean
check_watched (ProcwatchProcess  *self,
               GError           **error)
{
  if (self->watch != NULL)
    return procwatch_watch_is_reachable (self->watch, error);

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED,
               _("Process %d is no longer watched"), (int) self->pid);
  return FALSE;
}

/**
 * procwatch_process_dup_pidfd:
 * @self: a process
 * @error: return location for an error
 *
 * Gets a new pidfd for the process while it is watched (running, or exited
 * and not yet reaped), to hand to another program or to
 * [class@Gio.UnixFDList]. The caller owns it and must close it; it has
 * `FD_CLOEXEC` set.
 *
 * Errors are in the [error@Gio.IOErrorEnum] domain: `G_IO_ERROR_CLOSED`
 * once the process is no longer watched (it was reaped or unwatched, or
 * the monitor was closed); `G_IO_ERROR_NOT_SUPPORTED` where the backend
 * holds no pidfd for it (the "procfs" and "poll" backends, for a process
 * watched by pid); `G_IO_ERROR_TOO_MANY_OPEN_FILES` when out of file
 * descriptors.
 *
 * Returns: a pidfd, or -1 on error
 *
 * Since: 1.2
 */
int
procwatch_process_dup_pidfd (ProcwatchProcess  *self,
                             GError           **error)
{
  g_return_val_if_fail (PROCWATCH_IS_PROCESS (self), -1);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);

  if (!check_watched (self, error))
    return -1;

  return procwatch_watch_dup_pidfd (self->watch, error);
}

/**
 * procwatch_process_dup_file_handle:
 * @self: a process
 * @error: return location for an error
 *
 * Gets a token that names this process and no other, ever: unlike a pid,
 * it is never reused, and unlike the pid and
 * [method@Procwatch.Process.get_inode] together, it needs no pid that
 * still resolves. Hand it to another program (over D-Bus as `ay`), store
 * it, and watch the process it names with
 * [method@Procwatch.ProcessMonitor.watch_file_handle], in this program or
 * another, as long as the process is not reaped and this boot lasts.
 *
 * The token is opaque and versioned: a format version, the kind of handle,
 * the boot id (`/proc/sys/kernel/random/boot_id`) and the pidfs file handle
 * the kernel gives for the process's pidfd (`name_to_handle_at()`, Linux
 * 6.14 and newer). It can be made while the process is watched, running or
 * exited and not yet reaped.
 *
 * Errors are in the [error@Gio.IOErrorEnum] domain: `G_IO_ERROR_CLOSED`
 * once the process is no longer watched; `G_IO_ERROR_NOT_SUPPORTED` where
 * the kernel gives no file handle for pidfds (before Linux 6.14, or
 * `name_to_handle_at()` filtered) or the backend holds no pidfd for the
 * process (the "procfs" and "poll" backends, for a process watched by pid;
 * see `PROCWATCH_FEATURES_FILE_HANDLES` in
 * [property@Procwatch.ProcessMonitor:features]);
 * `G_IO_ERROR_TOO_MANY_OPEN_FILES` when out of file descriptors.
 *
 * Returns: (transfer full): the token, or `NULL` on error
 *
 * Since: 1.4
 */
GBytes *
procwatch_process_dup_file_handle (ProcwatchProcess  *self,
                                   GError           **error)
{
  GBytes *token;
  int pidfd;

  g_return_val_if_fail (PROCWATCH_IS_PROCESS (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_watched (self, error))
    return NULL;

  pidfd = procwatch_watch_dup_pidfd (self->watch, error);
  if (pidfd < 0)
    return NULL;

  token = procwatch_process_token_encode (pidfd, self->pid, error);
  close (pidfd);

  return token;
}

/**
 * procwatch_process_send_signal:
 * @self: a process
 * @signum: a signal number, such as `SIGTERM`, or 0 to check that the
 *   signal could be sent
 * @error: return location for an error
 *
 * Sends a signal to the process. It is sent through the process's pidfd,
 * so it can never reach another process that has been given the same pid
 * since. Where the backend holds no pidfd (the "procfs" and "poll"
 * backends, for a process watched by pid, on kernels before 5.3), the
 * library checks that the pid still belongs to this process just before
 * `kill()`: the process could still be reaped, and its pid reused, in the
 * microseconds between.
 *
 * A watched thread (see [method@Procwatch.ProcessMonitor.watch_pid]) gets
 * the signal itself, with pidfds.
 *
 * Errors are in the [error@Gio.IOErrorEnum] domain: `G_IO_ERROR_NOT_FOUND`
 * once the process is known to have exited (its
 * [property@Procwatch.Process:state] is exited or reaped, or its pidfd
 * shows the exit that the monitor has not reported yet: the kernel
 * itself would accept a signal for a zombie and do nothing with it);
 * `G_IO_ERROR_CLOSED` for a running process that is no longer watched
 * (unwatched, or the monitor closed); `G_IO_ERROR_PERMISSION_DENIED` when
 * the caller may not signal it (another user's process, or one in a pid
 * namespace this one cannot see, whose [property@Procwatch.Process:pid] is
 * 0); `G_IO_ERROR_INVALID_ARGUMENT` for a number that is not a signal.
 *
 * Returns: true if the signal was sent
 *
 * Since: 1.2
 */
gboolean
procwatch_process_send_signal (ProcwatchProcess  *self,
                               int                signum,
                               GError           **error)
{
  g_return_val_if_fail (PROCWATCH_IS_PROCESS (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->state != PROCWATCH_PROCESS_STATE_RUNNING)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("Cannot signal process %d: it has exited"), (int) self->pid);
      return FALSE;
    }

  if (!check_watched (self, error))
    return FALSE;

  return procwatch_watch_send_signal (self->watch, signum, error);
}

/**
 * procwatch_process_wait_async:
 * @self: a process
 * @cancellable: (nullable): a cancellable
 * @callback: (scope async): the function to call when the process has exited
 * @user_data: data for @callback
 *
 * Waits until the process has exited. If it has already (its
 * [property@Procwatch.Process:state] is not running), the wait completes
 * at once, from the main loop. Unlike
 * [method@Procwatch.ProcessMonitor.wait_async] it names no pid, so it also
 * waits for a process whose pid is 0 or may have been reused, and it
 * starts no watch: the process must be watched.
 *
 * The wait fails with `G_IO_ERROR_CANCELLED` (in the
 * [error@Gio.IOErrorEnum] domain) when @cancellable is cancelled or when
 * watching stops before the exit is seen (the process is unwatched or the
 * monitor closed), and with `G_IO_ERROR_CLOSED` at once if the process was
 * no longer watched when this was called. @callback is called from the
 * thread-default main context of the caller, never from inside this call.
 *
 * Unlike a wait on the monitor, this wait holds no reference to the
 * monitor: when the last reference to the monitor goes, watching stops
 * and the wait fails with `G_IO_ERROR_CANCELLED`.
 *
 * Since: 1.2
 */
void
procwatch_process_wait_async (ProcwatchProcess    *self,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (PROCWATCH_IS_PROCESS (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, procwatch_process_wait_async);
  g_task_set_name (task, "[gio-procwatch] process wait");

  if (g_task_return_error_if_cancelled (task))
    return;

  if (self->state != PROCWATCH_PROCESS_STATE_RUNNING)
    g_task_return_pointer (task, g_object_ref (self), g_object_unref);
  else if (!check_watched (self, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    procwatch_watch_add_wait (self->watch, task);
}

/**
 * procwatch_process_wait_finish:
 * @self: a process
 * @result: the result passed to the callback
 * @error: return location for an error
 *
 * Finishes a wait started with [method@Procwatch.Process.wait_async].
 *
 * Returns: true if the process has exited, false on error
 *
 * Since: 1.2
 */
gboolean
procwatch_process_wait_finish (ProcwatchProcess  *self,
                               GAsyncResult      *result,
                               GError           **error)
{
  g_autoptr(ProcwatchProcess) process = NULL;

  g_return_val_if_fail (PROCWATCH_IS_PROCESS (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) ==
                        procwatch_process_wait_async, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  process = g_task_propagate_pointer (G_TASK (result), error);

  return process != NULL;
}
