/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <sys/wait.h>

#include "procwatch-enums.h"
#include "procwatch-process-private.h"

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
 * The object stays valid for as long as you hold a reference, also after the
 * monitor has stopped watching the process.
 */

struct _ProcwatchProcess
{
  GObject parent_instance;

  GPid pid;
  ProcwatchProcessState state;
  int wait_status;
  guint has_status : 1;
};

enum {
  PROP_0,
  PROP_PID,
  PROP_STATE,
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

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
procwatch_process_class_init (ProcwatchProcessClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

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

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
procwatch_process_init (ProcwatchProcess *self)
{
  self->state = PROCWATCH_PROCESS_STATE_RUNNING;
}

ProcwatchProcess *
procwatch_process_new (GPid pid)
{
  ProcwatchProcess *self = g_object_new (PROCWATCH_TYPE_PROCESS, NULL);

  self->pid = pid;

  return self;
}

void
procwatch_process_set_state (ProcwatchProcess      *self,
                              ProcwatchProcessState  state)
{
  g_return_if_fail (PROCWATCH_IS_PROCESS (self));
  g_return_if_fail (state >= self->state);

  if (self->state == state)
    return;

  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

void
procwatch_process_set_status (ProcwatchProcess *self,
                               int               wait_status)
{
  g_return_if_fail (PROCWATCH_IS_PROCESS (self));

  self->wait_status = wait_status;
  self->has_status = TRUE;
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
 * procwatch_process_has_status:
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
 * decode it.
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
